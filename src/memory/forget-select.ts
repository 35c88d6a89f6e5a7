/**
 * Which rows `funes forget` takes: selectors of different kinds combine (a row must satisfy each kind
 * given), values of one kind add up (any session named, any text matched). And the preview shown before
 * anything is forgotten: sessions, chunk counts and a few lines of each, with matched text masked so a
 * preview never prints the secret being taken back.
 */
import type { ForgetCandidate } from "../local/index.js";
import { parseTimeBound, withinTime } from "../search/index.js";
import { FunesError } from "./errors.js";

/** What to forget, as given on the command line. */
export interface ForgetSelectors {
  sessions: string[];
  turns: { session: string; turn: string }[];
  /** Texts a chunk contains (or regular expressions, with `regex`). */
  match: string[];
  regex: boolean;
  since?: string | undefined;
  until?: string | undefined;
}

/** One session in a preview. */
export interface PreviewSession {
  sessionId: string;
  chunks: number;
  turns: number;
  first: string;
  last: string;
  /** A few chunk lines, one line each, matches masked. */
  samples: string[];
}

/** What a forget would take. */
export interface ForgetPreview {
  chunks: number;
  /** Of `chunks`, how many are copies of the rest: recalls that quoted them, read back (forget-copies.ts). */
  copies: number;
  sessions: PreviewSession[];
  /**
   * Other rows that carry what is forgotten (its rare words, numbers and names) without a recall tying
   * them to it (forget-copies.ts): taken (and counted in `chunks` and `sessions`) only with `taken`.
   */
  mentions: { chunks: number; taken: boolean; sessions: PreviewSession[] };
}

/** What a preview says beside the rows: how many are copies, and the mentions found. */
export interface PreviewExtras {
  copies?: number;
  mentions?: ForgetCandidate[];
  /** Whether the mentions are among the rows (`--with-mentions`). */
  mentionsTaken?: boolean;
}

const SAMPLES = 3;
const SAMPLE_CHARS = 110;
const MASK = "[…]";

/** A row test for the selectors; throws FunesError on none given or on a bad value. */
export function compileSelectors(s: ForgetSelectors, now: number): (r: ForgetCandidate) => boolean {
  if (
    s.sessions.length === 0 &&
    s.turns.length === 0 &&
    s.match.length === 0 &&
    s.since === undefined &&
    s.until === undefined
  )
    throw new FunesError(
      "bad_input",
      "say what to forget: --session <id>, --turn <session> <turn>, --match <text> (--regex), --since/--until",
    );
  if (s.regex && s.match.length === 0)
    throw new FunesError("bad_input", "--regex applies to --match — add --match <pattern>");
  const bound = (v: string | undefined, flag: string): number | null => {
    if (v === undefined) return null;
    const t = parseTimeBound(v, now);
    if (t === null)
      throw new FunesError(
        "bad_input",
        `${flag} "${v}" is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)`,
      );
    return t;
  };
  const since = bound(s.since, "--since");
  const until = bound(s.until, "--until");
  if (since !== null && until !== null && since > until)
    throw new FunesError(
      "bad_input",
      `--since "${s.since}" is later than --until "${s.until}", so nothing can match — swap the two`,
    );
  const matchers = s.match.map((m) => matcher(m, s.regex));
  const sessions = new Set(s.sessions);
  const turns = new Set(s.turns.map((t) => `${t.session}\u0000${t.turn}`));
  return (r) =>
    (sessions.size === 0 || sessions.has(r.sessionId)) &&
    (turns.size === 0 || turns.has(`${r.sessionId}\u0000${r.turnUuid}`)) &&
    (matchers.length === 0 || matchers.some((m) => m.test(r.text))) &&
    (since === null && until === null ? true : withinTime(r.ts, since, until));
}

/** A global matcher for one --match value. */
function matcher(m: string, regex: boolean): RegExp {
  if (m === "") throw new FunesError("bad_input", "--match needs a non-empty text");
  if (!regex) return new RegExp(m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  try {
    return new RegExp(m, "u");
  } catch (err) {
    throw new FunesError(
      "bad_input",
      `--regex "${m}" is not a valid regular expression (${err instanceof Error ? err.message : String(err)}) — fix the pattern, or drop --regex to match it as plain text`,
    );
  }
}

/** The preview of `rows` (the selected ones, with their copies and any mentions taken), sessions by newest activity first. */
export function previewOf(
  rows: ForgetCandidate[],
  s: ForgetSelectors,
  extras: PreviewExtras = {},
): ForgetPreview {
  const masks = s.match.map((m) => new RegExp(matcher(m, s.regex).source, s.regex ? "gu" : "g"));
  const mentions = extras.mentions ?? [];
  return {
    chunks: rows.length,
    copies: extras.copies ?? 0,
    sessions: sessionsOf(rows, masks),
    mentions: {
      chunks: mentions.length,
      taken: extras.mentionsTaken === true && mentions.length > 0,
      sessions: sessionsOf(mentions, masks),
    },
  };
}

/** `rows` by session, newest activity first, with a few masked lines of each. */
function sessionsOf(rows: ForgetCandidate[], masks: RegExp[]): PreviewSession[] {
  const by = new Map<string, ForgetCandidate[]>();
  for (const r of rows) {
    const list = by.get(r.sessionId) ?? [];
    list.push(r);
    by.set(r.sessionId, list);
  }
  const sessions = [...by.entries()].map(([sessionId, list]) => {
    const sorted = [...list].sort((a, b) => a.seq - b.seq);
    const ts = sorted
      .map((r) => r.ts)
      .filter((t) => t !== "")
      .sort();
    return {
      sessionId,
      chunks: list.length,
      turns: new Set(list.map((r) => r.turnUuid)).size,
      first: ts[0] ?? "",
      last: ts[ts.length - 1] ?? "",
      samples: sorted.slice(0, SAMPLES).map((r) => sampleLine(r, masks)),
    };
  });
  sessions.sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0));
  return sessions;
}

/** `role: text` on one line, around the first match when there is one, matches masked. */
function sampleLine(r: ForgetCandidate, masks: RegExp[]): string {
  let text = r.text.replace(/\s+/g, " ").trim();
  let at = -1;
  for (const m of masks) {
    m.lastIndex = 0;
    const hit = m.exec(text);
    if (hit !== null && (at < 0 || hit.index < at)) at = hit.index;
  }
  for (const m of masks) text = text.replace(m, MASK);
  const start = at > SAMPLE_CHARS / 2 ? at - Math.floor(SAMPLE_CHARS / 3) : 0;
  let line = text.slice(start, start + SAMPLE_CHARS);
  if (start > 0) line = `…${line}`;
  if (start + SAMPLE_CHARS < text.length) line = `${line}…`;
  return `${r.role || r.blockType}: ${line}`;
}
