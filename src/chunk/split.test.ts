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

/** The splitting rule stated plainly over an array of code points (slow, obviously right): the oracle. */
function splitByCodePoints(text: string): string[] {
  const trimmed = text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
  const cps = Array.from(trimmed);
  if (cps.length === 0) return [];
  if (cps.length <= 1200) return [trimmed];
  const last = (ch: string, a: number, b: number) => {
    for (let i = b - 1; i >= a; i--) if (cps[i] === ch) return i;
    return -1;
  };
  const pieces: string[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(start + 1200, cps.length);
    if (end < cps.length) {
      let brk = last("\n", start, end);
      if (brk <= start + 600) brk = last(" ", start, end);
      if (brk > start + 600) end = brk;
    }
    const piece = cps
      .slice(start, end)
      .join("")
      .replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
    if (piece !== "") pieces.push(piece);
    if (end >= cps.length) break;
    start = Math.max(end - 150, start + 1);
  }
  return pieces;
}

describe("splitText against the rule stated over code points", () => {
  it("agrees on random texts of words, newlines, Unicode spaces, emoji and lone surrogates", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const atoms = [
      "word",
      "x",
      " ",
      "  ",
      "\n",
      "\u0085",
      "\u3000",
      "\u00a0",
      "😀",
      "é",
      "\ud800",
      "\udfff",
      "\ufeff",
      "\t",
    ];
    for (let t = 0; t < 300; t++) {
      const len = rand(3) === 0 ? rand(400) : 800 + rand(4000);
      let text = "";
      // Long runs of one kind too: a window with no space, or with nothing but spaces.
      while (text.length < len) {
        const a = atoms[rand(atoms.length)] as string;
        text += rand(20) === 0 ? a.repeat(rand(700)) : a;
      }
      expect(splitText(text)).toEqual(splitByCodePoints(text));
    }
  });
});
