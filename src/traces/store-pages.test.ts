/**
 * Hermes and OpenCode sessions read a page of rows at a time for indexing (issue 40): large generated
 * stores, read with a page of a few rows so that many pages are crossed, give the same turns, ids, skips
 * and counts as the whole read.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { type HermesMessage, writeHermesDb } from "../../test/helpers/hermes-db.js";
import { HermesSource } from "./hermes.js";
import { OpenCodeSource } from "./opencode.js";
import { collectStream } from "./two-pass.js";
import type { StreamedUnit, TraceSource, UnitRead } from "./types.js";

const DEPTH = 100_000;
const DEEP = `${"[".repeat(DEPTH)}1.5${"]".repeat(DEPTH)}`;

/** Every unit of `source` read whole and paged; the reads, each pair made comparable as plain JSON. */
async function bothReads(source: TraceSource): Promise<{ whole: UnitRead; paged: UnitRead }[]> {
  const out: { whole: UnitRead; paged: UnitRead }[] = [];
  for (const unit of await source.listUnits()) {
    const whole = await source.readUnit(unit);
    const streamed = await source.streamUnit?.(unit);
    if (streamed === null || streamed === undefined) throw new Error(`${unit.key} was not streamed`);
    out.push({
      whole: JSON.parse(JSON.stringify(whole)),
      paged: JSON.parse(JSON.stringify(collectStream(streamed))),
    });
  }
  return out;
}

/** The records counted once the first turn of a streamed unit is taken. */
function recordsAtFirstTurn(s: StreamedUnit): number {
  const first = s.sessions[0]?.turns[Symbol.iterator]().next();
  expect(first?.done).toBe(false);
  return s.read.records;
}

const CALLS =
  '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\\"command\\":\\"ls\\"}"}}]';

/** Message `i` of session `sid`: every kind of row Hermes writes, in turn. */
function hermesRow(sid: string, i: number): HermesMessage {
  const t = 1_700_000_000 + i * 0.25;
  const base = { session_id: sid, timestamp: t };
  switch (i % 9) {
    case 0:
      return { ...base, role: "session_meta" };
    case 1:
      return { ...base, role: "user", content: `question ${i} about the ocelot queue` };
    case 2:
      return { ...base, role: "assistant", content: "", reasoning_content: `think ${i}`, tool_calls: CALLS };
    case 3:
      return { ...base, role: "tool", content: `output ${i}`, tool_name: "terminal", tool_call_id: "call_1" };
    case 4:
      return { ...base, role: "assistant", content: "   " };
    case 5:
      return { ...base, role: "system", content: "you are hermes" };
    case 6:
      return { ...base, role: "assistant", content: `answer ${i}`, tool_calls: "not json" };
    case 7:
      return {
        ...base,
        role: "user",
        content: `\u0000json:${JSON.stringify([{ type: "text", text: `picture ${i}` }])}`,
      };
    default:
      return { ...base, role: "user", content: `note ${i}`, reasoning: "unused" };
  }
}

describe("a Hermes session read a page at a time", () => {
  it("gives the turns, ids, skips and counts of the whole read, across pages and other sessions' rows", async () => {
    const t = tempDir();
    try {
      const db = join(t.dir, "state.db");
      const messages: HermesMessage[] = [];
      // Two sessions interleaved (each page's keyset passes over the other's ids), one row that cannot
      // be read, and a session of exactly two pages (its last page is empty).
      for (let i = 0; i < 1200; i++) {
        messages.push(hermesRow("big", i));
        if (i % 3 === 0) messages.push(hermesRow("other", i));
        if (i === 500)
          messages.push({
            session_id: "big",
            role: "assistant",
            content: "",
            tool_calls: `[{"id":"c","type":"function","function":{"name":"x","arguments":${DEEP}}}]`,
            timestamp: 1,
          });
      }
      for (let i = 0; i < 14; i++) messages.push(hermesRow("even", i + 1));
      writeHermesDb(db, "v30", [{ id: "big", cwd: "/work/big" }, { id: "other" }, { id: "even" }], messages);

      const source = new HermesSource(db, {}, { pageRows: 7 });
      try {
        const reads = await bothReads(source);
        expect(reads).toHaveLength(3);
        for (const { whole, paged } of reads) expect(paged).toEqual(whole);
        const big = reads.find((r) => r.whole.sessions[0]?.sessionId === "big")?.whole;
        expect(big?.records).toBe(1201);
        expect(big?.sessions[0]?.turns.length).toBeGreaterThan(600);
        expect(big?.sessions[0]?.cwd).toBe("/work/big");
        expect(big?.unreadable).toHaveLength(1);
        expect(big?.skipped['message role "system" not indexed']).toBe(133);
        expect(reads.find((r) => r.whole.sessions[0]?.sessionId === "even")?.whole.records).toBe(14);

        // The first turn comes before the session is read: one page of rows, not 1,201.
        const [unit] = (await source.listUnits()).filter((u) => u.key === "big");
        const streamed = await source.streamUnit(unit!);
        expect(recordsAtFirstTurn(streamed)).toBeLessThanOrEqual(7);
      } finally {
        source.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

/** The real OpenCode store, copied, with a large session `ses_big` generated beside its own session. */
function openCodeStore(dir: string): string {
  const db = join(dir, "opencode.db");
  copyFileSync(join(TRACES, "opencode", "opencode.db"), db);
  copyFileSync(join(TRACES, "opencode", "opencode.db-wal"), `${db}-wal`);
  const w = new Database(db);
  try {
    w.pragma("foreign_keys = OFF");
    const other = w.prepare("SELECT id FROM message LIMIT 1").get() as { id: string };
    w.exec(
      "CREATE TEMP TABLE s AS SELECT * FROM session LIMIT 1; UPDATE s SET id = 'ses_big', directory = '/work/big'; INSERT INTO session SELECT * FROM s;",
    );
    const msg = w.prepare(
      "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, 'ses_big', ?, ?, ?)",
    );
    const part = w.prepare(
      "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, 'ses_big', 0, 0, ?)",
    );
    const N = 300;
    const pad = (n: number) => String(n).padStart(6, "0");
    // Part ids are handed out in a scrambled order, so a message's parts are not in insertion order.
    let nextPart = 0;
    const partId = () => `prt_${pad((nextPart++ * 7919) % 100_003)}`;
    for (let i = 0; i < N; i++) {
      // Times tie in threes and ids do not follow time, so the keyset's second column decides.
      const id = `msg_${pad((i * 37) % N)}`;
      const time = 1_000 + Math.floor(i / 3);
      const role = i % 11 === 5 ? "system" : i % 2 === 0 ? "user" : "assistant";
      const data =
        i === 40
          ? "not json"
          : JSON.stringify({ role, time: { created: time }, ...(i > 0 ? { parentID: "msg_000000" } : {}) });
      msg.run(id, time, time, data);
      // Message 100's 25 parts cross several pages of parts; others have 0 to 3.
      const n = i === 100 ? 25 : i % 4;
      for (let k = 0; k < n; k++) {
        const kind = (i + k) % 6;
        const pdata =
          kind === 0
            ? { type: "text", text: `said ${i}.${k}` }
            : kind === 1
              ? { type: "reasoning", text: `thought ${i}.${k}` }
              : kind === 2
                ? {
                    type: "tool",
                    tool: "bash",
                    callID: `c${i}.${k}`,
                    state: { status: "completed", input: { n: k }, output: `out ${k}` },
                  }
                : kind === 3
                  ? {
                      type: "tool",
                      tool: "bash",
                      callID: `e${i}.${k}`,
                      state: { status: "error", input: {}, error: "boom" },
                    }
                  : kind === 4
                    ? { type: "step-start" }
                    : { type: "text", text: `read in ${i}.${k}`, synthetic: true };
        part.run(partId(), id, JSON.stringify(pdata));
      }
      if (i === 77) part.run(partId(), id, `{"type":"tool","tool":"bash","state":{"input":${DEEP}}}`);
    }
    // Parts whose message is missing, or in another session.
    for (let k = 0; k < 3; k++)
      part.run(partId(), "msg_gone", JSON.stringify({ type: "text", text: "lost" }));
    part.run(partId(), other.id, JSON.stringify({ type: "text", text: "elsewhere" }));
  } finally {
    w.close();
  }
  return db;
}

describe("an OpenCode session read a page at a time", () => {
  it("gives the turns, ids, skips and counts of the whole read, a message's parts across pages", async () => {
    const t = tempDir();
    try {
      const source = new OpenCodeSource(openCodeStore(t.dir), "opencode", {}, { pageRows: 5 });
      try {
        const reads = await bothReads(source);
        expect(reads).toHaveLength(2);
        for (const { whole, paged } of reads) expect(paged).toEqual(whole);
        const big = reads.find((r) => r.whole.sessions[0]?.sessionId === "ses_big")?.whole;
        const turns = big?.sessions[0]?.turns ?? [];
        expect(turns.length).toBeGreaterThan(100);
        expect(big?.skipped["opencode part whose message is missing"]).toBe(4);
        // One part of message 77 cannot be read; message 40's data is not JSON.
        expect(big?.unreadable?.map((u) => u.at)).toEqual([expect.stringMatching(/^part "prt_/)]);
        expect(big?.skipped["opencode message data that is not a JSON object"]).toBe(1);
        // Message 100 (id msg_(100·37 mod 300)) keeps every block of its 25 parts, in part id order.
        const many = turns.find((x) => x.turnUuid === `msg_${String((100 * 37) % 300).padStart(6, "0")}`);
        expect(many?.blocks.length).toBeGreaterThan(15);
        expect(
          reads.find((r) => r.whole.sessions[0]?.sessionId !== "ses_big")?.whole.sessions[0]?.turns.length,
        ).toBeGreaterThan(0);

        const [unit] = (await source.listUnits()).filter((u) => u.key === "ses_big");
        const streamed = await source.streamUnit(unit!);
        // Counted at the first turn: the orphans and one page of messages with their parts, not the session.
        expect(recordsAtFirstTurn(streamed)).toBeLessThan(40);
      } finally {
        source.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
