/**
 * redact: is this text secret? funes's secret catalogue plus secretlint's recommended preset, and the replacement
 * of what they find by `[REDACTED:<rule>]`. Pure: strings in, findings and strings out. Knows nothing of
 * transcripts, chunks, Lance or the Hub.
 */
export { entropy, type SecretRule } from "./catalogue.js";
export { catalogue } from "./rules.js";
export { GENERIC_ENTROPY, looksSecret } from "./rules-generic.js";
export {
  applyRedactions,
  type Finding,
  findingsPerText,
  type Redaction,
  redactTexts,
  scanSecrets,
} from "./scanner.js";
