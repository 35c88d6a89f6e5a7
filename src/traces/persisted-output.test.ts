import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { ALL_TIERS, chunkTurns } from "../chunk/index.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { SKIP_PERSISTED_MISSING } from "./persisted-output.js";

const SID = "046765e9-1878-49aa-b195-de74c14c3930";

/** A session whose Grep output was too large and went to `<session>/tool-results/`, as Claude Code 2.1 does. */
function layout(withFile: boolean, stdout?: (full: string) => string) {
  const t = tempDir();
  const project = join(t.dir, "projects", "H--prism-slot-india");
  mkdirSync(join(project, SID, "tool-results"), { recursive: true });
  const full = Array.from(
    { length: 600 },
    (_, i) => `src/tools/dispatch${i}.ts:342:  "lathe_set_config", // line ${i}`,
  ).join("\n");
  const saved = `C:\\Users\\w\\.claude\\projects\\H--prism-slot-india\\${SID}\\tool-results\\toolu_01UH3Fb.txt`;
  const preview = `<persisted-output>\nOutput too large (34.3KB). Full output saved to: ${saved}\n\nPreview (first 2KB):\n${full.slice(0, 2048)}\n...\n</persisted-output>`;
  const rec = (o: object) =>
    JSON.stringify({ sessionId: SID, cwd: "H:\\prism", timestamp: "2026-06-16T00:40:17.876Z", ...o });
  writeFileSync(
    join(project, `${SID}.jsonl`),
    [
      rec({
        type: "assistant",
        uuid: "a1",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_01UH3Fb", name: "Grep", input: { pattern: "setConfig" } }],
        },
      }),
      rec({
        type: "user",
        uuid: "u1",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_01UH3Fb", content: preview }],
        },
        ...(stdout === undefined
          ? {}
          : { toolUseResult: { stdout: stdout(full), stderr: "", interrupted: false, isImage: false } }),
      }),
    ].join("\n"),
  );
  if (withFile) writeFileSync(join(project, SID, "tool-results", "toolu_01UH3Fb.txt"), full);
  return { ...t, project, full };
}

describe("Claude externalised tool output", () => {
  it("is indexed whole, after the turn's own blocks, under the tool call that produced it", async () => {
    const t = layout(true);
    try {
      const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
      const [unit] = await source.listUnits();
      const r = await source.readUnit(unit!);
      const turn = r.sessions[0]!.turns[1]!;
      expect(turn.blocks.map((b) => [b.blockType, b.toolName])).toEqual([
        ["tool_result", "Grep"],
        ["tool_result", "Grep"],
      ]);
      expect(turn.blocks[0]!.text.startsWith("<persisted-output>")).toBe(true);
      expect(turn.blocks[1]!.text).toBe(t.full);
      expect(r.skipped).toEqual({});
      const chunks = chunkTurns([turn], { tiers: ALL_TIERS, thinking: true, repo: "" });
      // The preview keeps block 0 (the reference's id); the full output is block 1, split like any block.
      const full = chunks.filter((c) => c.blockIdx === 1);
      expect(full.length).toBeGreaterThan(20);
      expect(full[0]!.text.startsWith("[tool_result Grep] src/tools/dispatch0.ts")).toBe(true);
      expect(chunks.some((c) => c.text.includes("dispatch599.ts"))).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it("missing on disk but whole in the record's toolUseResult.stdout (real 2.0/2.1 Bash records): that is indexed", async () => {
    const t = layout(false, (full) => full);
    try {
      const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
      const r = await source.readUnit((await source.listUnits())[0]!);
      const blocks = r.sessions[0]!.turns[1]!.blocks;
      expect(blocks.map((b) => [b.blockType, b.toolName])).toEqual([
        ["tool_result", "Grep"],
        ["tool_result", "Grep"],
      ]);
      expect(blocks[1]!.text).toBe(t.full);
      expect(r.skipped).toEqual({});
    } finally {
      t.cleanup();
    }
  });

  it("a record whose stdout is no longer than the preview adds nothing: the gap is counted", async () => {
    const t = layout(false, (full) => full.slice(0, 100));
    try {
      const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
      const r = await source.readUnit((await source.listUnits())[0]!);
      expect(r.sessions[0]!.turns[1]!.blocks).toHaveLength(1);
      expect(r.skipped).toEqual({ [SKIP_PERSISTED_MISSING]: 1 });
    } finally {
      t.cleanup();
    }
  });

  it("missing on disk: the preview stays and the gap is counted", async () => {
    const t = layout(false);
    try {
      const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
      const r = await source.readUnit((await source.listUnits())[0]!);
      expect(r.sessions[0]!.turns[1]!.blocks).toHaveLength(1);
      expect(r.skipped).toEqual({ [SKIP_PERSISTED_MISSING]: 1 });
    } finally {
      t.cleanup();
    }
  });
});
