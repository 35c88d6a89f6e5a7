/**
 * Our own secret patterns, for what secretlint's recommended preset misses (shared/spec/hub-protocol.md
 * §4.3): AWS key ids, `hf_` tokens with digits, JWTs, credentials in URLs without a TLD, `sk-` keys
 * without OpenAI's marker, private keys (also with JSON-escaped newlines and cut off before their end),
 * and a few common providers the preset lacks.
 */

/** A pattern; `group` names the capture that is the secret (default the whole match). */
export interface PatternRule {
  id: string;
  pattern: RegExp;
  group?: number;
}

/** Each pattern is global; `id` is what `[REDACTED:<id>]` says. */
export const PATTERN_RULES: readonly PatternRule[] = [
  {
    id: "private-key",
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:\\[nr]|[\sA-Za-z0-9+/=:,-])*)/g,
  },
  {
    id: "aws-access-key-id",
    pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[A-Z0-9]{16}(?![A-Z0-9])/g,
  },
  { id: "huggingface", pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g },
  { id: "jwt", pattern: /(?<![\w-])eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{16,}/g },
  {
    id: "url-credentials",
    pattern:
      /\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>`]{1,128}:([^\s/?#@"'<>`]{3,256})@[^\s/?#"'<>`]+/g,
    group: 1,
  },
  {
    id: "openai-like-key",
    pattern: /(?<![\w-])sk-(?:proj-|svcacct-|admin-|ant-[a-z0-9]{2,8}-)?[A-Za-z0-9_-]{32,}/g,
  },
  { id: "stripe", pattern: /(?<![\w])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { id: "google-api-key", pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  { id: "gitlab", pattern: /(?<![\w-])glpat-[A-Za-z0-9_-]{20,}/g },
  { id: "github", pattern: /(?<![\w])(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}(?![A-Za-z0-9])/g },
  { id: "slack", pattern: /(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g },
  {
    id: "aws-secret-access-key",
    pattern:
      /(?:aws_?secret_?(?:access_?)?key|AWS_SECRET_ACCESS_KEY)["'\s:=]{1,6}([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
];
