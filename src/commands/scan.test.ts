/**
 * `scan` and `get --from/--to` over real local memories written with chosen rows: an exact needle found at
 * its turn's position (across a split boundary too), absence said with the number of turns read, case,
 * context turns, ranges, the listing's bound, short and ambiguous session ids, several memories, and bad
 * arguments named.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import type { Chunk } from "../chunk/index.js";
import { LocalStore } from "../local/index.js";
import { BadArgumentError, FunesError } from "./errors.js";
import type { ReadContext } from "./index.js";
import { findAll, MAX_SCAN_MATCHES, type ScanOptions, scanOfMemories } from "./scan.js";
import { RANGE_MAX_CHARS, RANGE_TURNS, rangeOfMemories } from "./turn-range.js";

const A = "7028acdd-e85a-4fa0-88a5-71f4103333a0";
const B = "7028ac11-0000-4000-8000-000000000000";
let t: { dir: string; cleanup: () => void };
let ctx: ReadContext;
let other: string;

/** One row of a session's turn `seq` (block 0, split 0 unless said). */
function row(session: string, seq: number, text: string, more: Partial<Chunk> = {}): Chunk {
  const blockIdx = more.blockIdx ?? 0;
  const splitIdx = more.splitIdx ?? 0;
  return {
    id: `${session}-${seq}-${blockIdx}-${splitIdx}`,
    text,
    sessionId: session,
    workdir: "/work/app",
    turnUuid: `${session}-t${seq}`,
    parentUuid: null,
    seq,
    ts: `2026-03-01T10:${String(seq).padStart(2, "0")}:00.000Z`,
    role: seq % 2 === 0 ? "user" : "assistant",
    blockType: "text",
    toolName: null,
    sourcePath: `/traces/${session}.jsonl`,
    harness: "claude_code",
    repo: "",
    ...more,
    blockIdx,
    splitIdx,
  };
}

beforeAll(async () => {
  t = tempDir();
  ctx = {
    funesHome: join(t.dir, "funes"),
    home: join(t.dir, "home"),
    models: { hubCache: join(t.dir, "hf"), reranker: "ms-marco-MiniLM-L-6-v2", threads: 1, hubUrl: "" },
  };
  const rows: Chunk[] = [];
  // Session A: 30 turns, seq 0–29.
  for (let i = 0; i < 30; i++)
    if (![12, 13, 20, 25].includes(i)) rows.push(row(A, i, `turn ${i} says hello`));
  rows.push(
    row(A, 12, "[tool_result Bash] write failed: ENOSPC: no space left on device", {
      blockType: "tool_result",
      toolName: "Bash",
    }),
    row(A, 12, "ENOSPC again", { blockIdx: 1 }),
    // A needle across the boundary of a block's two pieces.
    row(A, 13, "the disk said ENO", { splitIdx: 0 }),
    row(A, 13, "SPC later on", { splitIdx: 1 }),
    row(A, 20, "a literal a.b here, not axb"),
    row(A, 25, "EnoSpc in mixed case"),
  );
  // Session B shares A's first six characters.
  for (let i = 0; i < 3; i++) rows.push(row(B, i, `b turn ${i}`));
  // A session of long turns, and one with more matches than a listing shows.
  for (let i = 0; i < 3; i++) rows.push(row("long-turns", i, `${i}:${"x".repeat(25_000)}`));
  rows.push(row("many", 0, "ab ".repeat(MAX_SCAN_MATCHES + 50)), row("many", 1, "no"), row("many", 2, "ab"));
  const store = await LocalStore.openOrCreate(join(ctx.funesHome, "memory"));
  await store.append(rows);
  store.close();
  other = join(t.dir, "other");
  const second = await LocalStore.openOrCreate(other);
  await second.append([row("team-only", 0, "from the team: ENOSPC"), row(A, 0, "another copy of A")]);
  second.close();
});

afterAll(() => t?.cleanup());

const scan = (o: Partial<ScanOptions> & { needle: string }, specs: string[] = []) =>
  scanOfMemories(specs, { sessionId: A, ignoreCase: false, context: 0, ...o }, ctx);

describe("findAll", () => {
  it("finds a literal left to right, never overlapping, never as a pattern", () => {
    expect(findAll("aaaa", "aa", false)).toEqual([
      { offset: 0, length: 2 },
      { offset: 2, length: 2 },
    ]);
    expect(findAll("axb a.b", "a.b", false)).toEqual([{ offset: 4, length: 3 }]);
    expect(findAll("axb a.b (x)", "(x)", true)).toEqual([{ offset: 8, length: 3 }]);
    expect(findAll("Straße STRASSE", "straße", true)).toEqual([{ offset: 0, length: 6 }]);
    expect(findAll("abc", "", false)).toEqual([]);
  });
});

describe("scan", () => {
  it("finds an exact needle with its turn's position, block and offset, across a split boundary too", async () => {
    const r = await scan({ needle: "ENOSPC" });
    expect(r).toMatchObject({
      memory: join(ctx.funesHome, "memory"),
      sessionId: A,
      scanned: 30,
      sessionTurns: 30,
      first: 0,
      last: 29,
      matches: 3,
      matchedTurns: 2,
      next: null,
    });
    expect(r.turns.map((x) => [x.seq, x.center, x.matches])).toEqual([
      [
        12,
        true,
        [
          { block: 0, offset: 33, length: 6 },
          { block: 1, offset: 0, length: 6 },
        ],
      ],
      [13, true, [{ block: 0, offset: 14, length: 6 }]],
    ]);
    expect(r.turns[1]?.blocks[0]?.text).toBe("the disk said ENOSPC later on");
    expect(r.turns[0]?.turnUuid).toBe(`${A}-t12`);
  });

  it("says how many turns it read when the needle is not there, and matches case only when asked", async () => {
    const none = await scan({ needle: "ENOSPC: disk full" });
    expect([none.matches, none.matchedTurns, none.scanned, none.turns]).toEqual([0, 0, 30, []]);
    expect((await scan({ needle: "enospc" })).matches).toBe(0);
    const any = await scan({ needle: "enospc", ignoreCase: true });
    expect(any.turns.map((x) => x.seq)).toEqual([12, 13, 25]);
    expect(any.matches).toBe(4);
    // A needle is never a pattern.
    expect((await scan({ needle: "a.b" })).turns.map((x) => x.seq)).toEqual([20]);
    expect((await scan({ needle: "a.c" })).matches).toBe(0);
  });

  it("shows the turns around each match, each once and in order", async () => {
    const r = await scan({ needle: "ENOSPC", context: 2 });
    expect(r.turns.map((x) => [x.seq, x.center])).toEqual([
      [10, false],
      [11, false],
      [12, true],
      [13, true],
      [14, false],
      [15, false],
    ]);
    expect(r.turns[0]?.matches).toEqual([]);
    // Context never passes the range scanned.
    const edge = await scan({ needle: "ENOSPC", context: 3, from: 12, to: 13 });
    expect(edge.turns.map((x) => x.seq)).toEqual([12, 13]);
  });

  it("scans only the positions asked for, and says which", async () => {
    const r = await scan({ needle: "ENOSPC", from: 13, to: 28, ignoreCase: true });
    expect([r.scanned, r.first, r.last, r.from, r.to, r.matches]).toEqual([16, 13, 28, 13, 28, 2]);
    expect((await scan({ needle: "ENOSPC", to: 11 })).matches).toBe(0);
    expect((await scan({ needle: "ENOSPC", from: 12, to: 12 })).scanned).toBe(1);
  });

  it("lists at most 200 matches and names where to scan on; the count is every match", async () => {
    const r = await scan({ needle: "ab", sessionId: "many" });
    expect(r.matches).toBe(MAX_SCAN_MATCHES + 51);
    expect(r.turns.map((x) => [x.seq, x.matches.length, x.unlisted])).toEqual([[0, MAX_SCAN_MATCHES, 50]]);
    expect(r.next).toBe(2);
  });

  it("takes a session's unambiguous start, and refuses an ambiguous one or one no memory holds", async () => {
    expect((await scan({ needle: "hello", sessionId: "7028acdd" })).sessionId).toBe(A);
    const ambiguous = await scan({ needle: "x", sessionId: "7028ac" }).catch((e: unknown) => e);
    expect(ambiguous).toBeInstanceOf(FunesError);
    expect((ambiguous as FunesError).code).toBe("bad_input");
    expect((ambiguous as Error).message).toBe(
      `session "7028ac" is ambiguous: 2 sessions begin with it ("${B}", "${A}") — give more of its id`,
    );
    const unknown = await scan({ needle: "x", sessionId: "ffff0000" }).catch((e: unknown) => e);
    expect((unknown as FunesError).code).toBe("no_memory");
    expect((unknown as Error).message).toBe(
      `session "ffff0000" is not in ${join(ctx.funesHome, "memory")} — find its id with funes sessions, and give the memory it lists`,
    );
  });

  it("reads the first of several memories that holds the session", async () => {
    const team = await scan({ needle: "ENOSPC", sessionId: "team-only" }, ["local", other]);
    expect([team.memory, team.matches, team.scanned]).toEqual([other, 1, 1]);
    const mine = await scan({ needle: "ENOSPC" }, ["local", other]);
    expect([mine.memory, mine.scanned]).toEqual([join(ctx.funesHome, "memory"), 30]);
    const theirs = await scan({ needle: "copy" }, [other, "local"]);
    expect([theirs.memory, theirs.matches, theirs.scanned]).toEqual([other, 1, 1]);
  });

  it("names a bad argument", async () => {
    for (const [o, arg] of [
      [{ needle: "" }, "needle"],
      [{ needle: "x", context: 51 }, "context"],
      [{ needle: "x", from: 9, to: 3 }, "from"],
      [{ needle: "x", from: -1 }, "from"],
    ] as const) {
      const err = await scan(o, [join(t.dir, "nowhere")]).catch((e: unknown) => e);
      expect(err, arg).toBeInstanceOf(BadArgumentError);
      expect((err as BadArgumentError).arg).toBe(arg);
    }
    const past = await scan({ needle: "x", from: 9, to: 3 }).catch((e: unknown) => e);
    expect((past as Error).message).toBe(
      "--from 9 is past --to 3 — give a start at or before the end, e.g. --from 3 --to 9",
    );
    expect((past as BadArgumentError).messageForArg()).toBe(
      'from "9" is past to (3) — give a start at or before the end, e.g. from 3 and to 9',
    );
    const outside = await scan({ needle: "x", from: 40 }).catch((e: unknown) => e);
    expect((outside as Error).message).toBe(
      `session "${A}" has no turns at seq 40 or after (its turns are seq 0–29) — give positions within it`,
    );
  });
});

describe("get --from/--to", () => {
  const range = (sessionId: string, b: { from?: number; to?: number }, specs: string[] = []) =>
    rangeOfMemories(specs, sessionId, b, ctx);

  it("reads the turns between two positions, both included, and where the session goes on", async () => {
    const r = await range("7028acdd", { from: 11, to: 13 });
    expect(r.sessionId).toBe(A);
    expect(r.turns.map((x) => [x.seq, x.turnUuid, x.center])).toEqual([
      [11, `${A}-t11`, false],
      [12, `${A}-t12`, false],
      [13, `${A}-t13`, false],
    ]);
    expect(r.turns[2]?.blocks).toEqual([{ blockType: "text", text: "the disk said ENOSPC later on" }]);
    expect([r.from, r.to, r.sessionTurns, r.unshown, r.next]).toEqual([11, 13, 30, 0, 14]);
    expect((await range(A, { from: 25, to: 29 })).next).toBeNull();
  });

  it("reads 20 turns from a start alone, the 20 up to an end alone, the first 20 with neither", async () => {
    const seqs = async (b: { from?: number; to?: number }) => (await range(A, b)).turns.map((x) => x.seq);
    const span = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
    expect(await seqs({ from: 5 })).toEqual(span(5, RANGE_TURNS));
    expect(await seqs({ from: 25 })).toEqual(span(25, 5));
    expect(await seqs({ to: 24 })).toEqual(span(5, RANGE_TURNS));
    expect(await seqs({ to: 3 })).toEqual(span(0, 4));
    expect(await seqs({})).toEqual(span(0, RANGE_TURNS));
    expect((await range(A, {})).next).toBe(RANGE_TURNS);
  });

  it("stops at 40,000 characters (at a turn's end, one turn always shown) and says where to read on", async () => {
    expect(25_000 * 2).toBeGreaterThan(RANGE_MAX_CHARS);
    const r = await range("long-turns", { from: 0, to: 2 });
    expect([r.turns.map((x) => x.seq), r.unshown, r.next]).toEqual([[0], 2, 1]);
    expect((await range("long-turns", { from: 1, to: 2 })).turns.map((x) => x.seq)).toEqual([1]);
  });

  it("refuses a start past its end, positions outside the session, and a session not there", async () => {
    const past = await range(A, { from: 9, to: 3 }).catch((e: unknown) => e);
    expect((past as BadArgumentError).arg).toBe("from");
    const outside = await range(A, { from: 30, to: 40 }).catch((e: unknown) => e);
    expect((outside as Error).message).toBe(
      `session "${A}" has no turns at seq 30–40 (its turns are seq 0–29) — give positions within it`,
    );
    const missing = await range("no-such-session", {}).catch((e: unknown) => e);
    expect((missing as FunesError).code).toBe("no_memory");
    const empty = await range(" ", {}).catch((e: unknown) => e);
    expect((empty as FunesError).code).toBe("bad_input");
  });
});
