/**
 * lookalike: text as a reader takes it. Which characters render as nothing, as a blank, a line break, a
 * dash or an arrow (Unicode's properties), which are drawn like an ASCII character (NFKC and Unicode's
 * confusables), and the plain form that folds them all, so a shape of text is told from its imitations the
 * same way wherever it is matched. Knows nothing of funes.
 */
export { ARROW, BLANK, CONTROL, DASH, DIGIT, HIDDEN, LINE_BREAK, MARK, oneOf } from "./classes.js";
export { CONFUSABLES } from "./confusables.js";
export { plainForm } from "./plain-form.js";
