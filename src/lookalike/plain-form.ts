/**
 * Text as a reader takes it, for telling a shape of text from its look-alikes. Text can imitate another with
 * characters that read as the real ones: a no-break space or a Braille blank for a space, a zero-width
 * joiner or a variation selector inside a word, a fullwidth `＝` or a modifier letter `꞊` for `=`, another
 * arrow or `->` for `→`, a Cyrillic `е` or an accented `é` for a Latin `e`. Matched on the raw text, such an
 * imitation passes for something else; matched on this form, it is what it imitates. Only for matching:
 * what is stored and shown is left as it is.
 */
import { ARROW, BLANK, CONTROL, DASH, DIGIT, HIDDEN, LINE_BREAK, MARK, oneOf } from "./classes.js";
import { CONFUSABLES } from "./confusables.js";

/** Each look-alike of the confusables table with the character it is drawn like. */
const DRAWN_AS: ReadonlyMap<string, string> = new Map(
  CONFUSABLES.flatMap(([ascii, chars]) => [...chars].map((c) => [c, ascii] as const)),
);

const isLineBreak = oneOf(LINE_BREAK);
const isBlank = oneOf(BLANK);
const isDropped = oneOf(`${HIDDEN}${CONTROL}${MARK}`);
const isDigit = oneOf(DIGIT);
const isDash = oneOf(DASH);
const isArrow = oneOf(ARROW);

/**
 * The ASCII digit a decimal digit of another script stands for. Unicode encodes every script's decimal
 * digits as runs of ten, 0 to 9 in order, so a digit's value is its distance from the start of its run (a
 * run may follow another directly: the count goes on across both).
 */
function digitValue(c: string): string {
  let cp = c.codePointAt(0) ?? 0;
  let back = 0;
  while (isDigit.test(String.fromCodePoint(cp - 1))) {
    cp--;
    back++;
  }
  return String(back % 10);
}

/**
 * Characters already read, with what they read as: text uses few distinct characters, and each costs several
 * property tests. Bounded, so text made of every code point in turn cannot grow it past a few megabytes.
 */
const read = new Map<string, string>();
const READ_MAX = 50_000;

/** One character (after NFKC and canonical decomposition) as a reader takes it, remembered. */
function foldChar(c: string): string {
  const known = read.get(c);
  if (known !== undefined) return known;
  const r = readChar(c);
  if (read.size < READ_MAX) read.set(c, r);
  return r;
}

/** One character (after NFKC and canonical decomposition) as a reader takes it. */
function readChar(c: string): string {
  const drawn = DRAWN_AS.get(c);
  if (drawn !== undefined) return drawn;
  if (isLineBreak.test(c)) return "\n";
  if (isBlank.test(c)) return " ";
  if (isDropped.test(c)) return "";
  if (isDigit.test(c)) return digitValue(c);
  if (isDash.test(c)) return "-";
  if (isArrow.test(c)) return "→";
  return c;
}

/**
 * Every character a reader takes for another: the look-alikes of the table and every class, but printable
 * ASCII, newline and `→`, which read as themselves (a set difference, the regex `v` flag). Only these reach
 * {@link foldChar}, so text in another script pays for the letters it shares with Latin, not for every one.
 */
const UNPLAIN = new RegExp(
  `[[${[...DRAWN_AS.keys()].join("")}${LINE_BREAK}${BLANK}${HIDDEN}${CONTROL}${MARK}${DIGIT}${DASH}${ARROW}]--[\\n\\x20-\\x7e→]]`,
  "gv",
);

/** An arrow spelled in ASCII (after folding): `->`, `-->`, `=>`, `==>`. */
const ASCII_ARROW = /[-=]+>/g;

/**
 * Printable ASCII and newline, and the non-ASCII characters funes's own outputs print (`→`, `·`, `…`), with
 * no arrow spelled in ASCII: nothing to fold (most stored text; checked first, it is cheap).
 */
const PLAIN = /^[\n\x20-\x7e→·…]*$/;

/**
 * `text` as a reader takes it (see the file header). After NFKC (fullwidth and compatibility forms,
 * mathematical and circled letters, most spaces) and canonical decomposition (a letter apart from its
 * accents), each character is read as: the ASCII character the confusables table draws it as
 * (confusables.ts); a line break as `\n` (CR LF as one); a blank (classes.ts `BLANK`: any space
 * separator, the tab, the Braille blank, the Hangul fillers) as a space; nothing if it renders as nothing
 * (default-ignorable code points, format characters, other controls) or is a combining mark; a decimal
 * digit of any script as its ASCII digit; a dash as `-`; an arrow as `→`. Then an arrow spelled in ASCII
 * (`->`, `=>`, `-->`) is read as `→`.
 */
export function plainForm(text: string): string {
  if (PLAIN.test(text) && !text.includes(">")) return text;
  const folded = PLAIN.test(text)
    ? text
    : text.replace(/\r\n/g, "\n").normalize("NFKC").normalize("NFD").replace(UNPLAIN, foldChar);
  return folded.replace(ASCII_ARROW, "→");
}
