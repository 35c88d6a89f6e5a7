/**
 * `funes get <session> --from N --to M`: a stretch of a session's turns by position (seq, inclusive), so an
 * agent reads a run of history in one call rather than one per turn. A start alone reads 20 turns from it,
 * an end alone the 20 up to it, neither the session's first 20. What is shown stops once the turns' text
 * passes 40,000 characters (one turn is always shown, however long), and says where to read on.
 */
import type { FederatedMemory, ReadContext, ReadTarget } from "../memory/index.js";
import type { TurnView } from "./get.js";
import {
  checkBounds,
  readSession,
  type SessionTurns,
  settledMemories,
  type TurnBounds,
  turnsWithin,
} from "./session-turns.js";

/** Turns read when only one end (or neither) is given. */
export const RANGE_TURNS = 20;
/** Characters of turn text a read shows before it stops (at a turn's end; the first turn always shows). */
export const RANGE_MAX_CHARS = 40_000;

/** A stretch of one session. */
export interface RangeResult {
  /** The memory holding the session (its label). */
  memory: string;
  notes: string[];
  /** The session's full id. */
  sessionId: string;
  /** The positions asked for (null: not given). */
  from: number | null;
  to: number | null;
  /** The turns shown, in order. */
  turns: TurnView[];
  /** Turns the session holds in all. */
  sessionTurns: number;
  /** Turns of the asked range left out at the character bound. */
  unshown: number;
  /** That bound: characters of turn text a read shows at most ({@link RANGE_MAX_CHARS}). */
  maxChars: number;
  /** The position of the session's next turn after those shown (null: they reach its end). */
  next: number | null;
}

/** The stretch of an already read session the bounds name (pure, but for a bad bound's FunesError). */
export function rangeOf(s: SessionTurns, b: TurnBounds): RangeResult {
  checkBounds(b);
  let inside = turnsWithin(s, b);
  if (b.to === undefined) inside = inside.slice(0, RANGE_TURNS);
  else if (b.from === undefined) inside = inside.slice(-RANGE_TURNS);
  const shown: TurnView[] = [];
  let chars = 0;
  for (const t of inside) {
    const size = t.blocks.reduce((n, block) => n + block.text.length, 0);
    if (shown.length > 0 && chars + size > RANGE_MAX_CHARS) break;
    shown.push(t);
    chars += size;
  }
  const last = shown[shown.length - 1];
  const after = last === undefined ? -1 : s.turns.indexOf(last) + 1;
  return {
    memory: s.memory,
    notes: s.notes,
    sessionId: s.sessionId,
    from: b.from ?? null,
    to: b.to ?? null,
    turns: shown,
    sessionTurns: s.turns.length,
    unshown: inside.length - shown.length,
    maxChars: RANGE_MAX_CHARS,
    next: after > 0 && after < s.turns.length ? (s.turns[after] as TurnView).seq : null,
  };
}

/** A stretch of the session `sessionId` names in one memory or the first of several that holds it. */
export async function readTurnRange(
  target: ReadTarget | FederatedMemory,
  sessionId: string,
  bounds: TurnBounds,
): Promise<RangeResult> {
  checkBounds(bounds);
  return rangeOf(await readSession(target, sessionId), bounds);
}

/** {@link readTurnRange} over the memories `--memory` names (none: the local memory). */
export async function rangeOfMemories(
  specs: string[],
  sessionId: string,
  bounds: TurnBounds,
  ctx: ReadContext,
): Promise<RangeResult> {
  checkBounds(bounds);
  return readTurnRange(await settledMemories(specs, ctx), sessionId, bounds);
}
