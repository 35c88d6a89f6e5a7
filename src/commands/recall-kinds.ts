/**
 * What each recall candidate is (search/echoes.ts): funes's own output read back (an echo), a question put
 * to memory, the agent's restatement of what it recalled, or an original passage. A row's own fields say
 * most of it; the rest (a piece from the middle of a long output, a call known by its result, a prompt that
 * led to a recall, prose after one) is read from the turns around it, fetched once per memory for the whole
 * pool. Then which candidates must follow which (`followers`): a question or restatement the passages its
 * recall returned, a copy the passage it quotes.
 */
import type { HitRow } from "../local/index.js";
import type { MemoryReader } from "../memory/index.js";
import {
  copyLinks,
  echoOf,
  mayBeCall,
  quotedTurns,
  type RowKind,
  sessionKinds,
  turnIndex,
  turnKey,
} from "../search/index.js";

/** Turns read either side of a candidate: far enough to reach the prompt before a call in one agent turn. */
export const CONTEXT_TURNS = 8;

/** A candidate and the memory that found it. */
export interface FoundRow {
  row: HitRow;
  reader: MemoryReader;
}

/** A seq range of one session (ids only: rows of every agent with that session id). */
export interface SeqRange {
  sessionId: string;
  from: number;
  to: number;
}

/** What a recall has read around its candidates in one memory (see `ReadAround`). */
export interface ReadOfMemory {
  windows: SeqRange[];
  rows: HitRow[];
  /** Row id → the turns (`turnKey`) the recall in its exchange returned, for questions and restatements. */
  links: Map<string, string[]>;
}

/**
 * The turns a recall has read around its candidates, per memory: the windows and their rows, and the links
 * read from them. The neighbour read of the hits reuses them where they cover it (same reader, same table
 * version: the same rows).
 */
export type ReadAround = Map<MemoryReader, ReadOfMemory>;

/** The rows of `ranges` when `read` covers every one of them, else null. */
export function coveredRows(read: { windows: SeqRange[]; rows: HitRow[] } | undefined, ranges: SeqRange[]) {
  if (read === undefined) return null;
  const inside = (r: SeqRange) =>
    read.windows.some((w) => w.sessionId === r.sessionId && w.from <= r.from && r.to <= w.to);
  if (!ranges.every(inside)) return null;
  // Windows read in two rounds may overlap: each row once.
  const rows = new Map<string, HitRow>();
  for (const row of read.rows)
    if (ranges.some((r) => r.sessionId === row.sessionId && r.from <= row.seq && row.seq <= r.to))
      rows.set(row.id, row);
  return [...rows.values()];
}

/** Session key: another agent's session with the same id is another session. */
const sessionKey = (r: HitRow) => `${r.harness}\u0000${r.sessionId}`;

/** The value under `key`, made and stored first when absent. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/** Merges each session's seq windows so one query reads each turn once. */
function windows(rows: HitRow[]): SeqRange[] {
  const bySession = new Map<string, { sessionId: string; spans: [number, number][] }>();
  for (const r of rows) {
    entry(bySession, r.sessionId, () => ({
      sessionId: r.sessionId,
      spans: [] as [number, number][],
    })).spans.push([r.seq - CONTEXT_TURNS, r.seq + CONTEXT_TURNS]);
  }
  const out: SeqRange[] = [];
  for (const { sessionId, spans } of bySession.values()) {
    spans.sort((a, b) => a[0] - b[0]);
    let cur: [number, number] | null = null;
    for (const sp of spans) {
      if (cur !== null && sp[0] <= cur[1] + 1) cur[1] = Math.max(cur[1], sp[1]);
      else {
        if (cur !== null) out.push({ sessionId, from: cur[0], to: cur[1] });
        cur = [sp[0], sp[1]];
      }
    }
    if (cur !== null) out.push({ sessionId, from: cur[0], to: cur[1] });
  }
  return out;
}

/** Kinds of the rows of one memory's candidates' sessions, read around them (the read kept in `read`). */
async function kindsIn(
  reader: MemoryReader,
  rows: HitRow[],
  kinds: Map<string, RowKind>,
  read: ReadAround,
): Promise<void> {
  const spans = windows(rows);
  const context = rows.length === 0 ? [] : await reader.around(spans);
  const kept = entry(read, reader, () => ({
    windows: [] as SeqRange[],
    rows: [] as HitRow[],
    links: new Map<string, string[]>(),
  }));
  kept.windows.push(...spans);
  kept.rows.push(...context);
  const sessions = new Map<string, Map<string, HitRow>>();
  for (const r of [...context, ...rows]) {
    entry(sessions, sessionKey(r), () => new Map<string, HitRow>()).set(r.id, r);
  }
  for (const s of sessions.values()) {
    const all = [...s.values()];
    const k = sessionKinds(all);
    all.forEach((r, i) => {
      kinds.set(r.id, k.kinds[i] as RowKind);
      const links = k.links[i] ?? [];
      if (links.length > 0) kept.links.set(r.id, links);
    });
  }
}

/**
 * The kind of every candidate not yet in `kinds` (which it fills, so a deeper search classifies only what
 * is new). Rows that are funes's own by their own fields need no context. The turns read around
 * candidates are added to `read`.
 */
export async function classifyFound(
  found: FoundRow[],
  kinds: Map<string, RowKind>,
  read: ReadAround,
): Promise<void> {
  const byReader = new Map<MemoryReader, HitRow[]>();
  let echoes = 0;
  for (const { row, reader } of found) {
    if (kinds.has(row.id)) continue;
    if (echoOf(row) !== null) {
      kinds.set(row.id, "echo");
      echoes++;
      continue;
    }
    // A call that only its result can show to be funes's (a shell, an alias) asks for the turns around it.
    if (mayBeCall(row)) echoes++;
    entry(byReader, reader, () => [] as HitRow[]).push(row);
  }
  // A recall's exchange matches what it was about, so its call or output is among the candidates whenever
  // its question or restatement is: with no echo or call found, there is no exchange to read around (and a
  // memory that was never recalled from pays nothing).
  if (echoes === 0 && ![...kinds.values()].includes("echo")) {
    for (const rows of byReader.values()) for (const r of rows) kinds.set(r.id, "original");
    return;
  }
  await Promise.all([...byReader].map(([reader, rows]) => kindsIn(reader, rows, kinds, read)));
}

/** How many of the echoes name each turn (`session\0turn`), by a `→ get` line or their JSON ids. */
export function echoCounts(echoes: HitRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of echoes)
    for (const q of new Set(quotedTurns(e.text).map((t) => turnKey(t.sessionId, t.turnUuid))))
      counts.set(q, (counts.get(q) ?? 0) + 1);
  return counts;
}

/** What `followers` finds: which candidates follow which, and which revise nothing. */
export interface Following {
  /** Id → ids of pooled rows it must follow (for `rankAfterSources`). */
  after: Map<string, string[]>;
  /**
   * Candidates that are uses of memory, not new passages: questions, restatements, and rows quoting another
   * row (pooled, or funes's output read around the pool) whole or in large part.
   */
  derived: Set<string>;
}

/**
 * Which candidates of `pool` must follow which: a question or restatement follows every pooled passage of
 * the turns its recall returned (read from the transcript: `ReadOfMemory.links`), and a row that quotes
 * another whole or in large part follows it when it is the later (search/copies.ts). A row never has to
 * follow funes's own output (shown, with `echoes`, last); one that quotes an output (the passage it
 * returned, written to a notes file and read back) is derived all the same, its source pooled or not.
 */
export function followers(
  pool: HitRow[],
  kinds: Map<string, RowKind>,
  read: ReadAround,
  hidden: HitRow[] = [],
): Following {
  const isEcho = (r: HitRow) => kinds.get(r.id) === "echo";
  const shown = pool.filter((r) => !isEcho(r));
  const outputs = new Map<string, HitRow>();
  for (const r of [...hidden, ...[...read.values()].flatMap((m) => m.rows)])
    if (isEcho(r) && r.blockType !== "tool_use") outputs.set(r.id, r);
  const copies = copyLinks(shown, [...outputs.values()]);
  const derived = new Set(copies.keys());
  const after = new Map<string, string[]>();
  const pooled = new Set(shown.map((r) => r.id));
  for (const [id, from] of copies) {
    const inPool = from.filter((f) => pooled.has(f));
    if (inPool.length > 0) after.set(id, inPool);
  }
  const rowsOf = turnIndex(shown);
  for (const m of read.values())
    for (const [id, turns] of m.links) {
      const ids = turns.flatMap((t) => rowsOf(t).map((r) => r.id));
      if (ids.length > 0) after.set(id, [...new Set([...(after.get(id) ?? []), ...ids])]);
    }
  for (const r of shown) {
    const k = kinds.get(r.id);
    if (k === "question" || k === "restatement") derived.add(r.id);
  }
  return { after, derived };
}

/**
 * The timestamp recency reads for a candidate. Recency prefers the newer of near-equal passages because a
 * later one may revise the earlier; a use of memory (`Following.derived`: a question put to it, an agent's
 * restatement, a copy) revises nothing, so it counts as older than every passage: it neither rises by its
 * age nor marks an original down for being older than it.
 */
export function recencyTs(row: HitRow, following: Following): string {
  return following.derived.has(row.id) ? SUPERSEDES_NOTHING : row.ts;
}

/** A timestamp older than any transcript's (recency reads it as the oldest of all). */
const SUPERSEDES_NOTHING = "0001-01-01T00:00:00Z";
