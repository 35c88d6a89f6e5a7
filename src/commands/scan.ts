/**
 * `funes scan <needle> <session>`: an exact text looked for in every block of one session's turns, in
 * order — a literal, never ranked, never split into words, never a pattern — so that a scan that finds
 * nothing proves absence: it says how many turns it read. Each block is matched as `get` shows it (its
 * pieces rejoined), so a needle across a split boundary is found; one across two blocks is not.
 */
import type { FederatedMemory, ReadContext, ReadTarget } from "../memory/index.js";
import { BadArgumentError } from "./errors.js";
import type { TurnView } from "./get.js";
import {
  checkBounds,
  readSession,
  type SessionTurns,
  settledMemories,
  turnsWithin,
} from "./session-turns.js";

/** Turns of context either side of a match, at most. */
export const MAX_SCAN_CONTEXT = 50;
/** Matches listed, at most (counting goes on to the end; the listing says where to read on). */
export const MAX_SCAN_MATCHES = 200;

/** What to look for, where. */
export interface ScanOptions {
  /** The exact text (not empty). */
  needle: string;
  /** A session id, or an unambiguous start of one. */
  sessionId: string;
  /** Match any case (Unicode simple case folding). */
  ignoreCase: boolean;
  /** Turns shown before and after each matching turn (0 to {@link MAX_SCAN_CONTEXT}). */
  context: number;
  /** Positions (seq, inclusive) to scan; absent: from the session's start / to its end. */
  from?: number | undefined;
  to?: number | undefined;
}

/** One occurrence: which block of its turn, and where in that block's text (UTF-16 code units). */
export interface ScanMatch {
  block: number;
  offset: number;
  length: number;
}

/** A listed turn: one that matches (`center`, with its matches) or one shown around a match. */
export interface ScanTurn extends TurnView {
  matches: ScanMatch[];
  /** Matches of this turn past the listing's bound (read the turn with `get` for them). */
  unlisted: number;
}

/** What a scan found. */
export interface ScanResult {
  /** The memory holding the session (its label). */
  memory: string;
  notes: string[];
  sessionId: string;
  needle: string;
  ignoreCase: boolean;
  context: number;
  /** The positions asked for (null: not given). */
  from: number | null;
  to: number | null;
  /** Turns read, and the positions of the first and last of them. */
  scanned: number;
  first: number;
  last: number;
  /** Turns the session holds in all. */
  sessionTurns: number;
  /** Occurrences in all, and the turns holding them. */
  matches: number;
  matchedTurns: number;
  /** The listing, in order: matching turns and the turns around them. */
  turns: ScanTurn[];
  /** Where to scan on when the listing stopped at its bound (a position), else null. */
  next: number | null;
}

/** A regular expression's special characters, escaped so the needle is only ever itself. */
const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Every occurrence of `needle` in `text`, left to right, none overlapping (pure). Case-blind matching
 * uses Unicode simple case folding, so a match may differ from the needle in length (offsets and lengths
 * are the text's own).
 */
export function findAll(
  text: string,
  needle: string,
  ignoreCase: boolean,
): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  if (needle === "") return out;
  if (!ignoreCase) {
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length))
      out.push({ offset: i, length: needle.length });
    return out;
  }
  for (const m of text.matchAll(new RegExp(escapeLiteral(needle), "giu")))
    out.push({ offset: m.index, length: m[0].length });
  return out;
}

/** Refuses an empty needle and a context outside 0–50, naming the argument. */
function checkScan(o: ScanOptions): void {
  if (o.needle === "")
    throw new BadArgumentError({
      arg: "needle",
      flag: "needle",
      value: "",
      problem: "is empty — give the exact text to look for",
      message: 'the needle is empty — give the exact text to look for, e.g. funes scan "ENOSPC" <session>',
    });
  if (!Number.isSafeInteger(o.context) || o.context < 0 || o.context > MAX_SCAN_CONTEXT)
    throw new BadArgumentError({
      arg: "context",
      flag: "--context",
      value: String(o.context),
      problem: `is not a number of turns to show around each match (a whole number from 0 to ${MAX_SCAN_CONTEXT}) — give e.g. 2, or leave it out`,
    });
  checkBounds(o);
}

/** The scan of an already read session (pure, but for a bad argument's FunesError). */
export function scanTurns(s: SessionTurns, o: ScanOptions): ScanResult {
  checkScan(o);
  const turns = turnsWithin(s, o);
  const found = turns.map((t) =>
    t.blocks.flatMap((b, block) => findAll(b.text, o.needle, o.ignoreCase).map((m) => ({ block, ...m }))),
  );
  const listed = new Map<number, ScanMatch[]>();
  let budget = MAX_SCAN_MATCHES;
  let next: number | null = null;
  found.forEach((matches, i) => {
    if (matches.length === 0 || next !== null) return;
    if (budget === 0) {
      next = (turns[i] as TurnView).seq;
      return;
    }
    listed.set(i, matches.slice(0, budget));
    budget -= Math.min(budget, matches.length);
  });
  // The listed matches' turns and their context, each once, in order.
  const shown = new Set<number>();
  for (const i of listed.keys())
    for (let j = Math.max(0, i - o.context); j <= Math.min(turns.length - 1, i + o.context); j++)
      shown.add(j);
  const matchedTurns = found.filter((m) => m.length > 0).length;
  return {
    memory: s.memory,
    notes: s.notes,
    sessionId: s.sessionId,
    needle: o.needle,
    ignoreCase: o.ignoreCase,
    context: o.context,
    from: o.from ?? null,
    to: o.to ?? null,
    scanned: turns.length,
    first: turns[0]?.seq ?? 0,
    last: turns[turns.length - 1]?.seq ?? 0,
    sessionTurns: s.turns.length,
    matches: found.reduce((n, m) => n + m.length, 0),
    matchedTurns,
    turns: [...shown]
      .sort((a, b) => a - b)
      .map((i) => {
        const matches = listed.get(i) ?? [];
        const all = (found[i] ?? []).length;
        return {
          ...(turns[i] as TurnView),
          center: matches.length > 0,
          matches,
          unlisted: all - matches.length,
        };
      }),
    next,
  };
}

/** Scans the session `o.sessionId` names in one memory or the first of several that holds it. */
export async function scanSession(target: ReadTarget | FederatedMemory, o: ScanOptions): Promise<ScanResult> {
  checkScan(o);
  return scanTurns(await readSession(target, o.sessionId), o);
}

/** {@link scanSession} over the memories `--memory` names (none: the local memory). */
export async function scanOfMemories(specs: string[], o: ScanOptions, ctx: ReadContext): Promise<ScanResult> {
  checkScan(o);
  return scanSession(await settledMemories(specs, ctx), o);
}
