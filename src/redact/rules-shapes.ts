/**
 * Catalogue: classes found missing by a third red-team pass (test/helpers/secret-redteam.ts), each written as
 * a shape rather than a vendor: any vendor-prefixed random token (`<prefix>_<random>`, the convention most
 * services now follow), cloud access key ids, extended (BIP32) private keys, cluster join tokens, key files
 * known by their header line, and secrets given to command-line tools and SQL. Shapes are facts from
 * trufflehog's detectors and the tools' documentation; the patterns are funes's.
 */
import { END, END_URL, entropy, type SecretRule, token, wordsIdentifier } from "./catalogue.js";
import { looksSecret } from "./rules-generic.js";

/**
 * First segments that name an identifier, a hash or a build artefact rather than a credential: agents' and
 * model APIs' ids (`toolu_…`, `msg_…`, `call_…`, `chatcmpl-…`), payment objects' ids (`cus_…`, `pi_…`),
 * content hashes (`sha512-…` in lockfiles) and cache keys.
 */
const ID_PREFIX = new Set(
  (
    "toolu srvtoolu msg req call fc rs resp chatcmpl cmpl run step file asst thread vs batch ft ftjob org proj " +
    "user usr sess session evt cus ch pm pi sub in ii price prod acct txn po seti src tok card ba btok py cs ord " +
    "inv il dpl prj team sha sha1 sha224 sha256 sha384 sha512 md5 blake2b blake3 xxh h1 commit blob tree hash " +
    "digest id uid uuid ulid trace span chunk node npm yarn pnpm cache build job task pod img image layer " +
    "item obj object doc page row event conv conversation turn block agent tool toolcall ws diff app client cp"
  ).split(" "),
);

/** Segments that say the token is a secret (`ak_live_…`, `ramp_sec_…`, `thog-secret-…`, `rh-api-…`). */
const SECRET_SEGMENT =
  /^(?:live|prod|sec|secret|key|api|apikey|token|tkn|pat|sk|ak|auth|pass|pwd|priv|private|oauth|bot|svc|sa|master)$|secret|token|passw/i;

const UUID_RUN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Does `run` (letters and digits) look drawn at random rather than written: long enough, letters and digits
 * interleaved (random alphanumerics switch between them often, identifiers seldom) or both cases in even
 * measure (camel-case words are mostly lower case), and enough entropy. Hex needs more length.
 */
export function randomRun(run: string): boolean {
  const hex = /^(?:[0-9a-f]+|[0-9A-F]+)$/.test(run);
  if (run.length < (hex ? 30 : 20)) return false;
  let digits = 0;
  let upper = 0;
  let lower = 0;
  let switches = 0;
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    if (digit) digits++;
    else if (c >= 65 && c <= 90) upper++;
    else lower++;
    if (i > 0) {
      const p = run.charCodeAt(i - 1);
      if (digit !== (p >= 48 && p <= 57)) switches++;
    }
  }
  const letters = upper + lower;
  // Camel-case words are long runs of one case (`encodeBase64StringUtf8`: 4.75 letters a word); a random
  // mixed-case run's words are about 2 letters (3.5 or more in under 1 in 1,000 runs of 28).
  if (upper > 0 && lower > 0 && wordLength(run) >= 3.4) return false;
  const interleaved = digits >= 2 && switches / (run.length - 1) >= 0.12;
  const evenCases = digits >= 1 && upper >= 0.3 * letters && lower >= 0.3 * letters && !wordsIdentifier(run);
  if (!interleaved && !evenCases) return false;
  return entropy(run) >= (hex ? 3.2 : 3.5);
}

/** Mean length of the letter words of `run` split as camel case (`getHTTPResponse` → get, HTTP, Response). */
function wordLength(run: string): number {
  const words = run.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
  if (words.length === 0) return 0;
  return words.reduce((n, w) => n + w.length, 0) / words.length;
}

/** A vendor-prefixed token: is its first segment a credential's prefix, and is the rest random? */
function prefixedSecret(tokenText: string): boolean {
  if (/example|placeholder|dummy|x{6}/i.test(tokenText)) return false;
  const segments = tokenText.split(/[_.-]/);
  const head = segments[0] ?? "";
  // Vendors write prefixes in one case (`flb`, `NRIQ`, `na1`); a mixed-case head is the start of a random
  // string (a base64url hash), not a prefix.
  if (!/^(?:[a-z][a-z0-9]*|[A-Z][A-Z0-9]*)$/.test(head)) return false;
  const first = head.toLowerCase();
  const marked = segments.slice(0, -1).some((s) => SECRET_SEGMENT.test(s));
  if (!marked && ID_PREFIX.has(first)) return false;
  // A UUID after a prefix is a credential only when a segment says so (`rh-api-<uuid>`, not `user-<uuid>`).
  if (UUID_RUN.test(tokenText)) return marked;
  const rest = tokenText.slice(head.length);
  // After a dot, one run (`na1.<base64>`, `pk.<hex>`): a dotted path (`window.__DATA__.build_…`) is code.
  if (rest[0] === "." && !/^\.[A-Za-z0-9+/=]+$/.test(rest)) return false;
  // A path or URL (`github.com/acme/…`): a word before the first slash.
  if (/^.[a-z]{2,}\//.test(rest)) return false;
  // GitHub's GraphQL node ids (`PR_kwDO…`, `I_kgDO…`).
  if (/^_k[wg][A-Z]O/.test(rest)) return false;
  // Member access further on (`require_utils.convertIPv4…`): code.
  if (/\.[a-z]{3}/.test(rest.slice(1))) return false;
  // Time-ordered ids (ULIDs, TypeIDs, Anthropic's `env_011C…`, `sesn_01…`) start with `01`.
  if (/^.01[0-9A-Za-z]{20,28}$/.test(rest)) return false;
  let longest = "";
  for (const run of rest.split(/[^A-Za-z0-9+/]+/)) if (run.length > longest.length) longest = run;
  // Hex after a word and a dash is a content hash or a cache key (`deps-Linux-<sha256>`, `build-<sha>`);
  // vendors put hex keys after `_` (`rootly_…`, `slk_…`) or under a secret word (`thog-secret-…`).
  const at = rest.indexOf(longest);
  if (/^(?:[0-9a-f]+|[0-9A-F]+)$/.test(longest) && !marked && rest[at - 1] === "-") return false;
  // Without a secret word in a lower-case prefix, ids of 24 to 27 characters (`call_…`, KSUIDs) are too
  // common: the random run must be longer.
  // An upper-case prefix (`NRIQ-`, `BBFF-`) is no id convention: 20 characters do.
  const upperHead = /^[A-Z]{2}/.test(head);
  if (!marked && !upperHead && longest.length < 28 && !/^(?:[0-9a-f]+|[0-9A-F]+)$/.test(longest)) {
    if (!/^[_-][A-Za-z0-9_-]{29,}$/.test(rest)) return false;
  } else if (randomRun(longest)) return !base64OfText(longest);
  // A base64url body cut by its own `-`/`_` into short runs (`sk_cB0X…-bPvAv-LrJO_YxZ…`): random when no
  // piece is a word or a number, as the pieces of an identifier are.
  if (!/^[_-][A-Za-z0-9_-]{29,}$/.test(rest)) return false;
  const pieces = rest
    .slice(1)
    .split(/[_-]/)
    .filter((p) => !SECRET_SEGMENT.test(p));
  if (pieces.length < 2 || pieces.some((p) => p.length >= 3 && /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+|\d+)$/.test(p)))
    return false;
  return randomRun(pieces.join(""));
}

/**
 * True when `run` is base64 of readable text that is not JSON (`YmVkcm9jay5hbWF6b25hd3MuY29t` is
 * "bedrock.amazonaws.com"): random bytes almost never decode to printable text, and a token whose payload
 * is JSON (`…_eyJ…`) is still a token.
 */
function base64OfText(run: string): boolean {
  if (run.length < 16 || run.startsWith("eyJ")) return false;
  const bytes = Buffer.from(run.slice(0, run.length - (run.length % 4)), "base64");
  for (const b of bytes) if (b < 32 || b > 126) return false;
  return true;
}

/** Rules for the red-team classes. */
export function shapeRules(): SecretRule[] {
  return [
    token({
      id: "prefixed-token",
      description:
        "a vendor-prefixed random token (<prefix>_<random>, <prefix>-<random>, <prefix>.<random>): a short first segment, then a long random run",
      // The separators (`_`, `-`, `.`) are in most texts: the rule runs on every text. It is anchored on the
      // separator (rarer than a letter), looks ahead for a long run holding a digit (random runs do), and only
      // then back for the prefix; the finding starts at the separator (the prefix is no secret), and
      // `prefixedSecret` reads the prefix.
      keywords: [],
      source: String.raw`[_.-](?=[A-Za-z0-9_.+/-]{19})(?=[A-Za-z_.+/-]{0,39}[0-9])(?<=(?:^|[^A-Za-z0-9_.+/@%\\-]|\\[nrt])[A-Za-z][A-Za-z0-9]{1,11}[_.-])[A-Za-z0-9_.+/=-]{19,300}(?![A-Za-z0-9_+/=-])`,
      edge: false,
      check: (s, m) => {
        if (/\.[a-z]{1,12}$/.test(s)) return false;
        const before = m.input.slice(Math.max(0, m.index - 14), m.index);
        // After a JSON/shell escape (`\nBBDC-…` in escaped tool output), the prefix starts past the escape.
        const head = /(?:\\[nrt]|^|[^A-Za-z0-9])([A-Za-z][A-Za-z0-9]{1,11})$/.exec(before)?.[1] ?? "";
        return prefixedSecret(head + s.replace(/[.=]+$/, ""));
      },
      extend: /[A-Za-z0-9_+/=-]*/y,
      fallback: true,
    }),
    token({
      id: "cloud-access-key-id",
      description:
        "cloud access key ids of the AKIA kind: Tencent (AKID), Volcengine (AKLT), Google Cloud Storage HMAC (GOOG1…), DigitalOcean Spaces (DO00…)",
      keywords: ["akid", "aklt", "goog1", "do00"],
      source: `(?:AKID[A-Za-z0-9]{32}|AKLT[A-Za-z0-9_-]{30,60}|GOOG1[A-Z0-9]{20,70}|DO00[A-Z0-9]{16,20})${END}`,
      check: (s) => entropy(s) >= 3.5,
    }),
    token({
      id: "bip32-private-key",
      description: "BIP32 extended private keys (xprv/yprv/zprv/tprv…, base58)",
      keywords: ["prv"],
      source: `[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}${END}`,
    }),
    token({
      id: "cluster-join-token",
      description:
        "k3s/RKE2 node tokens (K10<ca hash>::<user>:<password>) and Docker Swarm join tokens (SWMTKN-1-…)",
      keywords: ["k10", "swmtkn-"],
      source: String.raw`(?:K10[0-9a-f]{64}::[^\s:"']{1,64}:[^\s"']{6,128}|SWMTKN-1-[a-z0-9]{40,60}-[a-z0-9]{20,30})${END_URL}`,
    }),
    token({
      id: "salesforce-session",
      description: "Salesforce session ids and access tokens (00D<org id>!<token>)",
      keywords: ["00d"],
      source: `00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.]{80,120}${END}`,
    }),
    token({
      id: "tableau-pat",
      description: "Tableau personal access token secret (<base64>==:<32 alphanumerics>)",
      keywords: ["==:"],
      source: `[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}${END}`,
      edge: false,
    }),
    token({
      id: "url-token-user",
      description: "a random token as a URL's user name, with no password (https://<token>@github.com/…)",
      keywords: ["://"],
      source: String.raw`[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/([A-Za-z0-9_-]{20,255})@[A-Za-z0-9.-]+`,
      group: 1,
      // A Sentry DSN's user name is its public key, meant to ship in browser code.
      check: (s, m) => randomRun(s.replace(/[_-]/g, "")) && !/@[^/\s]*sentry/i.test(m[0]),
    }),
    token({
      id: "jwk-private",
      description: "the private members of a JSON Web Key (d, p, q, dp, dq, qi; k of a symmetric key)",
      keywords: ['"kty'],
      // Anchored on the member, in texts that name a key type (the keyword): a search from each `"kty"` to
      // its member would rescan the same text from every `"kty"` of a hostile one.
      source: String.raw`\\{0,3}"(?:d|p|q|dp|dq|qi|k)\\{0,3}"\s*:\s*\\{0,3}"([A-Za-z0-9_-]{20,4000})`,
      edge: false,
      group: 1,
      check: (s) => randomRun(s.replace(/[_-]/g, "").slice(0, 64)),
    }),
    token({
      id: "rsa-key-xml",
      description: ".NET RSA private keys as XML (<RSAKeyValue> with <D>, <P>, <Q>, <DP>, <DQ>, <InverseQ>)",
      keywords: ["<rsakeyvalue"],
      source: String.raw`<(D|P|Q|DP|DQ|InverseQ)>([A-Za-z0-9+/=]{20,2000})</\1>`,
      edge: false,
      group: 2,
    }),
    token({
      id: "key-listing",
      description:
        "keys in a cloud CLI's key listing (az storage account keys list: keyName … value), the value of a key named key1/primary/secondary",
      keywords: ["keyname"],
      source: String.raw`\\{0,3}"keyName\\{0,3}"\s*:\s*\\{0,3}"[^"\\]{1,64}\\{0,3}"[^{}]{0,400}?\\{0,3}"value\\{0,3}"\s*:\s*\\{0,3}"([A-Za-z0-9+/=_-]{20,400})`,
      flags: "i",
      edge: false,
      group: 1,
    }),
    token({
      id: "key-file-line",
      description:
        "key files known by a header line: minisign/signify secret keys, Vault unseal and recovery keys",
      keywords: ["untrusted comment", "unseal key", "recovery key"],
      source: String.raw`untrusted comment:[^\n\\]{0,80}secret key(?:\\n|\r?\n)([A-Za-z0-9+/=]{40,400})|(?:Unseal|Recovery) Key(?: \d{1,2})?:\s*([A-Za-z0-9+/=_-]{20,200})`,
      edge: false,
      group: 1,
      flags: "i",
    }),
  ];
}

/** A value on a command line: up to the next whitespace or quote. */
const ARG = String.raw`(?:\\{0,3}["'])?([^\s"'\\]{4,256})`;

/** Secrets given to command-line tools in their own syntax, SQL statements, cookies and connection strings. */
export function syntaxRules(): SecretRule[] {
  const strong = (s: string) => looksSecret(s, true);
  return [
    token({
      id: "cli-password-flag",
      description:
        "passwords given to tools in their own flags: openssl -passout/-passin pass:, keytool/jarsigner -storepass/-keypass, zip/unzip -P, 7z -p, sqlcmd/bcp -P, mongo* -p, ldap* -w, smbclient -U user%pw, htpasswd -b",
      keywords: [
        "pass:",
        "storepass",
        "keypass",
        "zip",
        "7z",
        "sqlcmd",
        "bcp ",
        "mongo",
        "ldap",
        "smbclient",
        "htpasswd",
      ],
      source: String.raw`-pass(?:in|out|word)?\s+pass:${ARG}|-(?:src|dest|new)?(?:store|key)pass\s+${ARG}|\b(?:zip|unzip|zipcloak)\b[^\n|;&]{0,120}?\s-P\s+${ARG}|\b7za?\b[^\n|;&]{0,120}?\s-p((?:\\?["'])?[^\s"'\\-][^\s"'\\]{3,255})|\b(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]{0,120}?\s-P\s*${ARG}|\bmongo(?:sh|dump|restore|export|import|stat|top)?\b[^\n|;&]{0,120}?\s(?:-p|--password)\s+${ARG}|\bldap[a-z]{0,8}\b[^\n|;&]{0,120}?\s-w\s+${ARG}|\bsmbclient\b[^\n|;&]{0,120}?\s(?:-U|--user(?:name)?)[=\s]+[^\s%"']{1,64}%${ARG}|\bhtpasswd\s+-[a-zA-Z]*b[a-zA-Z]*\s+(?:-\S+\s+)*\S+\s+\S+\s+${ARG}`,
      edge: false,
      group: 1,
      check: strong,
    }),
    token({
      id: "cli-positional-secret",
      description:
        "secrets a tool takes as positional or short-flag arguments: mc alias set <name> <url> <access> <secret>, echo <secret> | … --password-stdin, az login --service-principal -p <secret>",
      keywords: ["alias set", "password-stdin", "service-principal"],
      source: String.raw`\bmc\s+(?:alias\s+set|config\s+host\s+add)\s+\S+\s+\S+\s+\S+\s+${ARG}|\becho\s+(?:-n\s+)?${ARG}(?:\\{0,3}["'])?\s*\|[^\n|;&]{0,120}?--password-stdin|\baz\s+login\b[^\n|;&]{0,120}?--service-principal[^\n|;&]{0,160}?\s(?:-p|--password)\s+${ARG}`,
      edge: false,
      group: 1,
      check: (s) => looksSecret(s, true, 3),
    }),
    token({
      id: "sql-password",
      description: "passwords in SQL: CREATE/ALTER USER|ROLE … PASSWORD '…', IDENTIFIED BY '…'",
      keywords: ["password '", 'password "', "identified by", "password \\'", 'password \\"'],
      source: String.raw`\b(?:PASSWORD|IDENTIFIED\s+BY)\s+(?:\\{0,3}['"])([^'"\\\n]{4,128})\\{0,3}['"]`,
      edge: false,
      flags: "i",
      group: 1,
      check: strong,
    }),
    token({
      id: "cli-config-secret",
      description:
        "secrets given to a tool's config setter: npm/yarn/pnpm config set …:_authToken <value>, git config …token <value>, poetry config pypi-token.… <value>, aws configure set aws_secret_access_key <value>, rclone config create … secret_access_key <value>",
      keywords: [
        "config set",
        "config --",
        "config -g",
        "poetry config",
        "git config",
        "configure set",
        "rclone config",
      ],
      source: String.raw`\b(?:(?:npm|yarn|pnpm|git|poetry|composer|pip|gem|bundle|conda)\s+config|aws\s+configure|rclone\s+config\s+(?:create|update)\s+\S+(?:\s+s3)?(?:\s+\S+\s+\S+){0,6}?)\s+(?:set\s+|-{1,2}[\w-]+\s+)*["']?[^\s"'=]*(?:token|secret|password|passwd|_auth|apikey|api-key|api_key|oauth)[^\s"'=]*["']?\s+${ARG}`,
      edge: false,
      flags: "i",
      group: 1,
      // A random value passes even where it starts like a path (AWS secret keys may start with `/`).
      check: (s) => looksSecret(s, true, 3) || randomRun(s.replace(/[^A-Za-z0-9]/g, "")),
    }),
    token({
      id: "session-cookie",
      description:
        "session and auth cookies: Cookie: headers, curl -b/--cookie (session, sid, token, auth, jwt)",
      keywords: ["cookie", "-b "],
      // The whole cookie list is taken (linear: one bounded run per start) and judged pair by pair.
      source: String.raw`(?:\bCookie["'\\]{0,3}\s*:\s*["'\\]{0,3}|\s(?:-b|--cookie)\s+\\{0,3}["']?)([^\s;"'=\\]{1,64}=[^\n"'\\]{1,600})`,
      edge: false,
      flags: "i",
      group: 1,
      check: (s) =>
        s.split(";").some((pair) => {
          const eq = pair.indexOf("=");
          const value =
            pair
              .slice(eq + 1)
              .trim()
              .split(/\s/)[0] ?? "";
          return /sess|sid|token|auth|jwt|remember/i.test(pair.slice(0, eq)) && looksSecret(value, false);
        }),
    }),
    token({
      id: "seed-phrase",
      description: "a wallet's recovery phrase (12 to 24 lower-case words) under a mnemonic/seed phrase name",
      keywords: ["mnemonic", "seed", "recovery", "phrase"],
      source: String.raw`(?:mnemonic|seed[_ .-]?(?:phrase|words)|recovery[_ .-]?phrase|secret[_ .-]?phrase|wallet[_ .-]?phrase)[\w.-]{0,24}?[\s'"\\\]]{0,5}(?:=|:)[\s'"\x60\\]{0,6}((?:[a-z]{3,8} ){11,23}[a-z]{3,8})(?![a-z])`,
      edge: false,
      flags: "i",
      group: 1,
      // An unquoted phrase runs on into the prose after it: twelve words or more is a phrase (prose has
      // words of one or two letters, which no wordlist has).
      check: (s) => new Set(s.split(" ")).size >= 9,
    }),
    token({
      id: "connection-string-braced",
      description: "a braced password in an ODBC/ADO connection string (Pwd={…}; Password={…})",
      keywords: ["pwd={", "password={", "pwd = {", "password = {"],
      source: String.raw`\b(?:Pwd|Password)\s*=\s*\{([^}\n]{4,128})\}`,
      edge: false,
      flags: "i",
      group: 1,
      check: strong,
    }),
    token({
      id: "oracle-logon",
      description:
        "an Oracle logon on a command line (sqlplus/sqlldr/expdp/impdp/rman user/password@service)",
      keywords: ["sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl"],
      source: String.raw`\b(?:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl)\b(?:\s+-\S+)*\s+(?:(?:userid|target)=)?\\{0,3}["']?[A-Za-z][\w$#]{0,30}/([^\s@/"'\\]{3,64})@`,
      edge: false,
      flags: "i",
      group: 1,
      check: strong,
    }),
  ];
}
