/**
 * `funes recall` for people on a terminal (the agent format, byte for byte the reference's, is
 * `formatRecallAgent`): per hit one header line, the passage wrapped to the terminal at spaces, and the
 * `funes get` command that reads around it, with short ids `get` resolves. The default view fits the
 * screen, counting the rows wrapped lines take: the top hits with their text (passages cut, neighbouring
 * turns counted on the get line), then a line for the hits left out; the full view (`--full`) shows every
 * passage whole with full ids and each neighbour on one line. Notes are not part of it: they go to stderr.
 */
import { agentOfHarness } from "../agents/index.js";
import type { RecallHit, RecallResult } from "../commands/index.js";
import { sessionIdCore, shortTurnId } from "../commands/index.js";
import {
  clip,
  flattenSpaces,
  paint,
  readableTool,
  sessionLabels,
  type TerminalStyle,
  terminalRows,
  wrapText,
} from "./terminal-text.js";

/** Most lines of one passage in the compact view (also when the terminal's height is not known: 6). */
const COMPACT_MAX_LINES = 12;
const COMPACT_UNKNOWN_LINES = 6;

/**
 * Fewest passage lines per hit, (top hit, the others), tried in turn until the top hits fit with their
 * text: rich passages for a few hits before a line each for many.
 */
const PROFILES: readonly (readonly [number, number])[] = [
  [6, 3],
  [4, 2],
  [2, 1],
  [1, 1],
];

/** How many hits a view shows with text before it prefers fewer lines each. */
const WANTED_HITS = 3;

/** `2026-11-02T10:00:05.000Z` → `2026-11-02 10:00` (as stored: UTC). */
function when(ts: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(ts);
  return m === null ? ts : `${m[1]} ${m[2]}`;
}

/** Options of the people's view. */
export interface RecallHumanOptions extends TerminalStyle {
  /** The local memory's label: a hit from it needs no `--memory` in its `funes get` line. */
  defaultMemory: string;
  /**
   * The whole view: every passage whole, with its neighbouring turns. Otherwise the compact view: the hits
   * that fit `rows` with their text, neighbours counted on the `funes get` line.
   */
  full?: boolean;
  /** The terminal's height, when known. */
  rows?: number | null;
  /** Rows already used above the view on the same screen (notes on stderr). */
  taken?: number;
}

/**
 * The header's facts: when, agent, `workdir/session`, block type. When they do not fit, the workdir gives
 * way from its start (`…dev-funes/planted`): the session and the block type always show.
 */
function header(h: RecallHit, label: string, room: number): string {
  const head = `${when(h.ts)} · ${agentOfHarness(h.harness) ?? h.harness} · `;
  const tail = `/${label} · ${h.blockType}`;
  const full = `${head}${h.workdir}${tail}`;
  if (Array.from(full).length <= room) return full;
  const left = room - Array.from(head).length - Array.from(tail).length;
  if (left < 2) return clip(full, Math.max(10, room));
  const wd = Array.from(h.workdir);
  return `${head}…${wd.slice(wd.length - (left - 1)).join("")}${tail}`;
}

/** A word as a POSIX shell reads it back: bare when it is plain, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w.:@%+=,/-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/**
 * A passage as shown: a piece split from the middle of a block starts where its first word does (`…` in
 * front), not inside a word (`wnloads/win>`).
 */
export function passageText(h: Pick<RecallHit, "text" | "splitIdx">): string {
  if (h.splitIdx === 0) return h.text;
  const m = /^\S{1,40}?\s+/.exec(h.text);
  return m === null || m[0].length >= h.text.length ? h.text : `…${h.text.slice(m[0].length)}`;
}

/** One hit laid out: its header, its passage's wrapped lines, and the get command (with its rows). */
interface Laid {
  head: string;
  passage: string[];
  get: string;
  getRows: number;
  neighbors: number;
  hit: RecallHit;
}

function layHit(h: RecallHit, n: number, label: string, o: RecallHumanOptions): Laid {
  const p = paint(o.color);
  const score = `score ${h.score.toFixed(2)}`;
  const number = `${n}.`;
  const room = o.width - number.length - score.length - 4;
  const head = `${p.bold(p.cyan(number))} ${header(h, label, Math.max(10, room))}  ${p.dim(score)}`;
  const passage = wrapText(readableTool(passageText(h), h.blockType), o.width);
  const memory = h.memory === "" || h.memory === o.defaultMemory ? "" : ` --memory ${shellWord(h.memory)}`;
  // The short ids `get` resolves: the session's label (also in the header) and the turn's short form.
  const ids =
    o.full === true
      ? `${shellWord(h.sessionId)} ${shellWord(h.turnUuid)}`
      : `${shellWord(label)} ${shellWord(shortTurnId(h.sessionId, h.turnUuid))}`;
  const get = `  → funes get ${ids}${memory}`;
  return { head, passage, get, getRows: terminalRows(get, o.width), neighbors: h.neighbors.length, hit: h };
}

function fullLines(l: Laid, o: RecallHumanOptions): string[] {
  const p = paint(o.color);
  const out = [l.head, ...l.passage];
  for (const nb of l.hit.neighbors)
    out.push(
      p.dim(
        clip(
          `  ~ ${nb.role} ${nb.blockType}: ${flattenSpaces(readableTool(nb.text, nb.blockType))}`,
          o.width,
        ),
      ),
    );
  out.push(p.yellow(l.get));
  return out;
}

function compactLinesOf(l: Laid, lines: number, o: RecallHumanOptions): string[] {
  const p = paint(o.color);
  const shown = l.passage.slice(0, lines);
  const cut = l.passage.length - shown.length;
  // A passage cut short says so where it stops.
  const last = shown.length - 1;
  if (cut > 0 && last >= 0) shown[last] = clip(`${shown[last]} …`, o.width);
  const more = [
    cut > 0 ? `+${cut} line${cut === 1 ? "" : "s"}` : "",
    l.neighbors > 0 ? `${l.neighbors} around it` : "",
  ].filter((x) => x !== "");
  // The get line stays whole (it is pasted); what was left out is said after it where the width allows.
  const note = more.length === 0 ? "" : `  (${more.join(", ")})`;
  const fits = Array.from(l.get).length + Array.from(note).length <= o.width;
  return [l.head, ...shown, `${p.yellow(l.get)}${fits ? p.dim(note) : ""}`];
}

/**
 * The compact view's plan: how many hits show and how many passage lines each, so that everything, one
 * blank row between hits and a line for the hits left out, fits `budget` rows. Profiles of fewest lines
 * (PROFILES) are tried until the top hits fit with text; extra rows then go to the shown hits in turn.
 */
export function planCompact(
  hits: { lines: number; getRows: number }[],
  budget: number,
): { shown: number; lines: number[] } {
  const plan = (first: number, other: number) => {
    const lines: number[] = [];
    let used = 0;
    for (const [i, h] of hits.entries()) {
      const want = Math.min(h.lines, i === 0 ? first : other);
      const cost = (i > 0 ? 1 : 0) + 1 + want + h.getRows;
      const moreRow = i + 1 < hits.length ? 1 : 0;
      if (used + cost + moreRow > budget) break;
      used += cost;
      lines.push(want);
    }
    return { lines, used };
  };
  let best = plan(...(PROFILES[PROFILES.length - 1] as [number, number]));
  for (const [first, other] of PROFILES) {
    const p = plan(first, other);
    if (p.lines.length >= Math.min(hits.length, WANTED_HITS)) {
      best = p;
      break;
    }
  }
  const lines = best.lines;
  if (lines.length === 0) {
    // Not even one hit with a line: the first, with what room there is.
    const h = hits[0];
    if (h === undefined) return { shown: 0, lines: [] };
    const moreRow = hits.length > 1 ? 1 : 0;
    return { shown: 1, lines: [Math.max(0, Math.min(h.lines, budget - 1 - h.getRows - moreRow))] };
  }
  let spare = budget - best.used - (lines.length < hits.length ? 1 : 0);
  for (let grew = true; spare > 0 && grew; ) {
    grew = false;
    for (let i = 0; i < lines.length && spare > 0; i++) {
      const h = hits[i] as { lines: number };
      const cap = Math.min(h.lines, COMPACT_MAX_LINES);
      if ((lines[i] as number) < cap) {
        lines[i] = (lines[i] as number) + 1;
        spare--;
        grew = true;
      }
    }
  }
  return { shown: lines.length, lines };
}

/**
 * The people's view of a recall; `no results` (with its newline) when nothing matched. The compact view
 * fits `rows` (less `taken`, and one row for the shell's prompt) counting the rows wrapped lines take.
 */
export function formatRecallHuman(r: RecallResult, o: RecallHumanOptions): string {
  if (r.hits.length === 0) return "no results\n";
  const labels = sessionLabels(
    r.hits.map((h) => h.sessionId),
    sessionIdCore,
  );
  const laid = r.hits.map((h, i) => layHit(h, i + 1, labels.get(h.sessionId) ?? h.sessionId, o));
  if (o.full === true) return laid.map((l) => `${fullLines(l, o).join("\n")}\n`).join("\n");
  const rows = o.rows ?? null;
  const { shown, lines } =
    rows === null
      ? { shown: laid.length, lines: laid.map((l) => Math.min(l.passage.length, COMPACT_UNKNOWN_LINES)) }
      : planCompact(
          laid.map((l) => ({ lines: l.passage.length, getRows: l.getRows })),
          rows - 1 - (o.taken ?? 0),
        );
  const blocks = laid.slice(0, shown).map((l, i) => `${compactLinesOf(l, lines[i] ?? 0, o).join("\n")}\n`);
  const left = laid.length - shown;
  const more =
    left > 0
      ? `${paint(o.color).dim(clip(`+${left} more hit${left === 1 ? "" : "s"} — --full shows all ${laid.length} whole, -k sets how many`, o.width))}\n`
      : "";
  return blocks.join("\n") + more;
}
