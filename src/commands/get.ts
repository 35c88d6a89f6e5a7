/**
 * `funes get`: a turn and the turns around it (seq ± window), each block's pieces rejoined with their
 * overlap removed, in the reference's agent format or a compact human view.
 */
import { stitch } from "../chunk/index.js";
import type { HitRow } from "../local/index.js";
import { noIndexMessage, openReader, type SingleMemory } from "../memory/index.js";
import { FunesError } from "./errors.js";

/** One reassembled turn. */
export interface TurnView {
  seq: number;
  turnUuid: string;
  ts: string;
  role: string;
  /** Rendered blocks in order (tool blocks keep their `[tool_use Name]` label). */
  blocks: { blockType: string; text: string }[];
  /** True for the turn asked for. */
  center: boolean;
}

/**
 * An id as pasted: blanks around it, a leading `→ get`, and one pair of quotes the shell did not remove
 * (`'abc'`, `"abc"`) taken off.
 */
export function pastedId(id: string): string {
  // An agent may pass the hit's whole `→ get <session>` words as the session id.
  const t = id.trim().replace(/^(→\s*)?(get\s+)?/, "");
  const m = /^(["'`“‘])(.*)(["'`”’])$/s.exec(t);
  return m === null ? t : (m[2] ?? "").trim();
}

/**
 * The turn and its window, or null when the turn is not in the memory. The ids are looked up as given
 * first (a stranger's id may hold spaces or quotes); only when that finds nothing are they looked up again
 * as pasted ids (pastedId).
 */
export async function getTurn(
  memory: SingleMemory,
  sessionId: string,
  turnUuid: string,
  window: number,
): Promise<TurnView[] | null> {
  const reader = await openReader(memory);
  if (reader === null) throw new FunesError("no_memory", noIndexMessage(memory));
  try {
    const exact = assembleTurns(await reader.session(sessionId), turnUuid, window);
    const [sid, tid] = [pastedId(sessionId), pastedId(turnUuid)];
    if (exact !== null || (sid === sessionId && tid === turnUuid)) return exact;
    return assembleTurns(await reader.session(sid), tid, window);
  } finally {
    reader.close();
  }
}

/** A timestamped session id (pi's `2026-01-05T10-20-30-123Z_<uuid>`): the part that differs follows `_`. */
const TIMESTAMP_PREFIX = /^\d{4}-\d{2}-\d{2}T[\d:.-]+Z?_(.+)$/;

/** The part of a session id that tells sessions apart: the id, or what follows a timestamp prefix. */
export function sessionIdCore(id: string): string {
  return TIMESTAMP_PREFIX.exec(id)?.[1] ?? id;
}

/** Shortest short id `get` resolves by prefix (as git asks for four hex digits of a commit). */
const MIN_SHORT = 4;

/**
 * The short form of a turn id that `get` resolves (resolveTurnIds): what follows `<session>-` for an id
 * made from the session and a number (`<session>-12` is `12`), the first 8 code points of a longer id,
 * else the id.
 */
export function shortTurnId(sessionId: string, turnUuid: string): string {
  if (turnUuid.startsWith(`${sessionId}-`) && turnUuid.length > sessionId.length + 1)
    return turnUuid.slice(sessionId.length + 1);
  const cps = Array.from(turnUuid);
  return cps.length > 12 ? cps.slice(0, 8).join("") : turnUuid;
}

/** A few candidates for an ambiguity message: `a, b, c and 4 more`. */
function candidates(ids: string[]): string {
  const shown = ids.slice(0, 4).map((id) => `"${id}"`);
  return ids.length > 4 ? `${shown.join(", ")} and ${ids.length - 4} more` : shown.join(", ");
}

/**
 * The sessions among `ids` that a (short) session id names: the id itself when the memory holds it; else
 * every session whose id (or the part after its timestamp prefix) begins with it, when it is at least 4 code
 * points long; sorted. None, one, or (an ambiguous start) several.
 */
export function sessionsNamed(ids: ReadonlySet<string>, sessionId: string): string[] {
  if (ids.has(sessionId)) return [sessionId];
  if (Array.from(sessionId).length < MIN_SHORT) return [];
  return [...ids].filter((id) => id.startsWith(sessionId) || sessionIdCore(id).startsWith(sessionId)).sort();
}

/** The error for a session id that names several sessions (`found`), listing a few. */
export function ambiguousSession(sessionId: string, found: string[]): FunesError {
  return new FunesError(
    "bad_input",
    `session "${sessionId}" is ambiguous: ${found.length} sessions begin with it (${candidates(found)}) — give more of its id`,
  );
}

/**
 * The full session and turn ids a short form names, as git resolves an abbreviated commit: the ids as
 * given when the memory holds that session; else the one session whose id (or the part after its
 * timestamp prefix) begins with `sessionId` (at least 4 code points), and in it the one turn whose id is
 * `turnUuid`, `<session>-<turnUuid>`, or begins with `turnUuid`. A prefix that names several is a
 * FunesError listing them; one that names none returns the ids as given (the caller says not found).
 */
export async function resolveTurnIds(
  memory: SingleMemory,
  sessionId: string,
  turnUuid: string,
): Promise<{ sessionId: string; turnUuid: string }> {
  const asGiven = { sessionId, turnUuid };
  const reader = await openReader(memory);
  if (reader === null) return asGiven;
  try {
    const ids = await reader.sessionIds();
    if (ids.has(sessionId) && (await reader.session(sessionId)).some((r) => r.turnUuid === turnUuid))
      return asGiven;
    const named = sessionsNamed(ids, sessionId);
    if (named.length === 0) return asGiven;
    if (named.length > 1) throw ambiguousSession(sessionId, named);
    const sid = named[0] as string;
    const turns = [...new Set((await reader.session(sid)).map((r) => r.turnUuid))].sort();
    const exact = turns.filter((t) => t === turnUuid || t === `${sid}-${turnUuid}`);
    const prefixed = turns.filter((t) => t.startsWith(turnUuid));
    const found = exact.length > 0 ? exact : prefixed;
    if (found.length === 1) return { sessionId: sid, turnUuid: found[0] as string };
    if (found.length > 1 && turnUuid !== "")
      throw new FunesError(
        "bad_input",
        `turn "${turnUuid}" is ambiguous: ${found.length} turns of session "${sid}" begin with it (${candidates(found)}) — give more of its id`,
      );
    return { sessionId: sid, turnUuid };
  } finally {
    reader.close();
  }
}

/** Whether the memory holds a session of exactly this id (a `get` that found no turn says which part missed). */
export async function holdsSession(memory: SingleMemory, sessionId: string): Promise<boolean> {
  const reader = await openReader(memory);
  if (reader === null) return false;
  try {
    return (await reader.sessionIds()).has(sessionId);
  } finally {
    reader.close();
  }
}

/** Groups a session's rows into turns around the one named (pure). */
export function assembleTurns(rows: HitRow[], turnUuid: string, window: number): TurnView[] | null {
  const center = rows.find((r) => r.turnUuid === turnUuid);
  if (center === undefined) return null;
  // Sessions are keyed by agent and id: another agent's session with the same id is not this one.
  const near = rows.filter((r) => r.harness === center.harness && Math.abs(r.seq - center.seq) <= window);
  return turnsOf(near, turnUuid);
}

/**
 * Rows grouped into turns in session order (seq, then turn id), each block's pieces rejoined with their
 * overlap removed; the turn `center` names (if any) is marked (pure).
 */
export function turnsOf(rows: HitRow[], center?: string): TurnView[] {
  const groups = new Map<string, HitRow[]>();
  for (const r of rows) {
    const key = `${r.seq}\u0000${r.turnUuid}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [r]);
    else g.push(r);
  }
  const turns = [...groups.values()].map((g) => {
    g.sort((a, b) => a.blockIdx - b.blockIdx || a.splitIdx - b.splitIdx);
    const blocks: { blockType: string; text: string }[] = [];
    let i = 0;
    while (i < g.length) {
      const first = g[i] as HitRow;
      const pieces: string[] = [];
      while (i < g.length && (g[i] as HitRow).blockIdx === first.blockIdx)
        pieces.push((g[i++] as HitRow).text);
      blocks.push({ blockType: first.blockType, text: stitch(pieces) });
    }
    const head = g[0] as HitRow;
    return {
      seq: head.seq,
      turnUuid: head.turnUuid,
      ts: head.ts,
      role: head.role,
      blocks,
      center: head.turnUuid === center,
    };
  });
  return turns.sort(
    (a, b) => a.seq - b.seq || (a.turnUuid < b.turnUuid ? -1 : a.turnUuid > b.turnUuid ? 1 : 0),
  );
}
