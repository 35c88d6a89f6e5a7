/**
 * Catalogue: shapes that belong to no one vendor — private keys, JWTs, credentials in URLs, auth headers,
 * `curl -u`, and high-entropy values assigned to secret-looking names (env files, YAML, JSON, TOML, shell
 * flags, connection strings). The generic rules decide with `looksSecret`, whose thresholds were chosen on
 * measurements (docs/secret-coverage.md): real fixture transcripts and this repository's own source.
 */
import { END_VALUE, entropy, type SecretRule, token, wordsIdentifier } from "./catalogue.js";

/** Placeholders and references that are not secrets themselves. */
const PLACEHOLDER =
  /x{4,}|\*{3,}|\.{3}|<|>|\$\{|\$\(|\{\{|%[sd](?![A-Za-z0-9])|%\(|%\{|^%[A-Za-z_]\w*%|example|sample|your|changeme|placeholder|dummy|redacted|xxxx|here$|^none$|^null$|^true$|^false$|^undefined$|^env\b|process\.env|os\.environ|getenv/i;

/**
 * A shell or template variable standing for the value (`$DB_PASSWORD`, `$token`, `$1`); a value that only
 * starts with `$` (`$Qr5UyNdp…`, mixed case, a password) is not one. Case-sensitive, unlike PLACEHOLDER.
 */
const REFERENCE = /^\$(?:\d$|[A-Z_][A-Z0-9_]*$|[a-z_][a-z0-9_]*$)/;

/** A password hash in crypt's format (`$2b$12$…` bcrypt, `$argon2id$…`, `$6$…` SHA-512 crypt): no secret. */
const CRYPT_HASH = /^\$(?:2[abxy]?|1|5|6|7|y|gy|argon2(?:id|i|d)|scrypt|pbkdf2[\w-]*|sha\d*|md5)\$/;

/** True when `v` is a placeholder, a reference or a password hash rather than a value. */
function placeholder(v: string): boolean {
  return PLACEHOLDER.test(v) || REFERENCE.test(v) || CRYPT_HASH.test(v);
}

/** Words documentation puts where a password goes. */
const PLACEHOLDER_WORD = /^(?:pass(?:word|wd)?|pwd|secret|token|key|user(?:name)?|pw|apikey|api_key|admin)$/i;

/** Shapes that are identifiers, paths or references rather than secret values. */
function looksLikeCode(v: string): boolean {
  return (
    /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v) || // an environment variable's name
    /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(v) || // a dotted path (settings.SECRET_KEY, a?.b)
    wordsIdentifier(v) ||
    typeName(v) ||
    /^[a-z]+(?:[_-][a-z]+)+$/.test(v) || // snake/kebab words
    /^(?:[.~]?\/|[a-z][a-z0-9+.-]*:\/\/)/i.test(v) || // a path or URL
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) || // a UUID
    /^\d+(?:\.\d+)*$/.test(v) // a number or version
  );
}

/**
 * A type or class name with an acronym in it (a TypeScript annotation's `GPUComputePassEncoder`,
 * `HTTPClient`; wordsIdentifier reads the others): letters only, camel-case words of three letters or more
 * (random letters make words of one or two).
 */
export function typeName(v: string): boolean {
  if (!/^[A-Za-z]+[;,]?$/.test(v) || !/[A-Z]{2}/.test(v)) return false;
  const words = v.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
  return words.length >= 2 && words.every((w) => w.length >= 3);
}

/**
 * Shapes of names and references that a token/secret/key name is often set to: a secret's name
 * (`app-secret-v2-2024`), a cloud resource (`arn:aws:…`, `urn:…`, `sha256:…`), a lower-case resource path
 * (`projects/123/secrets/db/versions/latest`). Not applied under password names, where a word-made value
 * may well be the password.
 */
function looksLikeName(v: string): boolean {
  return (
    /^(?:[a-z]+\d*|\d+)(?:[_.-](?:[a-z]+\d*|\d+))+$/i.test(v) ||
    /^[a-z][a-z0-9+.-]{1,15}:[a-z/]/i.test(v) ||
    /^[a-z0-9._-]+(?:\/[a-z0-9._-]+){2,}$/.test(v)
  );
}

/**
 * Minimum entropy (bits per character) of a value under a password name, and under a token/secret/key name.
 * Chosen on the measurements in docs/secret-coverage.md: a little under the lowest entropy of the measured
 * secrets (generated keys and passwords, word-like passwords, 16-hex keys), which they all pass; on the clean texts
 * measured, the other conditions (a digit, two character classes, not code or a placeholder) already
 * reject every captured value, so the margin goes to keeping low-entropy keys out of the findings.
 */
export const GENERIC_ENTROPY = { strong: 2.5, weak: 3 } as const;

/**
 * Is a value assigned to a secret-looking name a secret? `strong`: the name is a password/connection key,
 * where short mixed values count; otherwise (token, secret, key…) only long high-entropy values do.
 */
export function looksSecret(value: string, strong: boolean, minEntropy?: number): boolean {
  // Frameworks mark an encoded key with its encoding (Laravel's `APP_KEY=base64:…`): judge what follows.
  const v = value.replace(/^(?:base64|hex):(?=.{16})/i, "");
  if (placeholder(v)) return false;
  // Under a password's name, four words or more (`correct-horse-battery-staple`) are a passphrase.
  if (strong && passphrase(v)) return true;
  if (looksLikeCode(v)) return false;
  if (!strong && looksLikeName(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(v)).length;
  // One case of letters only counts under a password's name when long and drawn at random (few vowels), or
  // when it is words run together (`correcthorsebatterystaple`), a passphrase with its separators left out.
  if (strong && /^(?:[a-z]{12,}|[A-Z]{12,})$/.test(v))
    return (
      (v.replace(/[^aeiouAEIOU]/g, "").length / v.length < 0.3 && entropy(v) >= 2.8) || gluedPassphrase(v)
    );
  if (strong) return v.length >= 6 && classes >= 2 && entropy(v) >= (minEntropy ?? GENERIC_ENTROPY.strong);
  return (
    v.length >= 16 &&
    (classes >= 2 || randomLetters(v)) &&
    (/[0-9]/.test(v) || randomLetters(v)) &&
    entropy(v) >= (minEntropy ?? GENERIC_ENTROPY.weak)
  );
}

/** Words a name or a placeholder is made of, not a passphrase's. */
const NAME_WORD =
  /pass|secret|key|token|change|your|example|default|admin|user|name|here|field|input|hint|hash|env|file|path|value|config/i;

/**
 * Words run together into a passphrase (`correcthorsebatterystaple`): 18 letters or more of one case (a
 * single English word is rarely that long), varied, not an alphabet run, and no word that makes it a
 * placeholder or a name (`yourpasswordhere`, `changemechangeme`; NAME_WORD's short words, such as `key` and
 * `user`, hide inside other words: `monkey`).
 */
function gluedPassphrase(v: string): boolean {
  return (
    v.length >= 18 &&
    entropy(v) >= 3 &&
    !/pass|secret|token|change|example|default|placeholder|dummy|sample|redacted/i.test(v) &&
    !/abcdef|ghijkl|mnopq|qrstuv|uvwxyz/i.test(v)
  );
}

/** Four words of three letters or more joined by `-`, `_`, `.` or a blank: a diceware passphrase. */
function passphrase(v: string): boolean {
  return /^[a-z]{3,}(?:[-_. ][a-z]{3,}){3,}$/.test(v) && v.length >= 20 && !NAME_WORD.test(v);
}

/**
 * A run of letters drawn at random (a key with no digit in it): 20 letters or more (24 in one case), enough
 * entropy, and either both cases in short words (camel-case words run long) or one case with few vowels
 * (words have about two in five letters; random letters one in five).
 */
export function randomLetters(v: string): boolean {
  if (v.length < 20 || !/^[A-Za-z]+$/.test(v) || entropy(v) < 3.8) return false;
  const upper = v.replace(/[^A-Z]/g, "").length;
  const lower = v.length - upper;
  if (upper > 0 && lower > 0) {
    // Camel-case words average 4.5 letters or more; random mixed case about two.
    const words = v.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
    const mean = words.reduce((n, w) => n + w.length, 0) / Math.max(1, words.length);
    return upper >= 0.25 * v.length && lower >= 0.25 * v.length && mean < 3.4;
  }
  const vowels = v.replace(/[^aeiouAEIOU]/g, "").length;
  return v.length >= 24 && vowels / v.length < 0.33 && !/abcdef|ghijkl|mnopq|qrstuv|uvwxyz/i.test(v);
}

/**
 * The comma between a call's first two arguments when both are quoted strings (`setProperty("x", "…")`,
 * `put('token', '…')`); a comma in a list of strings (`["token.json", "config.json"]`) is not one.
 */
export const PAIR_COMMA = String.raw`,(?<=\([ \t]*\\{0,3}["'][\w.:-]{1,80}\\{0,3}["'][ \t]*,)(?=[ \t]*\\{0,3}["'])`;

/**
 * Between a secret-looking name and its value: closing quotes or brackets (`os.environ["X"] = `), then
 * `=`, `:`, `:=`, `=>`, or the comma of a call's name/value pair (PAIR_COMMA), then opening quotes.
 */
const ASSIGN = String.raw`[\s'"\\\]]{0,5}(?:=>|:=|=|:|${PAIR_COMMA})[\s'"\x60\\]{0,6}`;

/** Names whose values are passwords (short values count). */
export const STRONG =
  "password|passwd|passphrase|pwd|db_pass|mysql_pwd|pgpassword|(?<![a-z])pass(?:code)?(?![a-z])|[_.-]pw(?![a-z])|(?<![a-z])psk(?![a-z])|pre[_.-]?shared[_.-]?key";
/** Names whose values are keys and tokens (only long random values count). */
export const WEAK =
  "secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|client[_.-]?secret|credentials?|auth|[_.-]sk(?![a-z0-9])";

/** More names of keys and tokens: signing material, and personal access tokens (`GITHUB_PAT`). */
export const KEY_MATERIAL = "hmac|salt(?<=[_.-]salt)|pepper|app[_.-]?key|pat(?<![a-z]pat)(?![a-z])";

/** A value's characters: anything but whitespace, quotes, escapes, separators and brackets. */
const VALUE = String.raw`[^\s'"\x60\\;,<>(){}\[\]]`;

/** A token's characters (keys and tokens are drawn from base64/base64url/hex alphabets). */
const TOKEN_CHAR = "[A-Za-z0-9_.~+/=:%-]";

/**
 * A value under a secret name: up to 299 token characters ending the value (tried first: most values are
 * short), or the first 300 of a longer one
 * (an STS session token, a long JWT-like blob), which the rule's `extend` then redacts to its end. The bound
 * keeps hostile texts (`token=token=…`) linear.
 */
const LONG_VALUE = `(${TOKEN_CHAR}{16,299}${END_VALUE}|${TOKEN_CHAR}{300})`;

/** Names ending in a word that says what follows is a credential, assigned right after it. */
const CREDENTIAL_NAME_END =
  /^(?:secret|token|api[_.-]?key|apikey|password|credentials?)[\s'"\\\]]{0,5}(?:=|:)/i;
/** Name heads under which a UUID-valued token is a cursor or an id, not a credential. */
const ID_TOKEN_HEAD =
  /(?:page|next|prev|continuation|request|trace|correlation|sync|cursor|idempotency|pagination|resume|client|device|install|tracking)[_.-]?$/i;

/**
 * A UUID assigned to a name that ends in token/secret/api key (`CONSUL_HTTP_TOKEN`, `NOMAD_TOKEN`, Heroku and
 * Snyk keys): several services issue UUIDs as credentials. Not under a name that makes it an id or a cursor
 * (`page_token`, `request_token`, `token_id`).
 */
function uuidCredential(v: string, m: RegExpExecArray): boolean {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return false;
  if (!CREDENTIAL_NAME_END.test(m[0])) return false;
  return !ID_TOKEN_HEAD.test(m.input.slice(Math.max(0, m.index - 24), m.index));
}

/** A rule for a long high-entropy value under one of `names` (assigned, or given as a `--flag`). */
function weakNamed(o: {
  id: string;
  description: string;
  names: string;
  keywords: readonly string[];
  gitleaks?: readonly string[];
}): SecretRule {
  return token({
    id: o.id,
    description: o.description,
    keywords: o.keywords,
    source: String.raw`(?:${o.names})[\w.-]{0,24}?${ASSIGN}${LONG_VALUE}|--(?:${o.names})[\w-]{0,20}(?:=|\s+)(?:\\?["'])?${LONG_VALUE}`,
    edge: false,
    flags: "i",
    group: 1,
    check: (s, m) => looksSecret(s, false) || uuidCredential(s, m),
    extend: new RegExp(`${TOKEN_CHAR}*`, "y"),
    ...(o.gitleaks === undefined ? {} : { gitleaks: o.gitleaks }),
  });
}

/** Generic rules. */
export function genericRules(): SecretRule[] {
  return [
    token({
      id: "private-key",
      description:
        "PEM/OpenSSH/PGP private keys, also with JSON-escaped newlines or cut off before their END line",
      keywords: ["-----begin"],
      source: String.raw`-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:\\[nr]|[\sA-Za-z0-9+/=:,-])*)`,
      edge: false,
      gitleaks: ["private-key"],
    }),
    token({
      id: "jwt",
      description: "JSON Web Token (eyJ….eyJ….signature), also an unsigned one",
      keywords: ["eyj"],
      source: String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_/\\-]{8,}\.(?:[A-Za-z0-9_/\\-]{10,}={0,2})?`,
      gitleaks: ["jwt"],
    }),
    token({
      id: "jwt-base64",
      description: "a JWT, base64-encoded again (ZXlK…)",
      keywords: ["zxlk"],
      source: "ZXlK[A-Za-z0-9+/]{40,}={0,2}",
      check: (s) => {
        try {
          return /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]/.test(atob(s.slice(0, s.length - (s.length % 4))));
        } catch {
          return false;
        }
      },
      gitleaks: ["jwt-base64"],
    }),
    token({
      id: "url-credentials",
      description:
        "a password in a URL's user info (scheme://user:password@host), also without a TLD or user",
      keywords: ["://"],
      source: String.raw`[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>\x60]{0,128}:([^\s/?#@"'<>\x60]{3,256})@[^\s/?#"'<>\x60]+`,
      group: 1,
      // A password equal to its user name is a service's default (`guest:guest` for RabbitMQ), not a secret.
      check: (s, m) => !placeholder(s) && !PLACEHOLDER_WORD.test(s) && /:\/\/([^:]*):/.exec(m[0])?.[1] !== s,
    }),
    token({
      id: "auth-header",
      description: "Authorization: Bearer/Basic/Token credentials and X-API-Key style headers",
      keywords: ["bearer", "basic", "authorization", "api-key", "x-auth-token", "apikey"],
      source: String.raw`(?:(?:Authorization|Proxy-Authorization)["'\\]{0,4}\s*[:=]\s*["'\\]{0,6}(?:Bearer|Basic|Token|Bot|token)\s+|(?:X-[A-Za-z-]{0,20}(?:Api-?Key|Auth-Token|Token)|Api-?Key)["'\\]{0,4}\s*:\s*["'\\]{0,6}|\bBearer\s+)([A-Za-z0-9_~+/.=-]{12,}(?::[A-Za-z0-9_~+/.=-]{8,})?)`,
      edge: false,
      flags: "i",
      group: 1,
      check: (s) =>
        !placeholder(s) && !looksLikeCode(s) && (/[0-9]/.test(s) || s.length >= 24) && entropy(s) >= 3,
      gitleaks: ["curl-auth-header"],
    }),
    token({
      id: "curl-user",
      description: "curl -u/--user user:password",
      keywords: ["curl"],
      source: String.raw`\bcurl\b[^\n]{0,400}?\s(?:-u|--user)(?:=|\s+)(?:\\?["'])?[^\s:"'\\]{1,64}:(?:\\?["'])?([^\s"'\\]{3,128})`,
      edge: false,
      group: 1,
      check: (s) => !/^\$\{?[A-Za-z_]+\}?$/.test(s),
      gitleaks: ["curl-auth-user"],
    }),
    token({
      id: "password-assignment",
      description: "a value assigned to a password name (env, YAML, JSON, TOML, code, --password flags)",
      keywords: ["pass", "pwd", "psk", "shared", "_pw", "-pw", ".pw"],
      source: String.raw`(?:${STRONG})[\w.-]{0,24}?${ASSIGN}(${VALUE}{6,200})${END_VALUE}|--(?:password|passwd|pass)(?:=|\s+)(?:\\?["'])?(${VALUE}{6,200})${END_VALUE}`,
      edge: false,
      flags: "i",
      group: 1,
      check: (s) => looksSecret(s, true),
      gitleaks: ["hashicorp-tf-password"],
    }),
    weakNamed({
      id: "generic-secret",
      description: "a long high-entropy value assigned to a secret-looking name (token, secret, api_key, …)",
      names: WEAK,
      keywords: ["secret", "token", "key", "credential", "auth", "_sk", "-sk", ".sk"],
      gitleaks: ["generic-api-key"],
    }),
    // Apart from generic-secret, so the text of most chunks (which hold none of these words) never runs it.
    weakNamed({
      id: "key-material",
      description: "a long high-entropy value under an HMAC, salt, pepper, app key or PAT name",
      names: KEY_MATERIAL,
      keywords: [
        "hmac",
        "salt",
        "pepper",
        "app_key",
        "app-key",
        "app.key",
        "appkey",
        "_pat",
        "-pat",
        ".pat",
        "pat=",
        "pat:",
        'pat"',
        "pat'",
      ],
    }),
  ];
}
