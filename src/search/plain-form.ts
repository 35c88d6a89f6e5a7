/**
 * Text as a reader takes it, for telling funes's output shapes from look-alikes. A stored row can imitate a
 * hit with characters that read as the real ones: a no-break or other Unicode space for a space, a
 * zero-width joiner inside `score=`, a fullwidth `＝`, another arrow for `→`, a Cyrillic `е` for a Latin
 * `e`. Matched on the raw text, such a row passes for an original (and shows to an agent as a hit); matched
 * on this form, it is the shape it imitates. Only for matching: what is stored and shown is left as it is.
 */

/**
 * Arrows a reader takes for `→` (U+2192): the Arrows block, Supplemental Arrows-A and -B, the dingbat
 * arrows, Miscellaneous Symbols and Arrows, Supplemental Arrows-C. NFKC already folds the halfwidth `￫`.
 */
const ARROWS = /[\u2190-\u21ff\u27f0-\u27ff\u2900-\u297f\u2794-\u27bf\u2b00-\u2bff\u{1f800}-\u{1f8ff}]/gu;

/**
 * Cyrillic and Greek letters drawn like the Latin letters of funes's output words (`score`, `get`,
 * `turn`, `seq`, `funes`, the block types), from Unicode's confusables list: lower and upper case.
 */
const LOOKALIKES = "аеорсухѕіјһԁԛԝɡοανρκιυεвкмнтАВЕКМНОРСТХЅІЈΑΒΕΖΗΙΚΜΝΟΡΤΥΧ";
const LATIN = "aeopcyxsijhdqwgoavpkiuebkmhtABEKMHOPCTXSIJABEZHIKMNOPTYX";
const CONFUSABLES = new RegExp(`[${LOOKALIKES}]`, "g");

/**
 * Printable ASCII, newline and tab, and the non-ASCII characters funes's own outputs print (`→`, `·`, `…`):
 * nothing to fold that a shape would miss (most stored text, and every output of funes's; checked first,
 * it is cheap).
 */
const PLAIN = /^[\n\t\x20-\x7e→·…]*$/;

/**
 * `text` as a reader takes it (see the file header): NFKC (fullwidth and compatibility forms, most Unicode
 * spaces), format characters (Cf: zero-width space and joiners, soft hyphen, bidi controls, tags) dropped,
 * every other space as U+0020, line and paragraph separators and NEL as newlines (CR LF as LF), arrows as
 * `→`, Cyrillic and Greek look-alikes as Latin letters.
 */
export function plainForm(text: string): string {
  if (PLAIN.test(text)) return text;
  return text
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, "\n")
    .replace(/[\p{Zs}\t]/gu, " ")
    .replace(ARROWS, "→")
    .replace(CONFUSABLES, (c) => LATIN[LOOKALIKES.indexOf(c)] ?? c);
}
