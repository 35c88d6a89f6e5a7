/**
 * Rendering and splitting (shared/spec/core.md §2). All lengths are code points (Rust chars), never
 * UTF-16 units: a chunk of emoji or CJK text must split where the reference splits it.
 */
import { type Block, rustTrim } from "../traces/index.js";

/** Largest chunk, in code points. */
export const MAX_CHARS = 1200;
/** Code points shared by consecutive pieces. */
export const OVERLAP = 150;
const HALF = MAX_CHARS / 2;

/** Chunk tiers, indexed in this order. */
export type Tier = "text" | "tool_use" | "tool_result";

/** The tier of a block type: tool_use and tool_result have their own; everything else is text. */
export function tierOf(blockType: string): Tier {
  return blockType === "tool_use" ? "tool_use" : blockType === "tool_result" ? "tool_result" : "text";
}

/** A block as stored text: tool blocks get their `[tool_use Name]` / `[tool_result Name]` label. */
export function renderBlock(b: Block): string {
  if (b.blockType === "tool_use") return rustTrim(`[tool_use ${b.toolName ?? "None"}] ${b.text}`);
  if (b.blockType === "tool_result")
    return rustTrim(
      b.toolName !== null ? `[tool_result ${b.toolName}] ${b.text}` : `[tool_result] ${b.text}`,
    );
  return b.text;
}

/** Splits rendered text into pieces of at most 1200 code points with 150 of overlap, breaking at a
 * newline, else a space, when one lies past the window's midpoint. */
export function splitText(text: string): string[] {
  const trimmed = rustTrim(text);
  if (trimmed === "") return [];
  if (trimmed.length <= MAX_CHARS) return [trimmed];
  const cps = Array.from(trimmed);
  const n = cps.length;
  if (n <= MAX_CHARS) return [trimmed];
  const pieces: string[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(start + MAX_CHARS, n);
    if (end < n) {
      let brk = lastIndexOf(cps, "\n", start, end);
      if (brk <= start + HALF) brk = lastIndexOf(cps, " ", start, end);
      if (brk > start + HALF) end = brk;
    }
    const piece = rustTrim(cps.slice(start, end).join(""));
    if (piece !== "") pieces.push(piece);
    if (end >= n) break;
    start = Math.max(Math.max(end - OVERLAP, 0), start + 1);
  }
  return pieces;
}

function lastIndexOf(cps: string[], ch: string, start: number, end: number): number {
  for (let i = end - 1; i >= start; i--) if (cps[i] === ch) return i;
  return -1;
}

/**
 * Rejoins consecutive pieces of one block: drops the longest prefix of `b` (≤ 150 code points) that
 * repeats the end of `a`.
 */
export function stitchPair(a: string, b: string): string {
  const ac = Array.from(a);
  const bc = Array.from(b);
  const max = Math.min(ac.length, bc.length, OVERLAP);
  for (let k = max; k > 0; k--) {
    let same = true;
    for (let i = 0; i < k; i++)
      if (ac[ac.length - k + i] !== bc[i]) {
        same = false;
        break;
      }
    if (same) return a + bc.slice(k).join("");
  }
  return a + b;
}

/** Rejoins all pieces of one block, in split order. */
export function stitch(pieces: string[]): string {
  return pieces.reduce((acc, p, i) => (i === 0 ? p : stitchPair(acc, p)), "");
}
