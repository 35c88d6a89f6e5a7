/**
 * One session read by position, what `get --from/--to` and `scan` share: the memories named opened (several:
 * the first, in the order given, that holds the session answers), the session a short id names resolved as
 * `get` resolves it, and its turns in order, each block's pieces rejoined. A turn's position is its `seq`,
 * the session's own count of its turns from 0.
 */
import {
  type FederatedMemory,
  type MemoryReader,
  openFederated,
  openReadTarget,
  type ReadContext,
  type ReadTarget,
  type SingleMemory,
  settledTarget,
} from "../memory/index.js";
import { BadArgumentError, FunesError } from "./errors.js";
import { ambiguousSession, pastedId, sessionsNamed, type TurnView, turnsOf } from "./get.js";
import { openEach } from "./sessions.js";

/** Turn positions (seq, inclusive); either end may be open. */
export interface TurnBounds {
  from?: number | undefined;
  to?: number | undefined;
}

/** A session's turns as the memory holding it keeps them. */
export interface SessionTurns {
  /** The memory holding it (its label). */
  memory: string;
  /** Notes and warnings to show first (a member that could not be read, a cached copy read offline). */
  notes: string[];
  /** The session's full id (a short one resolved). */
  sessionId: string;
  /** Every turn, in order. */
  turns: TurnView[];
}

/** A position as an argument: a whole number from 0. */
function checkPosition(value: number | undefined, arg: "from" | "to"): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 0)) return;
  throw new BadArgumentError({
    arg,
    flag: `--${arg}`,
    value: String(value),
    problem: "is not a turn position (a whole number from 0, a turn's seq) — give e.g. 0, or leave it out",
  });
}

/** Refuses positions that are not whole numbers from 0, and a start past its end. */
export function checkBounds(b: TurnBounds): void {
  checkPosition(b.from, "from");
  checkPosition(b.to, "to");
  if (b.from !== undefined && b.to !== undefined && b.from > b.to)
    throw new BadArgumentError({
      arg: "from",
      flag: "--from",
      value: String(b.from),
      problem: `is past to (${b.to}) — give a start at or before the end, e.g. from ${b.to} and to ${b.from}`,
      message: `--from ${b.from} is past --to ${b.to} — give a start at or before the end, e.g. --from ${b.to} --to ${b.from}`,
    });
}

/** `seq a–b` (one position: `seq a`). */
export function seqSpan(first: number, last: number): string {
  return first === last ? `seq ${first}` : `seq ${first}–${last}`;
}

/** The session's turns within the bounds; none there is a FunesError naming the session's own span. */
export function turnsWithin(s: SessionTurns, b: TurnBounds): TurnView[] {
  const inside = s.turns.filter(
    (t) => (b.from === undefined || t.seq >= b.from) && (b.to === undefined || t.seq <= b.to),
  );
  if (inside.length > 0 || s.turns.length === 0) return inside;
  const asked =
    b.to === undefined
      ? `seq ${b.from} or after`
      : b.from === undefined
        ? `seq ${b.to} or before`
        : seqSpan(b.from, b.to);
  const first = s.turns[0] as TurnView;
  const last = s.turns[s.turns.length - 1] as TurnView;
  throw new FunesError(
    "bad_input",
    `session "${s.sessionId}" has no turns at ${asked} (its turns are ${seqSpan(first.seq, last.seq)}) — give positions within it`,
  );
}

/**
 * The full ids `sessionId` names in one open memory (sessionsNamed): as given, else as pasted (quotes, a
 * `→ get` taken off). None, one, or several for an ambiguous start.
 */
async function resolvedIn(reader: MemoryReader, sessionId: string): Promise<string[]> {
  const ids = await reader.sessionIds();
  const named = sessionsNamed(ids, sessionId);
  const pasted = pastedId(sessionId);
  return named.length > 0 || pasted === sessionId || pasted === "" ? named : sessionsNamed(ids, pasted);
}

/**
 * The session `sessionId` names (its full id or an unambiguous start) in the one memory given or the first of
 * several that holds it, and the reader holding it (`run` reads it; every reader is closed after). Several
 * memories whose sessions begin with a short id differently make it ambiguous; none holding it is a
 * FunesError that says how to find the id.
 */
async function withSession<T>(
  target: ReadTarget | FederatedMemory,
  sessionId: string,
  run: (found: { reader: MemoryReader; sessionId: string; notes: string[] }) => Promise<T>,
): Promise<T> {
  if (sessionId.trim() === "")
    throw new FunesError(
      "bad_input",
      "the session id is empty — give one from funes sessions (or a recall hit's → get line)",
    );
  const targets = "kind" in target && target.kind === "federated" ? target.members : [target as ReadTarget];
  const { open, warnings } = await openEach(targets, {
    others: "reading the others",
    each: "read them one at a time",
  });
  try {
    const found: { reader: MemoryReader; ids: string[] }[] = [];
    for (const reader of open) found.push({ reader, ids: await resolvedIn(reader, sessionId) });
    const distinct = [...new Set(found.flatMap((f) => f.ids))].sort();
    if (distinct.length > 1) throw ambiguousSession(sessionId, distinct);
    const sid = distinct[0];
    const holder = found.find((f) => f.ids.length > 0)?.reader;
    if (sid === undefined || holder === undefined)
      throw new FunesError(
        "no_memory",
        `session "${sessionId}" is not in ${open.map((r) => r.memory.label).join(", ")} — find its id with funes sessions, and give the memory it lists`,
      );
    return await run({
      reader: holder,
      sessionId: sid,
      notes: [...targets.flatMap((t) => t.notes), ...warnings],
    });
  } finally {
    for (const r of open) r.close();
  }
}

/** The session `sessionId` names, read whole from the memory holding it (see withSession). */
export function readSession(target: ReadTarget | FederatedMemory, sessionId: string): Promise<SessionTurns> {
  return withSession(target, sessionId, async ({ reader, sessionId: sid, notes }) => ({
    memory: reader.memory.label,
    notes,
    sessionId: sid,
    turns: turnsOf(await reader.session(sid)),
  }));
}

/** The memory holding the session `sessionId` names, and its full id (see withSession). */
export function sessionHolder(
  target: ReadTarget | FederatedMemory,
  sessionId: string,
): Promise<{ memory: SingleMemory; sessionId: string; notes: string[] }> {
  return withSession(target, sessionId, async ({ reader, sessionId: sid, notes }) => ({
    memory: reader.memory,
    sessionId: sid,
    notes,
  }));
}

/**
 * The memories `--memory` names (none: the local memory), each settled: a Hub memory's head is checked
 * before it is read, since a session pushed since the cached copy would otherwise read as not there. With
 * several, one that cannot be read is a warning.
 */
export async function settledMemories(
  specs: string[],
  ctx: ReadContext,
): Promise<ReadTarget | FederatedMemory> {
  if (specs.length <= 1) return settledTarget(await openReadTarget(specs[0], ctx));
  const federated = await openFederated(specs, ctx);
  const warnings = [...federated.warnings];
  const members: ReadTarget[] = [];
  for (const m of federated.members) {
    try {
      members.push(await settledTarget(m));
    } catch (err) {
      warnings.push(
        `warning: ${m.memory.label} could not be read (${err instanceof Error ? err.message : String(err)}) — reading the others`,
      );
    }
  }
  if (members.length === 0)
    throw new FunesError(
      "unreachable",
      `none of ${specs.join(", ")} could be read right now — try again once they are reachable`,
    );
  // The warnings ride on the first member's notes, which every read shows first.
  const [first, ...rest] = members as [ReadTarget, ...ReadTarget[]];
  return {
    kind: "federated",
    members: [{ ...first, notes: [...warnings, ...first.notes] }, ...rest],
    warnings: [],
  };
}
