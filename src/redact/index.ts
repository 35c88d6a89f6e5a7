/**
 * redact: is this text secret? secretlint's recommended preset plus our own patterns, and the replacement
 * of what they find by `[REDACTED:<rule>]`. Pure: strings in, findings and strings out. Knows nothing of
 * transcripts, chunks, Lance or the Hub.
 */
export { PATTERN_RULES, type PatternRule } from "./rules.js";
export {
  applyRedactions,
  type Finding,
  findingsPerText,
  type Redaction,
  redactTexts,
  scanPatterns,
  scanSecrets,
} from "./scanner.js";
