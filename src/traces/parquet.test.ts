import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { type TraceRow, writeTraceParquet } from "../../test/helpers/parquet.js";
import { ParquetSource } from "./parquet.js";
import { sourceForPath } from "./sources.js";

const user = JSON.stringify({ role: "user", content: "build a parser" });
// Written by hand: `2.0` must reach the parser as written (JSON.stringify would print 2).
const asst =
  '{"role":"assistant","content":"on it","reasoning_content":"plan the parse","tool_calls":[' +
  '{"type":"function","function":{"name":"Bash","arguments":"{\\"command\\":\\"cargo test\\"}"}},' +
  '{"type":"function","function":{"name":"Edit","arguments":{"path": "a.rs", "ratio": 2.0}}}]}';
const tool = JSON.stringify({ role: "tool", content: "ok" });

const ROWS: TraceRow[] = [
  {
    session_id: "sess-1",
    messages: [user, asst, tool],
    sent_at: "2026-06-19T00:00:02.000Z",
    harness: "claude_code",
    metadata: JSON.stringify({ cwd: "/home/u/parser" }),
  },
  {
    session_id: "sess-2",
    messages: [JSON.stringify({ role: "user", content: "   " })],
    sent_at: null,
    harness: "codex",
  },
  { session_id: "sess-3", messages: [user], sent_at: null, harness: "codex" },
];

function make(rows: TraceRow[]) {
  const t = tempDir();
  const p = join(t.dir, "0000.parquet");
  writeTraceParquet(p, rows);
  return { path: p, cleanup: t.cleanup };
}

traceSourceContract("parquet", {
  harness: "claude_code",
  async make() {
    const { path, cleanup } = make([ROWS[0]!]);
    return { source: new ParquetSource(path), cleanup };
  },
  async makeDamaged() {
    const { path, cleanup } = make([{ ...ROWS[0]!, messages: [user, "{not json", asst, tool] }]);
    return { source: new ParquetSource(path), cleanup };
  },
});

describe("ParquetSource", () => {
  it("maps rows to sessions as the reference does", async () => {
    const { path, cleanup } = make(ROWS);
    try {
      const src = sourceForPath(path, "pi");
      expect(src.kind).toBe("parquet");
      const [unit] = await src.listUnits();
      expect(unit?.signature).toBeNull();
      const r = await src.readUnit(unit!);
      expect(r.sessions.map((s) => s.sessionId)).toEqual(["sess-1", "sess-3"]);
      const s = r.sessions[0]!;
      expect(s.workdir).toBe("-home-u-parser");
      expect(s.turns.map((t) => [t.turnUuid, t.parentUuid, t.role, t.ts, t.harness])).toEqual([
        ["sess-1-0", null, "user", "2026-06-19T00:00:02.000Z", "claude_code"],
        ["sess-1-1", "sess-1-0", "assistant", "2026-06-19T00:00:02.000Z", "claude_code"],
        ["sess-1-2", "sess-1-1", "tool", "2026-06-19T00:00:02.000Z", "claude_code"],
      ]);
      expect(s.turns[1]!.blocks.map((b) => [b.blockType, b.text])).toEqual([
        ["thinking", "plan the parse"],
        ["text", "on it"],
        ["tool_use", '{"command":"cargo test"}'],
        ["tool_use", '{"path":"a.rs","ratio":2.0}'],
      ]);
      // A tool message is text: parquet traces have no tool_result blocks.
      expect(s.turns[2]!.blocks[0]!.blockType).toBe("text");
      expect(r.sessions[1]!.workdir).toBe("0000");
      expect(r.skipped).toEqual({
        "message with no indexable content": 1,
        "row with no indexable message": 1,
      });
    } finally {
      cleanup();
    }
  });

  it("limits to the first N sessions that yield a turn", async () => {
    const { path, cleanup } = make(ROWS);
    try {
      const src = new ParquetSource(path);
      const [unit] = await src.listUnits(1);
      expect((await src.readUnit(unit!)).sessions.map((s) => s.sessionId)).toEqual(["sess-1"]);
    } finally {
      cleanup();
    }
  });
});
