/**
 * The classes of characters a reader does not see as themselves: what renders as nothing, as a blank, as a
 * line break, as a dash or as an arrow. Each is a Unicode property where Unicode has one (the regex engine's
 * own tables, Unicode 17 on Node 20.19 and later), so characters Unicode adds to a property later join its
 * class without a change here. docs/lookalikes.md lists what each holds and where the facts come from.
 */

/**
 * Characters that render as nothing, as regex class source (without the brackets): Unicode's
 * default-ignorable code points (`Default_Ignorable_Code_Point` in DerivedCoreProperties.txt: the soft
 * hyphen, the combining grapheme joiner U+034F, the Arabic letter mark, the Hangul fillers, Khmer's
 * inherent vowels, Mongolian's free variation selectors and vowel separator, zero-width space, joiners and
 * marks, bidi embeddings, overrides and isolates, the word joiner and invisible operators, the variation
 * selectors U+FE00–FE0F and U+E0100–E01EF, the BOM, the shorthand and musical format controls, the tags
 * U+E0000–E007F, and the code points reserved to join them) and every other format character (category
 * Cf: the Arabic number signs, the interlinear annotation controls, the Egyptian hieroglyph format
 * controls, and any Unicode adds).
 */
export const HIDDEN = String.raw`\p{Default_Ignorable_Code_Point}\p{Cf}`;

/**
 * Characters drawn as an empty space, as regex class source: every space separator (category Zs: the
 * no-break, en, em, thin, hair, figure, narrow no-break, medium mathematical and ideographic spaces, the
 * Ogham space mark), the tab, the Braille pattern blank U+2800 (a symbol, category So, drawn as an empty
 * cell), and the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, default-ignorable but drawn as a blank
 * by the fonts that draw them (NFKC turns U+3164 and U+FFA0 into U+1160). A blank is read as a space, not
 * dropped, so it is checked before {@link HIDDEN}.
 */
export const BLANK = String.raw`\p{Zs}\t\u2800\u115f\u1160\u3164\uffa0`;

/**
 * Characters that end a line, as regex class source: line feed, carriage return, vertical tab, form feed,
 * NEL (U+0085), and the line and paragraph separators (categories Zl and Zp).
 */
export const LINE_BREAK = String.raw`\n\r\v\f\u0085\p{Zl}\p{Zp}`;

/** Control characters (category Cc) but those that break lines or are a blank: drawn as nothing, or acted on. */
export const CONTROL = String.raw`\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f`;

/**
 * Arrows a reader takes for `→` (U+2192), as regex class source: the Arrows block, the dingbat arrows,
 * Supplemental Arrows-A and -B, Miscellaneous Symbols and Arrows, Supplemental Arrows-C. NFKC already
 * folds the halfwidth `￫`; an arrow spelled in ASCII (`->`, `=>`, `-->`) is folded by the plain form.
 */
export const ARROW = String.raw`\u2190-\u21ff\u2794-\u27bf\u27f0-\u27ff\u2900-\u297f\u2b00-\u2bff\u{1f800}-\u{1f8ff}`;

/**
 * Dashes (category Pd: hyphen, non-breaking hyphen, figure, en and em dashes, horizontal bar, two- and
 * three-em dashes, wave dash, Armenian and Hebrew hyphens, …), read as `-` once the confusables table has
 * had its say (it reads a few of them, the double hyphens, as `=`).
 */
export const DASH = String.raw`\p{Pd}`;

/** Combining marks (category M: nonspacing, spacing and enclosing), dropped after canonical decomposition. */
export const MARK = String.raw`\p{M}`;

/** Decimal digits of any script (category Nd), read as the ASCII digit of the same value. */
export const DIGIT = String.raw`\p{Nd}`;

/** One character of a class given as regex class source. */
export const oneOf = (source: string) => new RegExp(`^[${source}]$`, "u");
