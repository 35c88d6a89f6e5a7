/**
 * Reading a transcript a turn at a time, in two passes over its lines: the first learns what only the whole
 * file says (its session id, its working folder, every tool call's name…) and keeps no text, the second
 * gives the turns, each complete. What an index run holds is then one turn, not one session; a parser
 * written as one pass gives both its whole-file read (`collectStream`) and its streamed one.
 */
import type { Session, SkipCounts, StreamedUnit, Turn, UnitRead, UnreadableRecord } from "./types.js";

/** What a pass learns from the whole file; `records` is the lines (records) it looked at. */
export interface PassFacts {
  records: number;
}

/**
 * One pass of a parser: its turns in file order, `sessionId` and `workdir` left to the caller, then the
 * facts. `known` is null in the first pass and the first pass's facts in the second, so a parser can
 * decide by what the whole file holds (Codex's prompts kept from events only when no message holds them).
 */
export type TurnPass<F extends PassFacts> = (
  skipped: SkipCounts,
  unreadable: UnreadableRecord[],
  known: F | null,
) => Generator<Turn, F>;

/** How a two-pass read makes its session. */
export interface TwoPassOptions<F extends PassFacts> {
  pass: TurnPass<F>;
  /** The session's facts from the first pass's. */
  session: (facts: F) => Omit<Session, "turns">;
  /**
   * Gives every nameless tool_result the name of the tool_use with its id anywhere in the session (later
   * calls win), as `backfillToolNames` does for a whole session.
   */
  backfillNames: boolean;
}

/** Reads a transcript in two passes (see the module's comment). */
export function streamTwoPass<F extends PassFacts>(o: TwoPassOptions<F>): StreamedUnit {
  const names = new Map<string, string>();
  const scan = o.pass({}, [], null);
  let first = scan.next();
  for (; first.done !== true; first = scan.next())
    if (o.backfillNames)
      for (const b of first.value.blocks)
        if (b.blockType === "tool_use" && b.toolUseId !== null && b.toolName !== null)
          names.set(b.toolUseId, b.toolName);
  const facts = first.value;
  const head = o.session(facts);
  const read: StreamedUnit["read"] = { skipped: {}, records: 0, unreadable: [] };
  function* turns(): Generator<Turn> {
    const reading = o.pass(read.skipped, read.unreadable ?? [], facts);
    let r = reading.next();
    for (; r.done !== true; r = reading.next()) {
      const t = r.value;
      t.sessionId = head.sessionId;
      t.workdir = head.workdir;
      if (o.backfillNames) backfill(t, names);
      yield t;
    }
    read.records = r.value.records;
  }
  return { sessions: [{ ...head, turns: turns() }], read };
}

/**
 * Names a turn's nameless tool results from `names` (the first pass's). A call the first pass did not see (a
 * live session the agent appended to between the passes) is learnt here, so the results after it are named
 * as a whole read of the longer file would name them.
 */
export function backfill(t: Turn, names: Map<string, string>): void {
  for (const b of t.blocks)
    if (b.blockType === "tool_use" && b.toolUseId !== null && b.toolName !== null && !names.has(b.toolUseId))
      names.set(b.toolUseId, b.toolName);
  for (const b of t.blocks)
    if (b.blockType === "tool_result" && b.toolName === null && b.toolUseId !== null)
      b.toolName = names.get(b.toolUseId) ?? null;
}

/** A streamed unit read whole (tests, and sources that do not index it): its turns in arrays. */
export function collectStream(s: StreamedUnit): UnitRead {
  const sessions = s.sessions.map((x) => ({ ...x, turns: [...x.turns] }));
  const { unreadable, ...rest } = s.read;
  return { sessions, ...rest, ...(unreadable !== undefined && unreadable.length > 0 ? { unreadable } : {}) };
}
