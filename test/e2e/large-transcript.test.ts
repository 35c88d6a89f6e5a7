/**
 * A generated 50 MB Claude Code transcript reads whole: every line is a record, every exchange is five turns,
 * and no chunk id repeats. Its peak RSS through the CLI (goal < 500 MiB) is measured by `npm run bench`, not
 * here: a timed or memory-bound test would be flaky on a shared 2-core machine.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_TIERS, chunkTurns } from "../../src/chunk/index.js";
import { JsonlTreeSource } from "../../src/traces/index.js";
import { tempDir } from "../helpers/fixtures.js";
import { writeLargeClaudeTranscript } from "../helpers/large-transcript.js";

describe("a 50 MB transcript", () => {
  it("is read whole into turns and uniquely-identified chunks", async () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "projects", "-home-dev-app", "large-session.jsonl");
      mkdirSync(join(t.dir, "projects", "-home-dev-app"), { recursive: true });
      const made = writeLargeClaudeTranscript(path, 50 * 1024 * 1024);
      expect(made.bytes).toBeGreaterThanOrEqual(50 * 1024 * 1024);
      const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
      const [unit] = await source.listUnits();
      expect(unit!.bytes).toBe(made.bytes);
      const read = await source.readUnit(unit!);
      expect(read.records).toBe(made.lines);
      expect(read.skipped).toEqual({});
      const turns = read.sessions[0]!.turns;
      expect(turns).toHaveLength(made.exchanges * 5);
      const chunks = chunkTurns(turns, { tiers: ALL_TIERS, thinking: true, repo: "" });
      expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
      expect(chunks.length).toBeGreaterThan(made.exchanges * 5);
    } finally {
      t.cleanup();
    }
  });
});
