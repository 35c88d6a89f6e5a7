/**
 * Rendering and splitting (docs/memory-format.md#chunking). All lengths are code points (Rust chars), never
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
 * newline, else a space, when one lies past the window's midpoint. Positions are code points; the text is
 * sliced by UTF-16 offsets (identical when it holds no surrogate, the usual case), never copied per character. */
export function splitText(text: string): string[] {
  const trimmed = rustTrim(text);
  if (trimmed === "") return [];
  if (trimmed.length <= MAX_CHARS) return [trimmed];
  const cp = codePoints(trimmed);
  const n = cp.count;
  if (n <= MAX_CHARS) return [trimmed];
  const pieces: string[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(start + MAX_CHARS, n);
    if (end < n) {
      let brk = cp.lastIndexOf("\n", start, end);
      if (brk <= start + HALF) brk = cp.lastIndexOf(" ", start, end);
      if (brk > start + HALF) end = brk;
    }
    const piece = rustTrim(trimmed.slice(cp.offset(start), cp.offset(end)));
    if (piece !== "") pieces.push(piece);
    if (end >= n) break;
    start = Math.max(Math.max(end - OVERLAP, 0), start + 1);
  }
  return pieces;
}

/** Code-point positions of a string: their count, UTF-16 offsets, and a search for a BMP character. */
interface CodePoints {
  count: number;
  /** The UTF-16 offset of code point `i` (`count` gives the string's length). */
  offset(i: number): number;
  /** The last code point position in [start, end) holding `ch`, or -1. */
  lastIndexOf(ch: string, start: number, end: number): number;
}

function codePoints(s: string): CodePoints {
  const inRange = (u: number, start: number) => (u >= start ? u : -1);
  if (!/[\uD800-\uDFFF]/.test(s))
    return {
      count: s.length,
      offset: (i) => i,
      lastIndexOf: (ch, start, end) => (end > start ? inRange(s.lastIndexOf(ch, end - 1), start) : -1),
    };
  // Code points as the string iterator makes them: a valid surrogate pair is one, a lone surrogate one too.
  const offsets: number[] = [];
  const indexOfUnit = new Int32Array(s.length + 1);
  for (let u = 0; u < s.length; ) {
    indexOfUnit[u] = offsets.length;
    offsets.push(u);
    u += (s.codePointAt(u) ?? 0) > 0xffff ? 2 : 1;
  }
  offsets.push(s.length);
  const count = offsets.length - 1;
  return {
    count,
    offset: (i) => offsets[i] as number,
    lastIndexOf: (ch, start, end) => {
      if (end <= start) return -1;
      const u = s.lastIndexOf(ch, (offsets[end] as number) - 1);
      return u < 0 ? -1 : inRange(indexOfUnit[u] as number, start);
    },
  };
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
