/**
 * `funes recall` for people on a terminal (the agent format, byte for byte the reference's, is
 * `formatRecallAgent`): per hit one header line, the passage wrapped to the terminal, and the `funes get`
 * command that reads around it. The default view fits the screen (passages cut, neighbouring turns counted
 * on the get line); the full view (`--full`) shows passages whole and each neighbour on one line. Notes
 * are not part of it: they go to stderr.
 */
import { agentOfHarness } from "../agents/index.js";
import type { RecallHit, RecallResult } from "../commands/index.js";
import {
  clip,
  flattenSpaces,
  paint,
  readableTool,
  sessionLabels,
  type TerminalStyle,
  wrapText,
} from "./terminal-text.js";

/** Most lines of one passage in the compact view (also when the terminal's height is not known: 6). */
const COMPACT_MAX_LINES = 12;
const COMPACT_UNKNOWN_LINES = 6;

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
   * The whole view: every passage whole, with its neighbouring turns. Otherwise the compact view: each
   * passage cut to what lets every hit fit `rows`, neighbours counted on the `funes get` line.
   */
  full?: boolean;
  /** The terminal's height, when known. */
  rows?: number | null;
}

/**
 * Passage lines per hit in the compact view: all hits, each a header, its lines and a get line, fit. On a
 * terminal too short for one line each, none: the headers and get lines (which count what is left out).
 */
export function compactLines(hits: number, rows: number | null | undefined): number {
  if (rows === null || rows === undefined) return COMPACT_UNKNOWN_LINES;
  // One row is left for the shell's prompt; hits are separated by a blank line.
  const each = Math.floor((rows - 1 - (hits - 1)) / Math.max(1, hits)) - 2;
  return Math.min(COMPACT_MAX_LINES, Math.max(0, each));
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

function hitLines(h: RecallHit, n: number, label: string, o: RecallHumanOptions, lines: number): string[] {
  const p = paint(o.color);
  const score = `score ${h.score.toFixed(2)}`;
  const number = `${n}.`;
  const room = o.width - number.length - score.length - 4;
  const out = [`${p.bold(p.cyan(number))} ${header(h, label, Math.max(10, room))}  ${p.dim(score)}`];
  const passage = wrapText(readableTool(h.text, h.blockType), o.width);
  const memory = h.memory === "" || h.memory === o.defaultMemory ? "" : ` --memory ${h.memory}`;
  const get = `  → funes get ${h.sessionId} ${h.turnUuid}${memory}`;
  if (o.full === true) {
    out.push(...passage);
    for (const nb of h.neighbors)
      out.push(
        p.dim(
          clip(
            `  ~ ${nb.role} ${nb.blockType}: ${flattenSpaces(readableTool(nb.text, nb.blockType))}`,
            o.width,
          ),
        ),
      );
    out.push(p.yellow(get));
    return out;
  }
  out.push(...passage.slice(0, lines));
  const more = [
    passage.length > lines ? `+${passage.length - lines} line${passage.length - lines === 1 ? "" : "s"}` : "",
    h.neighbors.length > 0 ? `${h.neighbors.length} around it` : "",
  ].filter((x) => x !== "");
  // The get line stays whole (it is pasted); what was left out is said after it where the width allows.
  const note = more.length === 0 ? "" : `  (${more.join(", ")})`;
  const fits = Array.from(get).length + Array.from(note).length <= o.width;
  out.push(`${p.yellow(get)}${fits ? p.dim(note) : ""}`);
  return out;
}

/** The people's view of a recall; `no results` (with its newline) when nothing matched. */
export function formatRecallHuman(r: RecallResult, o: RecallHumanOptions): string {
  if (r.hits.length === 0) return "no results\n";
  const labels = sessionLabels(r.hits.map((h) => h.sessionId));
  const lines = compactLines(r.hits.length, o.rows);
  return r.hits
    .map((h, i) => `${hitLines(h, i + 1, labels.get(h.sessionId) ?? h.sessionId, o, lines).join("\n")}\n`)
    .join("\n");
}
