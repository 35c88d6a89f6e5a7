/**
 * Secrets the way tools print them, put back together (issue 40): a value cut across lines — a line
 * continuation (a shell's `\`, PowerShell's backtick, cmd's `^`), a terminal's hard wrap at its column, a
 * base64 or hex dump wrapped at any width, a YAML block scalar, string literals joined in code (`"ab" "cd"`,
 * `"ab" +⏎ "cd"`), a hex dump with an offset column or an ASCII gutter read as its bytes (hexdump.ts) — and
 * a value behind display noise: `cat -A` (`$` at each line's end, `^I` for a tab, `M-` for a byte over 127)
 * and table cells (a name in one cell, its value in the next, between `|`, `│`, `┃` or `║`). Each is a
 * splice of the text (a range replaced, mostly by nothing); the scanner reads the spliced view around each
 * splice, keeps what it finds there that touches one, and maps it back to the text's own offsets. Generic:
 * no rule knows about reflow.
 */

import { hexDumpSplices } from "./hexdump.js";

/** A range of the text replaced by `insert` in the view. */
export interface Splice {
  from: number;
  to: number;
  insert: string;
}

/** Characters a token holds (base64, base64url, hex, most vendors' alphabets). */
const TOKEN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.%~:$-")
  TOKEN[c.charCodeAt(0)] = 1;
const tokenAt = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return c < 128 && TOKEN[c] === 1;
};

/** A line break as written or JSON-escaped (once). */
const BREAK = String.raw`(?:\r?\n|(?:\\r)?\\n)`;

/** Shortest line a terminal wraps (columns 60 to 200; JSON escaping only lengthens a line). */
const MIN_WRAP = 56;

/** A run of token characters across a break, long enough and random-looking enough to be a value cut. */
function cutValue(text: string, at: number, after: number): boolean {
  let s = at;
  while (s > 0 && at - s < 400 && tokenAt(text, s - 1)) s--;
  let e = after;
  while (e < text.length && e - after < 400 && tokenAt(text, e)) e++;
  const n = at - s + (e - after);
  // Most breaks end here, before any string is made: prose's words are short.
  if (at === s || e === after || n < 12) return false;
  const left = text.slice(Math.max(s, at - 12), at);
  const right = text.slice(after, Math.min(e, after + 12));
  // A value's pieces hold letters or digits next to the cut (a rule of `=====` or `----` is no value).
  if (!/[A-Za-z0-9]/.test(left) || !/[A-Za-z0-9]/.test(right)) return false;
  if (n >= 24) return true;
  // Prose wrapped at a column glues two words: lower-case letters only, and short.
  const run = text.slice(s, at) + text.slice(after, e);
  return !/^[a-z.,:-]+$/.test(run) && /[0-9A-Z+/=_%]/.test(run);
}

/** Shell `\` continuations inside a token, as written and JSON-escaped once or twice: `abc\⏎def` → `abcdef`. */
const CONTINUATION = /(?:\\\r?\n|\\\\(?:\\r)?\\n|\\\\\\\\(?:\\\\r)?\\\\n)(?:[ \t]|\\{1,2}t)*/g;

/**
 * PowerShell's backtick and cmd's caret continuations, as written and JSON-escaped once or twice (the mark
 * itself is not escaped), with the next line's indentation and PowerShell's `>>` prompt for it when typed in
 * a console: `abc^⏎def` → `abcdef`, `"ab" + \`⏎>>   "cd"` → `"ab" + "cd"`.
 */
const MARK_CONTINUATION = /[`^](?:\r?\n|(?:\\r)?\\n|(?:\\\\r)?\\\\n)(?:[ \t]|\\{1,2}t)*(?:>>[ \t]*)?/g;

/** A YAML block scalar's header (`key: >-`, `key: |`) and its indented lines. */
const BLOCK_SCALAR = new RegExp(
  String.raw`:[ \t]*[>|][-+]?[ \t]*(${BREAK})((?:[ \t]|\\t)+)([^\s\\]{1,400})((?:${BREAK}\2[^\s\\]{1,400}){0,40})`,
  "g",
);

/** Is text[start, end) a dump's line: its alphabet only, varied (a rule of `=====` is no dump)? */
function dumpLine(text: string, start: number, end: number): boolean {
  DUMP_AT.lastIndex = start;
  if (DUMP_AT.exec(text)?.[0].length !== end - start) return false;
  const line = text.slice(start, end);
  return /[A-Za-z0-9]/.test(line) && new Set(line.slice(0, 32)).size >= 6;
}

/** Rows of a tables: cells between `|`, `│`, `┃` or `║`. */
const TABLE_ROW = /(^|\n|\\n)([ \t]*)([|│┃║])([^\n]*?)\3[ \t]*(?=\r?\n|\\n|$)/g;

/** A cell that names something: an identifier, or a few words (`DB password`), maybe in backticks. */
const NAME_CELL = /^[ \t]*(?:`|\*\*|'|")?([A-Za-z_][\w.-]*(?: [A-Za-z_][\w.-]*){0,3})(?:`|\*\*|'|")?[ \t]*$/;

/** What a splice search may look for in a text: set by the scanner's keyword pass (see REFLOW_KEYWORDS). */
export interface ReflowHints {
  /** The text may hold `cat -A` output (`$` before a line break). */
  catA: boolean;
  /** The text may hold a table row. */
  tables: boolean;
  /** The text may hold a YAML block scalar. */
  block: boolean;
}

/** Lower-case literals whose presence says a reflow search is worth its cost (for the keyword pass). */
export const REFLOW_KEYWORDS = {
  catA: ["$\n", "$\\n", "^i"],
  // A row opens and closes with a bar (the box-drawing bars are not ASCII: the scanner looks for them).
  tables: ["\n|", "\\n|", "|\n", "|\\n", "| \n", "|\r\n"],
  block: [": >", ": |", ":>", ":|"],
} as const;

/** `cat -A`'s decoration: `$` before each break, `^I` tabs, `^M` returns, `M-` bytes (UTF-8 put back). */
function catASplices(text: string, out: Splice[]): void {
  const ends = text.match(/\$(?=\r?\n|(?:\\r)?\\n)/g)?.length ?? 0;
  if (ends < 2) return;
  const re = /\$(?=\r?\n|(?:\\r)?\\n|$)|\^I|\^M(?=\$)|(?:M-\^?[\x20-\x7e]){1,32}/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const s = m[0];
    if (s === "$" || s === "^M") out.push({ from: m.index, to: m.index + s.length, insert: "" });
    else if (s === "^I") out.push({ from: m.index, to: m.index + 2, insert: "\t" });
    else out.push({ from: m.index, to: m.index + s.length, insert: metaBytes(s) });
  }
}

/** `M-x` / `M-^x` sequences as the bytes they stand for, decoded as UTF-8. */
function metaBytes(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s[i + 2] === "^") {
      const c = s.charCodeAt(i + 3);
      bytes.push(0x80 | (c === 63 ? 0x7f : c ^ 0x40));
      i += 4;
    } else {
      bytes.push(0x80 | s.charCodeAt(i + 2));
      i += 3;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/**
 * Is the break at `at` (line from `lineStart`, next line from `after`) a terminal's wrap inside a value: a
 * value's run cut (cutValue), the next line no longer than this one (a wrap's rest never is) and not
 * opening like it (a listing's next record, `drwxr-xr-x …` under `drwxr-xr-x …`, is not a wrap's rest).
 */
function wrapped(text: string, lineStart: number, at: number, after: number): boolean {
  // `cat -A` ends every line with `$`: a line's end, not a cut.
  if (text.charCodeAt(at - 1) === 36 || !cutValue(text, at, after)) return false;
  WRAP_NEXT.lastIndex = after;
  const next = WRAP_NEXT.exec(text);
  const nextLen = next === null ? text.length - after : next.index - after;
  return nextLen <= at - lineStart && !opensLike(text, lineStart, after);
}

const WRAP_NEXT = new RegExp(BREAK, "g");

/** A line of a possible dump: where it starts and ends, and where the break after it ends. */
interface DumpLine {
  start: number;
  end: number;
  next: number;
  /** Blanks before the line's run. */
  indent: number;
}

/** A dump's line, read in place (sticky): its alphabet from the line's start to the line's end. */
const DUMP_AT = /[A-Za-z0-9+/=_-]{16,256}(?=\r?\n|(?:\\r)?\\n|$)/y;

/** The next line break at or after `from`, as written or JSON-escaped: [start, end], or null. */
function nextBreak(
  text: string,
  from: number,
  cursor: { raw: number; escaped: number },
): [number, number] | null {
  if (cursor.raw !== -1 && cursor.raw < from) cursor.raw = text.indexOf("\n", from);
  if (cursor.escaped !== -1 && cursor.escaped < from) cursor.escaped = text.indexOf("\\n", from);
  const raw = cursor.raw;
  const esc = cursor.escaped;
  if (raw === -1 && esc === -1) return null;
  if (esc === -1 || (raw !== -1 && raw < esc))
    return raw > 0 && text.charCodeAt(raw - 1) === 13 ? [raw - 1, raw + 1] : [raw, raw + 1];
  return esc >= 2 && text.startsWith("\\r", esc - 2) ? [esc - 2, esc + 2] : [esc, esc + 2];
}

/**
 * Breaks inside a token at the end of a line a terminal filled, breaks between lines a terminal filled to
 * one width (two lines or more of one length, 56 or more: every break after them is a wrap, inside a word
 * or not), and breaks inside a dump of equal-width lines.
 */
function wrapSplices(text: string, out: Splice[]): void {
  let lineStart = 0;
  const dump: DumpLine[] = [];
  const cursor = { raw: -2, escaped: -2 };
  // The two lines before this one: their starts, lengths and the break after each.
  let prev = { start: -1, len: -1, at: -1, after: -1 };
  let prevLen2 = -1;
  for (let brk = nextBreak(text, 0, cursor); ; brk = nextBreak(text, lineStart, cursor)) {
    const at = brk === null ? text.length : brk[0];
    const after = brk === null ? text.length : brk[1];
    const len = at - lineStart;
    // A dump may be indented (a YAML block, a Markdown code block): its lines are read past the blanks.
    let from = lineStart;
    while (
      from < at &&
      from - lineStart < 16 &&
      (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)
    )
      from++;
    const width = at - from;
    if (
      width >= 16 &&
      width <= 256 &&
      tokenAt(text, from) &&
      tokenAt(text, at - 1) &&
      dumpLine(text, from, at)
    )
      dump.push({ start: from, end: at, next: after, indent: from - lineStart });
    else if (dump.length > 0) flushDump(dump, out);
    // The line before was filled to the terminal's width when this one has its length, or when it closes a
    // run of such lines and is shorter (a wrap's rest).
    if (
      prev.len >= MIN_WRAP &&
      len > 0 &&
      (len === prev.len || (prevLen2 === prev.len && len < prev.len)) &&
      !opensLike(text, prev.start, lineStart) &&
      !sentenceBreak(text, prev.at, prev.after)
    )
      out.push({ from: prev.at, to: prev.after, insert: "" });
    else if (
      brk !== null &&
      len >= MIN_WRAP &&
      tokenAt(text, at - 1) &&
      tokenAt(text, after) &&
      wrapped(text, lineStart, at, after)
    )
      out.push({ from: at, to: after, insert: "" });
    if (brk === null) break;
    prevLen2 = prev.len;
    prev = { start: lineStart, len, at, after };
    lineStart = after;
  }
  flushDump(dump, out);
}

/**
 * Do the lines at `a` and `b` open alike — a listing's records, numbered lines, a table's rows, a list's
 * items: their first six characters of one shape (digits, lower case, upper case, the rest as written).
 */
function opensLike(text: string, a: number, b: number): boolean {
  const shape = (at: number) =>
    text
      .slice(at, at + 6)
      .replace(/[0-9]/g, "0")
      .replace(/[a-z]/g, "a")
      .replace(/[A-Z]/g, "A");
  return shape(a) === shape(b);
}

/** A line that ends a sentence before one that starts another (prose, a log): no wrap between them. */
function sentenceBreak(text: string, at: number, after: number): boolean {
  return /[.!?:;,]/.test(text.charAt(at - 1)) && /[A-Z\s]/.test(text.charAt(after));
}

/**
 * Joins the lines of a dump: two or more consecutive lines of one width, then maybe a shorter last one (what
 * `base64`, `openssl base64`, `xxd -p` print at any width).
 */
function flushDump(dump: DumpLine[], out: Splice[]): void {
  for (let i = 0; i < dump.length; ) {
    const first = dump[i] as DumpLine;
    const width = first.end - first.start;
    let j = i + 1;
    // One width and one indentation: a dump's lines.
    const same = (d: DumpLine) => d.end - d.start === width && d.indent === first.indent;
    while (j < dump.length && same(dump[j] as DumpLine)) j++;
    const last = dump[j];
    if (last !== undefined && last.end - last.start < width && last.indent === first.indent) j++;
    if (j - i >= 2)
      for (let k = i; k + 1 < j; k++) {
        const d = dump[k] as DumpLine;
        // The break and the next line's indentation.
        out.push({ from: d.end, to: (dump[k + 1] as DumpLine).start, insert: "" });
      }
    i = j;
  }
  dump.length = 0;
}

/** Backslash continuations inside a token. */
function continuationSplices(text: string, out: Splice[]): void {
  if (!text.includes("\\")) return;
  CONTINUATION.lastIndex = 0;
  for (let m = CONTINUATION.exec(text); m !== null; m = CONTINUATION.exec(text)) {
    const end = m.index + m[0].length;
    // Inside a token (a list's too, after its comma), or after a blank inside a quoted phrase (the shell
    // drops `\⏎` either way).
    const before = text.charCodeAt(m.index - 1);
    if ((tokenAt(text, m.index - 1) || before === 32 || before === 44) && tokenAt(text, end))
      out.push({ from: m.index, to: end, insert: "" });
  }
}

/**
 * PowerShell's and cmd's continuations (MARK_CONTINUATION) inside a token (a list's too, after its comma), or
 * after a blank and before a token or a quoted piece. Not a mark that opens its line (a compiler's `^`
 * pointer), a backtick after a backtick (a Markdown fence), one ending a word on a line with another
 * backtick (inline code) or opening a template literal, nor a caret after a regex's bracket or slash.
 */
function markSplices(text: string, out: Splice[]): void {
  if (!text.includes("`") && !text.includes("^")) return;
  MARK_CONTINUATION.lastIndex = 0;
  for (let m = MARK_CONTINUATION.exec(text); m !== null; m = MARK_CONTINUATION.exec(text)) {
    const end = m.index + m[0].length;
    const mark = m[0].charAt(0);
    const blank = /[ \t]/.test(text.charAt(m.index - 1));
    const after = text.charAt(end);
    const quoted = after === '"' || after === "'" || (after === "\\" && text.charAt(end + 1) === '"');
    if (!(blank || tokenAt(text, m.index - 1) || text.charAt(m.index - 1) === ",")) continue;
    if (!(tokenAt(text, end) || quoted)) continue;
    // The line before the mark: it must hold something (no pointer line of blanks and marks).
    const line = text.slice(Math.max(0, m.index - 400), m.index);
    const raw = line.lastIndexOf("\n");
    const escaped = line.lastIndexOf("\\n");
    const own = line.slice(Math.max(raw + 1, escaped >= 0 ? escaped + 2 : 0));
    if (!/[^\s^~]/.test(own)) continue;
    if (mark === "`" && (inlineCode(own, blank) || templateLiteral(text, end))) continue;
    // An escaped break is one only in escaped text, which holds no raw one (`\`\\n${x}\`` in source is
    // a template literal opening on an escape).
    if (m[0].charCodeAt(1) === 92 && /\n/.test(text.slice(Math.max(0, m.index - 200), end + 200))) continue;
    // A regex's anchor before an escape (`/^\n+/`) is no continuation.
    if (mark === "^" && /[/[(|]/.test(text.charAt(m.index - 1))) continue;
    out.push({ from: m.index, to: end, insert: "" });
  }
}

/** A backtick ending a word on a line that holds another one: inline code (`` `npm` ``), not PowerShell. */
function inlineCode(line: string, blank: boolean): boolean {
  return !blank && line.includes("`");
}

/**
 * Is the line after a backtick the rest of a template literal (`` `\n${x} lines` ``, a JavaScript template
 * opening on an escape that reads like a JSON-escaped break): a backtick on it that does not end it.
 */
function templateLiteral(text: string, from: number): boolean {
  const rest = text.slice(from, from + 400);
  const stop = rest.search(/\r?\n|\\n/);
  const line = stop === -1 ? rest : rest.slice(0, stop);
  return /`(?!$)/.test(line);
}

/** A YAML block scalar whose lines are one token each: `key: >-⏎  ab⏎  cd` reads `key: abcd`. */
function blockSplices(text: string, out: Splice[]): void {
  BLOCK_SCALAR.lastIndex = 0;
  for (let m = BLOCK_SCALAR.exec(text); m !== null; m = BLOCK_SCALAR.exec(text)) {
    const indent = m[2] ?? "";
    const headStart = m.index + m[0].indexOf(":") + 1;
    const firstLine = m.index + m[0].length - (m[3] ?? "").length - (m[4] ?? "").length;
    out.push({ from: headStart, to: firstLine, insert: " " });
    const rest = m[4] ?? "";
    const base = firstLine + (m[3] ?? "").length;
    const brk = new RegExp(`${BREAK}${indent.replace(/[\\]/g, "\\\\")}`, "g");
    for (let b = brk.exec(rest); b !== null; b = brk.exec(rest))
      out.push({ from: base + b.index, to: base + b.index + b[0].length, insert: "" });
  }
}

/** A table row's name cell and the value cell after it read as `name=value`. */
function tableSplices(text: string, out: Splice[]): void {
  TABLE_ROW.lastIndex = 0;
  for (let m = TABLE_ROW.exec(text); m !== null; m = TABLE_ROW.exec(text)) {
    const bar = m[3] ?? "|";
    const body = m[4] ?? "";
    const bodyStart = m.index + (m[1] ?? "").length + (m[2] ?? "").length + 1;
    const cells = body.split(bar);
    if (cells.length < 2) continue;
    let at = bodyStart;
    const starts = cells.map((c) => {
      const s = at;
      at += c.length + 1;
      return s;
    });
    for (let i = 0; i + 1 < cells.length; i++) {
      const name = NAME_CELL.exec(cells[i] ?? "");
      const value = cells[i + 1] ?? "";
      const v = /^[ \t]*(?:`|'|")?(?=\S)/.exec(value);
      // A value cell holds one token (a cell of words is a description, not a value), or a phrase under a
      // phrase's name (a recovery phrase, a passphrase).
      if (name === null || v === null || /^[ \t]*[-:]+[ \t]*$/.test(value)) continue;
      if (!/^[ \t]*\S+[ \t]*$/.test(value) && !/mnemonic|seed|phrase|recovery|words/i.test(name[1] ?? ""))
        continue;
      const cellStart = starts[i] as number;
      const key = name[1] ?? "";
      const nameStart = cellStart + (cells[i] ?? "").indexOf(key);
      // A name of words (`API Key`) reads as one (`API_Key=`), as the rules spell names.
      out.push({
        from: nameStart,
        to: (starts[i + 1] as number) + v[0].length,
        insert: `${key.replace(/ /g, "_")}=`,
      });
      i++;
    }
  }
}

/** The splices of `text`, sorted, none overlapping (a later one overlapping an earlier is dropped). */
export function reflowSplices(text: string, hints: ReflowHints, joins: readonly Splice[] = []): Splice[] {
  const out: Splice[] = [...joins];
  if (hints.catA) catASplices(text, out);
  continuationSplices(text, out);
  markSplices(text, out);
  if (hints.block) blockSplices(text, out);
  if (hints.tables) tableSplices(text, out);
  if (text.length >= MIN_WRAP) wrapSplices(text, out);
  hexDumpSplices(text, out);
  if (out.length === 0) return out;
  out.sort((a, b) => a.from - b.from || b.to - a.to);
  const kept: Splice[] = [];
  for (const s of out) {
    const last = kept[kept.length - 1];
    if (last !== undefined && s.from < last.to) continue;
    if (last !== undefined && s.from === last.from && s.to === last.to) continue;
    kept.push(s);
  }
  return kept;
}

/** A spliced view of a text, where each splice sits in it, and the way back to the text's offsets. */
export interface SplicedView {
  text: string;
  /** Each splice's range in the view (its insert). */
  at: [number, number][];
  /** Maps a range of the view to the text's range (a splice inside or at the ends is taken whole). */
  toSource(start: number, end: number): [number, number];
}

/** The view of `text` with `splices` (sorted, not overlapping) applied. */
export function splicedView(text: string, splices: readonly Splice[]): SplicedView {
  // Kept stretches: view start, source start; splices: view range and source range.
  const keepView: number[] = [];
  const keepSource: number[] = [];
  const at: [number, number][] = [];
  const source: [number, number][] = [];
  let view = "";
  let from = 0;
  for (const s of splices) {
    keepView.push(view.length);
    keepSource.push(from);
    view += text.slice(from, s.from);
    at.push([view.length, view.length + s.insert.length]);
    source.push([s.from, s.to]);
    view += s.insert;
    from = s.to;
  }
  keepView.push(view.length);
  keepSource.push(from);
  view += text.slice(from);
  /** The source offset of view offset `v`; `end`: as a range's end (inside a splice: its source end). */
  const map = (v: number, end: boolean): number => {
    // The last splice starting at or before `v` (binary search: a hostile text has thousands); for a range's
    // end, before it (splices touching at `v`, an empty one among them, end or start there).
    let l = 0;
    let h = at.length - 1;
    while (l < h) {
      const mid = (l + h + 1) >> 1;
      const a = (at[mid] as [number, number])[0];
      if (a < v || (a === v && !end)) l = mid;
      else h = mid - 1;
    }
    for (const i of [l - 1, l]) {
      const span = at[i];
      const src = source[i];
      if (span === undefined || src === undefined) continue;
      const [a, b] = span;
      if (end ? v > a && v <= b : v >= a && v < b) return end ? src[1] : src[0];
    }
    let lo = 0;
    let hi = keepView.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((keepView[mid] as number) <= v - (end ? 1 : 0)) lo = mid;
      else hi = mid - 1;
    }
    return (keepSource[lo] as number) + v - (keepView[lo] as number);
  };
  return {
    text: view,
    at,
    toSource: (start, end) => [map(start, false), Math.max(map(start, false), map(end, true))],
  };
}
