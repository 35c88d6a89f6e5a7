/**
 * Agents' display decoration, seen through: a file an agent reads arrives with line numbers (Claude Code's
 * Read `     1→`, `cat -n`/`nl -ba` and Codex's exec output `     1\t`, Hermes's read_file `     1|`, Codex's
 * read_file `L1: `), a reply quotes with `> `, a diff or a Codex patch marks lines with `+`/`-`. Rules that
 * read a line from its start (`.pgpass`, `.netrc` entries over three lines, name/value lists, a key block cut
 * off) miss every secret behind such a prefix, so the scanner reads a view of the text with the prefixes cut
 * out, and maps what it finds back to the text's own offsets. Generic: no rule knows about decoration.
 */

/**
 * A line's start: the text's start, a newline, or an escaped newline (JSON-escaped tool output). A first
 * numbered line inside a JSON string starts at its quote instead (QUOTED_GUTTER).
 */
const LINE_START = String.raw`(^|[\n\r]|\\[nr])`;

/** A line-number gutter: `     1→`, `     1\t` (also escaped, once or twice), `     1|`, `L1: `. */
const GUTTER = String.raw`[ \t]{0,8}\d{1,7}(?:→|\t|\\{1,3}t|\|)|L\d{1,7}: `;

/** Quote markers, nested: `> `, `> > `, `>> `. */
const QUOTE = String.raw`(?:[ \t]{0,3}>(?!=)[ \t]?){1,6}`;

/**
 * A diff's line marker: `+` or `-`, but not a file header (`+++ `, `--- `), a PEM armour line (`-----BEGIN`)
 * or a long flag (`--password`) written in the prose around the diff.
 */
const DIFF_MARK = String.raw`\+(?!\+\+ )|-(?!-- |-{4}[A-Z ]|-[A-Za-z])`;

/** A line's decoration: a gutter, then quote markers, each optional, at least one of them. */
const DECORATION = new RegExp(`${LINE_START}(?:(?:${GUTTER})(?:${QUOTE})?|${QUOTE})`, "g");
/** The same in a diff, where a `+`/`-` marker may follow them or stand alone. */
const DECORATION_DIFF = new RegExp(
  `${LINE_START}(?:(?:${GUTTER})(?:${QUOTE})?(?:${DIFF_MARK})?|(?:${QUOTE})(?:${DIFF_MARK})?|${DIFF_MARK})`,
  "g",
);
/** A numbered first line inside a JSON string (`{"content":"     1|…`), whose start is a quote. */
const QUOTED_GUTTER = new RegExp(`(")(?:${GUTTER})`, "g");

/** Texts that hold a diff or a patch: a hunk header, `diff --git`, or a Codex patch's first line. */
const DIFF = /@@(?<=(?:^|[\n\r→\t|"]|\\n|\\t)@@)(?:[ \n]|\\n|$)|diff --git |\*\*\* Begin Patch/;

const DIGITS = "0123456789".split("");

/**
 * What decoration holds (lower case, for the scanner's keyword pass, which says whether a text may hold
 * any): a digit before a gutter's `|` or tab (also escaped), a quote marker or a Codex numbered line after a
 * line break, a diff's hunk header or a patch's first line. A gutter's `→` is not ASCII and a text's first
 * line has no break before it: `displayView` looks for those itself.
 */
export const DECORATION_KEYWORDS: readonly string[] = [
  ...DIGITS.flatMap((d) => [`${d}|`, `${d}\t`, `${d}\\t`, `${d}\\\\t`, `\nl${d}`, `\\nl${d}`]),
  ...["", " ", "  ", "   "].flatMap((blank) => [`\n${blank}>`, `\\n${blank}>`]),
  "@@",
  "diff --git",
  "*** begin",
];

/** Claude Code's gutter arrow after its line number (an arrow in prose has no digit before it). */
const ARROW_GUTTER = /→(?<=\d→)/;

/** A grep listing's line number after a path (the scanner's keywords cannot say a number). */
const GREP_NUMBER = /:\d{1,7}:/;

/** A grep match's prefix on a line's start (`grep -n`, `rg -n`, pi's grep): `path:12:`. */
const GREP_LINE = /(?:^|\n|\\n|")([^\s:"'\\]{1,200}):(\d{1,7}):/g;

/**
 * The pattern of a grep listing's line prefixes (`path:12:`, context lines `path-13-`) when two lines or
 * more start with one path and different line numbers; null otherwise (a `.pgpass` line, `host:5432:…`,
 * repeats its port, not a line number).
 */
function grepPrefix(text: string): RegExp | null {
  if (!GREP_NUMBER.test(text)) return null;
  GREP_LINE.lastIndex = 0;
  const first = GREP_LINE.exec(text);
  if (first === null) return null;
  const path = first[1] ?? "";
  for (let m = GREP_LINE.exec(text); m !== null; m = GREP_LINE.exec(text))
    if (m[1] === path && m[2] !== first[2]) {
      const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return new RegExp(`(^|[\\n\\r"]|\\\\[nr])${escaped}[:-]\\d{1,7}[:-] ?`, "g");
    }
  return null;
}

/** A view of a text without its decoration, and the way back to the text's offsets. */
export interface DisplayView {
  text: string;
  /** Maps a range of the view to the text's range (decoration inside the range is included). */
  toSource(start: number, end: number): [number, number];
}

/**
 * The text with every line's decoration cut out, or null when it has none (the text is scanned as it is).
 * `keywords`: whether the scanner's keyword pass found DECORATION_KEYWORDS in it (false skips the searches
 * it made; true, the default, searches everything). A view keeps each line's break; only the prefixes go.
 */
export function displayView(text: string, keywords = true): DisplayView | null {
  if (
    !keywords &&
    !(text.includes("→") && ARROW_GUTTER.test(text)) &&
    !/^[ \t]{0,3}>|^L\d/.test(text) &&
    !GREP_NUMBER.test(text)
  )
    return null;
  const diff =
    keywords &&
    (text.includes("@@") || text.includes("diff --git") || text.includes("*** Begin")) &&
    DIFF.test(text);
  const cuts: [number, number][] = [];
  const re = diff ? DECORATION_DIFF : DECORATION;
  const grep = grepPrefix(text);
  for (const pattern of grep === null ? [re, QUOTED_GUTTER] : [grep, re, QUOTED_GUTTER]) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const from = m.index + (m[1]?.length ?? 0);
      const to = m.index + m[0].length;
      if (to > from) cuts.push([from, to]);
    }
  }
  if (cuts.length === 0) return null;
  cuts.sort((a, b) => a[0] - b[0]);
  // View offsets where each kept stretch starts, and the source offset it came from.
  const viewAt: number[] = [0];
  const sourceAt: number[] = [0];
  let view = "";
  let at = 0;
  for (const [from, to] of cuts) {
    // A grep prefix and the gutter or quote after it are cut as one.
    if (to <= at) continue;
    if (from < at) {
      at = to;
      sourceAt[sourceAt.length - 1] = at;
      continue;
    }
    view += text.slice(at, from);
    at = to;
    viewAt.push(view.length);
    sourceAt.push(at);
  }
  view += text.slice(at);
  const map = (v: number): number => {
    let lo = 0;
    let hi = viewAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((viewAt[mid] as number) <= v) lo = mid;
      else hi = mid - 1;
    }
    return (sourceAt[lo] as number) + v - (viewAt[lo] as number);
  };
  return {
    text: view,
    toSource: (start, end) => [map(start), end > start ? map(end - 1) + 1 : map(start)],
  };
}
