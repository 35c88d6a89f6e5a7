/**
 * The shape of funes's secret catalogue and the two builders most entries use. A rule is data: an id, what it
 * finds, a pattern, and the keywords of a cheap prefilter (a rule runs on a text only when one of its keywords
 * occurs in it). Formats are facts taken from the widest maintained catalogues (gitleaks' default
 * configuration, trufflehog's detectors) used as a checklist; every pattern here is written for funes.
 */

/** One catalogue entry. */
export interface SecretRule {
  /** What `[REDACTED:<id>]` says. */
  id: string;
  description: string;
  /**
   * Lower-case literals; the pattern runs on a text only if one occurs in it (case-insensitively). Empty:
   * always runs (keep such patterns anchored on something rare, they see every text).
   */
  keywords: readonly string[];
  /** Global pattern; with `group`, also `d` (capture indices). */
  pattern: RegExp;
  /** The capture that is the secret (default: the whole match). */
  group?: number;
  /** Minimum Shannon entropy (bits per character) of the secret, to skip placeholders. */
  entropy?: number;
  /** A last say on a candidate secret (placeholders, identifiers, decodes), given the match and its captures. */
  check?: (secret: string, match: RegExpExecArray) => boolean;
  /** gitleaks default-configuration rule ids this entry answers for (the coverage checklist). */
  gitleaks?: readonly string[];
  /**
   * Sticky pattern of what may continue the secret past the match (a value longer than the pattern's bound
   * is redacted to its end, while the pattern itself stays bounded and fast).
   */
  extend?: RegExp;
  /**
   * The match must start at a token's left edge (see `atEdge`), checked in code after each match. Only for
   * patterns without a leading literal: the others assert the edge in the regex, right after the literal.
   */
  edge?: boolean;
  /**
   * A shape that stands in for rules not written yet (any vendor-prefixed token): its findings are dropped
   * where another rule's finding overlaps them, so the vendor's own rule is the one reported.
   */
  fallback?: boolean;
  /**
   * Only in text as written, not in what unwrapping rebuilds (decoded base64, joined literals): a sentence or
   * a command line is not made by gluing code's string literals together.
   */
  asWritten?: boolean;
}

/**
 * Is `at` a token's left edge in `text`: the start, after a character that cannot be part of a token (not a
 * letter, digit, `_` or `-`), or after a JSON/shell escape (`\n` before a token in escaped tool output is a
 * newline, not the letter n).
 */
export function atEdge(text: string, at: number): boolean {
  if (at === 0) return true;
  const c = text.charCodeAt(at - 1);
  // Tokens hold `-` and `_`: after either, a "token" is only the tail of a longer one.
  const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
  if (!word) return true;
  return (c === 110 || c === 114 || c === 116) && at >= 2 && text.charCodeAt(at - 2) === 92;
}

/** Right edge of an alphanumeric token. */
export const END = "(?![A-Za-z0-9])";
/** Right edge of a token that may hold `_` and `-`. */
export const END_URL = "(?![A-Za-z0-9_-])";
/**
 * Right edge of a value assigned in config: whitespace, a quote, a separator, a closing bracket, an escape, or
 * the `&` before a URL's next query parameter.
 */
export const END_VALUE = String.raw`(?![^\s'"\x60;,)\]}>|\\&])`;

/** Shannon entropy of `s`, bits per character. */
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Longest run an open-ended `{n,}` may take: no credential is longer, and a bound keeps scans linear. */
const MAX_RUN = 1024;

/** Regex for a token's left edge, as `atEdge` decides it. */
const EDGE_BEFORE = String.raw`(?:^|[^A-Za-z0-9_-]|\\[nrt])`;

/**
 * `source` with its token-edge check put right after its leading literal (`sk-` in `sk-[…]{32,}`): the engine
 * still scans fast for the literal, and never starts inside a run that merely contains it (which would rescan
 * the run from each occurrence: quadratic on `sk-sk-sk-…`). Null when the source has no leading literal.
 */
function edgeAfterLiteral(source: string): string | null {
  const m = /^(?:[A-Za-z0-9_~-]|\\\.)+/.exec(source);
  if (m === null) return null;
  let lit = m[0];
  // A quantifier binds the literal's last character: leave that one out.
  if (/^[{*+?]/.test(source.slice(lit.length))) lit = lit.replace(/(?:\\\.|.)$/, "");
  if (lit.length === 0) return null;
  return `${lit}(?<=${EDGE_BEFORE}${lit})${source.slice(lit.length)}`;
}

/** `source` with every `{n,}` bounded by MAX_RUN. */
function bounded(source: string): string {
  return source.replace(/\{(\d+),\}/g, `{$1,${MAX_RUN}}`);
}

/** Options of a token rule. */
export interface TokenOptions {
  id: string;
  description: string;
  keywords: readonly string[];
  /** Regex source of the token; it must start at a token's edge (`atEdge`) unless `edge` is false. */
  source: string;
  flags?: string;
  group?: number;
  entropy?: number;
  edge?: boolean;
  check?: (secret: string, match: RegExpExecArray) => boolean;
  extend?: RegExp;
  gitleaks?: readonly string[];
  fallback?: boolean;
  asWritten?: boolean;
}

/** A token recognisable by its own shape (a prefix, a fixed structure). */
export function token(o: TokenOptions): SecretRule {
  const rule: SecretRule = {
    id: o.id,
    description: o.description,
    keywords: o.keywords,
    pattern: new RegExp(bounded(o.source), `g${o.group === undefined ? "" : "d"}${o.flags ?? ""}`),
  };
  if (o.edge !== false) {
    const withEdge = edgeAfterLiteral(o.source);
    if (withEdge === null) rule.edge = true;
    else rule.pattern = new RegExp(bounded(withEdge), rule.pattern.flags);
  }
  if (o.group !== undefined) rule.group = o.group;
  if (o.entropy !== undefined) rule.entropy = o.entropy;
  if (o.check !== undefined) rule.check = o.check;
  if (o.extend !== undefined) rule.extend = o.extend;
  if (o.gitleaks !== undefined) rule.gitleaks = o.gitleaks;
  if (o.fallback === true) rule.fallback = true;
  if (o.asWritten === true) rule.asWritten = true;
  return rule;
}

/** Options of a keyed rule. */
export interface KeyedOptions {
  id: string;
  description: string;
  /** Lower-case literal names the assignment's key contains (`discord` in `DISCORD_BOT_TOKEN=`). */
  names: readonly string[];
  /** Regex source of the value (matched case-insensitively, like the key). */
  value: string;
  entropy?: number;
  gitleaks?: readonly string[];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * An assignment whose key names a service and whose value has the service's credential shape, in env files,
 * YAML, JSON (also JSON-escaped), TOML and code: `<name>[\w.-]{0,24}` `=`/`:`/`:=`/`=>` optional quotes, value.
 */
export function keyed(o: KeyedOptions): SecretRule {
  const names = o.names.map(escapeRegex).join("|");
  const source = String.raw`(?:${names})[\w.-]{0,24}?[\s'"\\\]]{0,5}(?:=>|:=|::|=|:|,)[\s'"\x60\\=]{0,6}(${o.value})${END_VALUE}`;
  const rule: SecretRule = {
    id: o.id,
    description: o.description,
    keywords: o.names,
    pattern: new RegExp(bounded(source), "gdi"),
    group: 1,
    entropy: o.entropy ?? 2.5,
    check: (v) => !wordsIdentifier(v),
  };
  if (o.gitleaks !== undefined) rule.gitleaks = o.gitleaks;
  return rule;
}

/** True when `s` has a digit, an upper-case and a lower-case letter: random tokens do, identifiers rarely. */
export function mixedAlnum(s: string): boolean {
  return /[0-9]/.test(s) && /[A-Z]/.test(s) && /[a-z]/.test(s);
}

/**
 * An identifier made of words (`getPassword`, `dbPassword`, `Mistral3ForConditionalGeneration`): every
 * capital starts a run of two or more lower-case letters, and there are two runs or more. Random mixed-case
 * strings have capitals side by side or alone.
 */
export function wordsIdentifier(v: string): boolean {
  return /^(?:[a-z]{2,}\d*)?(?:[A-Z][a-z]{2,}\d*)+$/.test(v) && v.split(/(?=[A-Z])/).length >= 2;
}
