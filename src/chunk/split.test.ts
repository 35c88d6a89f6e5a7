import { describe, expect, it } from "vitest";
import type { Block } from "../traces/index.js";
import { chunkTurns } from "./chunks.js";
import { renderBlock, splitText, stitch, stitchPair, tierOf } from "./split.js";

const block = (blockType: Block["blockType"], text: string, toolName: string | null = null): Block => ({
  blockType,
  text,
  toolName,
  toolUseId: null,
});

describe("renderBlock", () => {
  it("labels tool blocks as the reference does", () => {
    expect(renderBlock(block("tool_use", "{}"))).toBe("[tool_use None] {}");
    expect(renderBlock(block("tool_use", '{"a":1}', "Bash"))).toBe('[tool_use Bash] {"a":1}');
    expect(renderBlock(block("tool_result", "ok\n", "Read"))).toBe("[tool_result Read] ok");
    expect(renderBlock(block("tool_result", "ok"))).toBe("[tool_result] ok");
    expect(renderBlock(block("text", "  as is  "))).toBe("  as is  ");
  });

  it("puts unknown block types in the text tier", () => {
    expect(tierOf("thinking")).toBe("text");
    expect(tierOf("weird")).toBe("text");
    expect(tierOf("tool_use")).toBe("tool_use");
    expect(tierOf("tool_result")).toBe("tool_result");
  });
});

describe("splitText", () => {
  it("keeps short text whole and trims it", () => {
    expect(splitText("  hello \n")).toEqual(["hello"]);
    expect(splitText(" \n\t ")).toEqual([]);
    expect(splitText("x".repeat(1200))).toEqual(["x".repeat(1200)]);
  });

  it("breaks at the last space past the midpoint, with 150 of overlap (golden from the spec)", () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${String(i).padStart(4, "0")}`).join(" ");
    const pieces = splitText(words);
    expect(pieces.map((p) => p.length)).toEqual([1196, 1194, 609]);
    expect(pieces.map((p) => p.slice(0, 6))).toEqual(["word00", "rd0116", "rd0232"]);
    expect(pieces.map((p) => p.slice(-8))).toEqual(["word0132", "word0248", "word0299"]);
    expect(stitch(pieces)).toBe(words);
  });

  it("counts code points, not UTF-16 units", () => {
    const emoji = Array.from({ length: 2000 }, (_, i) => ((i + 1) % 10 === 0 ? " " : "😀")).join("");
    const pieces = splitText(emoji);
    expect(pieces.map((p) => Array.from(p).length)).toEqual([1199, 949]);
    expect(pieces.map((p) => p.length)).toEqual([2279, 1804]);
    // The trailing space is trimmed away; everything else comes back.
    expect(stitch(pieces) === emoji.trimEnd()).toBe(true);
  });

  it("cuts hard at 1200 when no break lies past the midpoint, and prefers newlines", () => {
    expect(splitText("a".repeat(3000)).map((p) => p.length)).toEqual([1200, 1200, 900]);
    const text = `${"a".repeat(700)}\n${"b".repeat(400)} ${"c".repeat(600)}`;
    expect(splitText(text)[0]).toBe("a".repeat(700));
  });
});

describe("stitchPair", () => {
  it("drops the overlap, or concatenates when there is none", () => {
    expect(stitchPair("abcdef", "defgh")).toBe("abcdefgh");
    expect(stitchPair("abc", "xyz")).toBe("abcxyz");
    expect(stitchPair("abab", "abab")).toBe("abab");
  });
});

describe("chunkTurns", () => {
  const turn = {
    sessionId: "split-session",
    workdir: "w",
    turnUuid: "turn-1",
    parentUuid: null,
    seq: 0,
    ts: "",
    role: "assistant",
    sourcePath: "/x",
    harness: "claude_code",
    blocks: [
      block("thinking", "private thoughts"),
      block("text", Array.from({ length: 300 }, (_, i) => `word${String(i).padStart(4, "0")}`).join(" ")),
      block("tool_use", "{}", "Bash"),
    ],
  };

  it("keeps block_idx when thinking is left out or a pass takes one tier", () => {
    const all = chunkTurns([turn], {
      tiers: new Set(["text", "tool_use", "tool_result"]),
      thinking: true,
      repo: "",
    });
    const noThinking = chunkTurns([turn], {
      tiers: new Set(["text", "tool_use", "tool_result"]),
      thinking: false,
      repo: "",
    });
    const toolsOnly = chunkTurns([turn], { tiers: new Set(["tool_use"]), thinking: true, repo: "" });
    expect(all.map((c) => [c.blockIdx, c.splitIdx])).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
      [1, 2],
      [2, 0],
    ]);
    expect(noThinking.map((c) => c.id)).toEqual(all.slice(1).map((c) => c.id));
    expect(toolsOnly.map((c) => c.id)).toEqual([all[4]?.id]);
  });

  it("gives a split block the reference's ids (golden: sha1 of split-session:turn-1:1:<split>, derived outside this code base)", () => {
    const all = chunkTurns([turn], { tiers: new Set(["text"]), thinking: false, repo: "o/n" });
    expect(all.map((c) => c.id)).toEqual(["e7e769c411fbb0e9", "5e91c7045ed3628a", "1c3128353ef28dfe"]);
    expect(all.every((c) => c.repo === "o/n")).toBe(true);
  });
});
