/**
 * How `scan` reads for an agent (the MCP tool, `--format agent`): a first line that answers — how many
 * matches in how many of the turns read, or that the needle is not in any of them, with the positions
 * read — then each matching turn (its `get` header, a `→ get` line, one line per match with the text
 * around it) and the turns shown around it (a line per block), runs of adjacent turns ending with `---`,
 * and where to scan on when the listing stopped at its bound.
 */
import type { ScanResult, ScanTurn } from "../commands/index.js";
import { oneLine, shellId, shellMemory, unforgeable } from "./safe-text.js";

/** Code points of text shown either side of a match. */
export const EXCERPT_SIDE = 60;
/** Code points of a context turn's block shown. */
export const CONTEXT_CHARS = 160;

/** `seq a–b` (one position: `seq a`). */
function span(first: number, last: number): string {
  return first === last ? `seq ${first}` : `seq ${first}–${last}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Blanks (line breaks among them) folded to one space. */
const fold = (s: string) => s.replace(/\s+/g, " ");

/**
 * The text around one match, each side at most {@link EXCERPT_SIDE} code points with blanks folded, `…`
 * where the block goes on.
 */
export function matchExcerpt(
  text: string,
  m: { offset: number; length: number },
): { before: string; match: string; after: string } {
  // A window of code units wide enough for the code points kept; a surrogate cut at its edge falls outside.
  const head = Array.from(text.slice(Math.max(0, m.offset - EXCERPT_SIDE * 4), m.offset));
  const tail = Array.from(text.slice(m.offset + m.length, m.offset + m.length + EXCERPT_SIDE * 4));
  const before = head.slice(-EXCERPT_SIDE).join("");
  const after = tail.slice(0, EXCERPT_SIDE).join("");
  return {
    before: `${m.offset - before.length > 0 ? "…" : ""}${fold(before).trimStart()}`,
    match: fold(text.slice(m.offset, m.offset + m.length)),
    after: `${fold(after).trimEnd()}${m.offset + m.length + after.length < text.length ? "…" : ""}`,
  };
}

/** The first line: the answer, and what was read (`… not found in 412 turns of session <id> (seq 0–411)`). */
export function scanSummary(r: ScanResult): string {
  const needle = oneLine(JSON.stringify(r.needle));
  const where = `session ${shellId(r.sessionId)} (${span(r.first, r.last)})${r.ignoreCase ? ", ignoring case" : ""}`;
  if (r.matches === 0) return `${needle} not found in ${plural(r.scanned, "turn")} of ${where}`;
  return `${plural(r.matches, "match", "matches")} of ${needle} in ${r.matchedTurns} of ${plural(r.scanned, "turn")} of ${where}`;
}

/** The last line when the listing stopped at its bound (else ""): how many were listed, where to go on. */
export function scanTrailer(r: ScanResult, flag: (name: string) => string): string {
  const listed = r.turns.reduce((n, t) => n + t.matches.length, 0);
  if (listed === r.matches) return "";
  const shown = `listed ${listed} of ${r.matches} matches`;
  return r.next === null
    ? `${shown} — read the last listed turn with get for the rest`
    : `${shown}; ${flag("from")} ${r.next} continues`;
}

/** One turn of the agent format's listing. */
function turnLines(r: ScanResult, t: ScanTurn): string {
  const head = `[${oneLine(t.ts)}] ${oneLine(t.role)} seq${t.seq} turn=${shellId(t.turnUuid)}`;
  if (t.matches.length === 0 && t.unlisted === 0)
    return `${head}\n${t.blocks.map((b) => `${unforgeable(`  ${oneLine(b.blockType)}: ${oneLine(clipped(b.text))}`)}\n`).join("")}`;
  let out = `${head} matches=${t.matches.length + t.unlisted}\n`;
  out += `  → get ${shellId(r.sessionId)} ${shellId(t.turnUuid)} --memory ${shellMemory(r.memory)}\n`;
  for (const m of t.matches) {
    const block = t.blocks[m.block];
    if (block === undefined) continue;
    const e = matchExcerpt(block.text, m);
    out += `${unforgeable(`  ${oneLine(block.blockType)}: ${oneLine(`${e.before}${e.match}${e.after}`)}`)}\n`;
  }
  if (t.unlisted > 0) out += `  (+${plural(t.unlisted, "more match", "more matches")} in this turn)\n`;
  return out;
}

/** A context block on one line: its first {@link CONTEXT_CHARS} code points, blanks folded. */
function clipped(text: string): string {
  const cps = Array.from(fold(text).trim());
  return cps.length <= CONTEXT_CHARS ? cps.join("") : `${cps.slice(0, CONTEXT_CHARS - 1).join("")}…`;
}

/**
 * The agent format of a scan. Every field may be a stranger's (a Hub memory): ids are shell words, texts
 * one line each, and a line that would read as funes's own structure is escaped (safe-text.ts).
 */
export function formatScanAgent(r: ScanResult): string {
  let out = `${r.notes.map((n) => `${oneLine(n)}\n`).join("")}${scanSummary(r)}\n`;
  r.turns.forEach((t, i) => {
    out += turnLines(r, t);
    const next = r.turns[i + 1];
    if (next === undefined || next.seq !== t.seq + 1) out += "---\n";
  });
  const trailer = scanTrailer(r, (n) => n);
  return trailer === "" ? out : `${out}${trailer}\n`;
}
