/**
 * Secrets the catalogue cannot see as written: URL-encoded in a query string, wrapped in base64 (`echo … |
 * base64 -d`, Kubernetes Secret data, kubeconfig `client-key-data`, a service-account JSON in an env
 * variable) or cut into string literals joined in code (`"sk-ant-" + "api03-…"`, Python's `"ab" "cd"`). Each wrapped or joined form is rebuilt, scanned by
 * the catalogue, and a finding inside it marks the whole wrapped or joined span. One level deep: a decoded text
 * is not unwrapped again. The runs walked for base64 are also where a wallet key that proves itself (a WIF
 * checksum, a Solana keypair: wallets.ts) is found, with no keyword to run on.
 */

import type { Splice } from "./reflow.js";
import { provenKey } from "./wallets.js";

/** A finding's rule and range (the scanner's Finding). */
interface Span {
  rule: string;
  start: number;
  end: number;
}

/** Shortest base64 run worth decoding (24 characters = 18 bytes). */
const MIN_RUN = 24;
/** Longest run decoded; longer ones (images, blobs) are passed over. */
const MAX_RUN = 8192;

/** 1 for the base64 alphabet's characters (`=` is padding, handled apart). */
const B64 = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") B64[c.charCodeAt(0)] = 1;

/**
 * Between two joined pieces: `+` or `.` (or nothing: Python's and C's implicit concatenation), and at most
 * one line break (as written or JSON-escaped), with the operator before or after it, a backslash
 * continuation before it (`"ab" +\n  "cd"`, `("ab"\n  "cd")`, `"ab" \\\n  "cd"`), or PowerShell's backtick
 * after the operator (`"ab" + \`\n>>   "cd"`, its console's `>>` prompt included).
 */
const JOIN_SEP = String.raw`[ \t]*(?:[+.]|\\(?=\r?\n)|\\\\(?=\\n))?[ \t]*(?:\x60(?=\r?\n|\\n))?(?:(?:\r?\n|\\n)(?:[ \t]|\\t){0,60}(?:>>[ \t]*)?(?:[+.][ \t]*)?)?`;

/**
 * String literals joined by `+`, `.` or juxtaposition: two or more quoted pieces, on one line or across
 * line breaks (JOIN_SEP), their quotes JSON-escaped up to twice or not (code in a tool call's input is, and
 * JSON inside it again). Pieces hold no quote, backslash or newline, so a piece cannot run past its line.
 * Searched only in texts JOINS admits.
 */
const JOINED = new RegExp(
  String.raw`(\\{0,3}["'\x60])([^"'\x60\\\n]{1,2048})\1(?:${JOIN_SEP}(\\{0,3}["'\x60])[^"'\x60\\\n]{1,2048}\3){1,8}`,
  "g",
);

/**
 * What a join the scanner looks for holds (lower case, for the scanner's keyword pass): a closing quote, then
 * `+` (JavaScript, Java, Python, C#…), a blank and an opening quote (Python's implicit concatenation), or a
 * line break (as written or JSON-escaped) or a backslash continuation after it. A text without any of these
 * is not searched for joins. PHP's `.` and shell's `'a''b'` are left out: their keywords (`".`, `''`) are in
 * most texts, and would make every text pay for the search.
 */
export const JOINS: readonly string[] = [
  '"+',
  '" +',
  '" "',
  "'+",
  "' +",
  "' '",
  "`+",
  "` +",
  '" \\\n',
  "' \\\n",
  '" \\\\\\n',
  "' \\\\\\n",
  // A literal closing a line and the next one opening with a literal (blanks before it), as written
  // or JSON-escaped: a search for the quote at a line's end alone would admit most texts.
  ...["", " ", "  ", "   ", "    ", "     ", "      ", "       ", "        ", "\t"].flatMap((blank) => [
    `"\n${blank}"`,
    `'\n${blank}'`,
    `"\\n${blank}\\"`,
    `'\\n${blank}'`,
  ]),
  // Deeper indentation (C aligns a continued literal under the first): nine blanks or more after the quote
  // that ends a line (a keyword per count would swell the keyword automaton for every text).
  `"\n         `,
  `'\n         `,
  `"\\n         `,
  `'\\n         `,
  // JSON-escaped tabs (Go's gofmt indents a continued literal with one).
  ...["\\t", "\\t\\t"].flatMap((blank) => [`"\\n${blank}\\"`, `'\\n${blank}'`]),
];

/**
 * A URL-encoded run: token characters with two `%XX` escapes or more (a token put in a query string, where
 * its `+`, `/`, `=` and `:` are escaped). Bounded, so a hostile text stays linear.
 */
const PERCENT_RUN = /[A-Za-z0-9_.~+/=!-]{0,300}(?:%[0-9A-Fa-f]{2}[A-Za-z0-9_.~+/=!-]{0,300}){2,400}/g;

/** Findings of `scan` inside URL-encoded runs of `text`, each covering the whole run, rule suffixed `-urlencoded`. */
function scanPercentEncoded(text: string, scan: (t: string) => Span[]): Span[] {
  const out: Span[] = [];
  PERCENT_RUN.lastIndex = 0;
  for (let m = PERCENT_RUN.exec(text); m !== null; m = PERCENT_RUN.exec(text)) {
    if (m[0].length < MIN_RUN) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(m[0]);
    } catch {
      continue;
    }
    const inner = scan(decoded);
    if (inner[0] !== undefined)
      out.push({ rule: `${inner[0].rule}-urlencoded`, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** One piece of a JOINED match. */
const PIECE = /(\\{0,3}["'`])([^"'`\\\n]{1,2048})\1/g;

/** True when `text[k]` is in the base64 alphabet. */
function inAlphabet(text: string, k: number): boolean {
  const c = text.charCodeAt(k);
  return c < 128 && B64[c] === 1;
}

/** True when every code of `s` is printable ASCII, tab, newline or carriage return. */
function printable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 126 || (c < 32 && c !== 9 && c !== 10 && c !== 13)) return false;
  }
  return true;
}

/** `run` decoded as base64 when it decodes to printable text of 16 characters or more; else null. */
function decodeBase64(run: string): string | null {
  // Identifiers and paths match the alphabet too: base64 of text always has upper case and lower case or
  // digits; and a run whose head does not decode to text is not text (most runs end here, cheaply).
  if (run.length % 4 === 1 || !/[A-Z]/.test(run) || !/[a-z0-9]/.test(run)) return null;
  if (!printable(Buffer.from(run.slice(0, 32), "base64").toString("latin1"))) return null;
  const text = Buffer.from(run, "base64").toString("latin1");
  return text.length >= 16 && printable(text) ? text : null;
}

/** A run of hex digits of one case, an even count of them (a hex dump: `xxd -p`, `od`, `hexdump`). */
const HEX_RUN = /^(?:[0-9a-f]{2})+$|^(?:[0-9A-F]{2})+$/;

/** `run` decoded as hex when it decodes to printable text of 16 characters or more; else null. */
function decodeHex(run: string): string | null {
  if (!/[a-fA-F]/.test(run) || !printable(Buffer.from(run.slice(0, 32), "hex").toString("latin1")))
    return null;
  const text = Buffer.from(run, "hex").toString("latin1");
  return text.length >= 16 && printable(text) ? text : null;
}

/**
 * Findings of `scan` inside base64-wrapped, hex-dumped and URL-encoded text and joined string literals of
 * `text`, each covering the whole wrapped or joined span (in `text`'s offsets), its rule suffixed with
 * `-base64`, `-hex`, `-urlencoded` or `-joined`. `gaps`, when given, receives the gaps between joined
 * literals that cut a value, and the break before the first one (reflow.ts's splices).
 */
export function scanWrapped(
  text: string,
  scan: (t: string) => Span[],
  joins: boolean,
  gaps?: Splice[],
): Span[] {
  const out: Span[] = [];
  // Whole runs of the alphabet, found by skipping: `i` is always a run's possible start (the text's start or
  // right after a character outside the alphabet); if the window of MIN_RUN characters from `i` holds an
  // outside character, no run long enough starts before it, so jump past it. Prose is crossed a window at a
  // time, reading a few characters of each (a walk over every character cost more than the catalogue).
  const len = text.length;
  for (let i = 0; i + MIN_RUN <= len; ) {
    let j = i + MIN_RUN - 1;
    while (j >= i && inAlphabet(text, j)) j--;
    if (j >= i) {
      i = j + 1;
      continue;
    }
    let stop = i + MIN_RUN;
    while (stop < len && inAlphabet(text, stop)) stop++;
    // A run right after a JSON escape (`\nSGVsbG8…` in a tool call's input) starts past the escape's letter.
    const start = text.charCodeAt(i - 1) === 92 && /[nrt]/.test(text.charAt(i)) ? i + 1 : i;
    i = stop + 1;
    if (stop - start > MAX_RUN) continue;
    let end = stop;
    while (end < len && end - stop < 2 && text.charCodeAt(end) === 61) end++;
    const run = text.slice(start, stop);
    const key = provenKey(run);
    if (key !== null) {
      out.push({ rule: key, start, end: stop });
      continue;
    }
    const hex = HEX_RUN.test(run);
    const decoded = hex ? decodeHex(run) : decodeBase64(run);
    if (decoded === null) continue;
    const inner = scan(decoded);
    if (inner[0] !== undefined) out.push({ rule: `${inner[0].rule}-${hex ? "hex" : "base64"}`, start, end });
  }
  if (text.includes("%")) out.push(...scanPercentEncoded(text, scan));
  // Most texts have no two literals side by side: the scanner's keyword pass says whether one may (JOINS).
  if (!joins) return out;
  JOINED.lastIndex = 0;
  for (let m = JOINED.exec(text); m !== null; m = JOINED.exec(text)) {
    let joined = "";
    let prev = "";
    let prevEnd = -1;
    PIECE.lastIndex = 0;
    for (let p = PIECE.exec(m[0]); p !== null; p = PIECE.exec(m[0])) {
      const content = p[2] ?? "";
      const contentStart = m.index + p.index + (p[1] ?? "").length;
      if (gaps !== undefined && prevEnd >= 0 && cutAcross(prev, content))
        gaps.push({ from: prevEnd, to: contentStart, insert: "" });
      joined += content;
      prev = content;
      prevEnd = contentStart + content.length;
    }
    if (gaps !== undefined) leadGap(text, m.index, gaps);
    const inner = scan(joined);
    if (inner[0] !== undefined)
      out.push({ rule: `${inner[0].rule}-joined`, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * A value cut between two literals: the last word of one and the first of the next make 12 characters, or
 * both pieces are long (a phrase cut at a blank).
 */
function cutAcross(left: string, right: string): boolean {
  const l = /\S*$/.exec(left)?.[0].length ?? 0;
  const r = /^\S*/.exec(right)?.[0].length ?? 0;
  return (l > 0 && r > 0 && l + r >= 12) || (left.length >= 24 && right.length >= 24);
}

/** The break (and Python's parenthesis) between a name's `=` and joined literals: `x = (⏎    "ab"`. */
function leadGap(text: string, at: number, gaps: Splice[]): void {
  const lead = LEAD.exec(text.slice(Math.max(0, at - 60), at));
  if (lead === null) return;
  const gap = (lead[1] ?? "").length;
  gaps.push({ from: at - gap, to: at, insert: " " });
}

/** What may stand between an assignment and a joined literal: blanks, a line break, an opening parenthesis. */
const LEAD = /[=:(,][ \t]*((?:\r?\n|\\n|[ \t(]){1,40})$/;
