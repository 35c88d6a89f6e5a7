/**
 * What each recall candidate is (search/echoes.ts): funes's own output read back (an echo), a question put
 * to memory, the agent's restatement of what it recalled, or an original passage. A row's own fields say
 * most of it; the rest (a piece from the middle of a long output, a prompt that led to a recall, prose after
 * one) is read from the turns around it, fetched once per memory for the whole pool.
 */
import type { HitRow } from "../local/index.js";
import type { MemoryReader } from "../memory/index.js";
import { echoOf, quotedTurns, type RowKind, sessionKinds } from "../search/index.js";

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

/**
 * The turns a recall has read around its candidates, per memory: the windows and their rows. The neighbour
 * read of the hits reuses them where they cover it (same reader, same table version: the same rows).
 */
export type ReadAround = Map<MemoryReader, { windows: SeqRange[]; rows: HitRow[] }>;

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
  const kept = entry(read, reader, () => ({ windows: [] as SeqRange[], rows: [] as HitRow[] }));
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
      kinds.set(r.id, k[i] as RowKind);
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
    entry(byReader, reader, () => [] as HitRow[]).push(row);
  }
  // A recall's exchange matches what it was about, so its call or output is among the candidates whenever
  // its question or restatement is: with no echo found, there is no exchange to read around (and a memory
  // that was never recalled from pays nothing).
  if (echoes === 0 && ![...kinds.values()].includes("echo")) {
    for (const rows of byReader.values()) for (const r of rows) kinds.set(r.id, "original");
    return;
  }
  await Promise.all([...byReader].map(([reader, rows]) => kindsIn(reader, rows, kinds, read)));
}

/** How many of the echoes quote each turn (`session\0turn`) by a `→ get` line. */
export function echoCounts(echoes: HitRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of echoes)
    for (const q of new Set(quotedTurns(e.text).map((t) => `${t.sessionId}\u0000${t.turnUuid}`)))
      counts.set(q, (counts.get(q) ?? 0) + 1);
  return counts;
}
