/**
 * Catalogue: secrets known by the form they are shown in rather than by their shape (issue 33) — a command
 * that reads a named secret and prints it bare (`aws configure get aws_secret_access_key`, `heroku
 * auth:token`, `printenv X_TOKEN`: the name is in the command, not beside the value), a secret named in a
 * sentence ("the Jenkins API token is …", "here's the Azure DevOps PAT: …"), an Authorization scheme no rule
 * names (`SSWS <token>`), and frameworks' own key shapes (Django's SECRET_KEY alphabet, a hex private key in
 * a JavaScript config's `accounts` array, an ECR login token). Display decoration is seen through before
 * these run (display.ts); a command's output in the next block is matched in commandOutputs().
 */
import { END_VALUE, entropy, type SecretRule, token } from "./catalogue.js";
import { looksSecret } from "./rules-generic.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A name that says a secret: in a variable, a file, a field (`aws_secret_access_key`, `DB_PASSWORD`). */
const NAMED = String.raw`[\w.~/-]{0,60}?(?:secret|token|passw(?:or)?d|pass(?![a-z])|pwd|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth|[_.-]key|[_.-]pat(?![a-z]))[\w.-]{0,40}`;

/**
 * Commands that print a secret bare, the secret named in the command: cloud and CI CLIs' token and
 * secret getters, password managers and secret stores, environment and file reads of a secret-named
 * variable or file, and generators of fresh secrets. One line, bounded.
 */
const READS = [
  String.raw`aws\s+configure\s+get\s+${NAMED}`,
  String.raw`aws\s+ecr(?:-public)?\s+get-login-password`,
  String.raw`aws\s+(?:secretsmanager\s+get-secret-value|ssm\s+get-parameters?)\b[^\n|;&]{0,200}?--output[\s=]+text`,
  String.raw`kubectl\s+get\s+secrets?\b[^\n|;&]{0,200}?(?:jsonpath|go-template)`,
  String.raw`(?:gh|glab)\s+auth\s+token`,
  String.raw`heroku\s+(?:auth:token|config:get\s+${NAMED})`,
  String.raw`gcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token`,
  String.raw`az\s+(?:account\s+get-access-token|keyvault\s+secret\s+show)`,
  String.raw`vault\s+(?:(?:kv\s+get|read)\b[^\n|;&]{0,120}?-field[=\s]|print\s+token)`,
  String.raw`op\s+(?:read\s|item\s+get\b[^\n|;&]{0,200}?--(?:fields|reveal))`,
  String.raw`security\s+find-(?:generic|internet)-password\b[^\n|;&]{0,200}?\s-w`,
  String.raw`(?:gopass|pass)\s+show\s`,
  String.raw`lpass\s+show\b[^\n|;&]{0,120}?--password`,
  String.raw`bw\s+get\s+(?:password|totp)`,
  String.raw`doppler\s+secrets\s+get\b`,
  String.raw`terraform\s+output\s+(?:-raw\s+|-json\s+)?${NAMED}`,
  String.raw`fly(?:ctl)?\s+auth\s+token`,
  String.raw`openssl\s+rand\s+-(?:hex|base64)`,
  String.raw`printenv\s+${NAMED}`,
  String.raw`echo\s+["']?\$\{?${NAMED}`,
  String.raw`cat\s+[^\s|;&]*${NAMED}`,
  String.raw`jq\s[^\n|;&]{0,80}?${NAMED}`,
  String.raw`git\s+config\s+(?:--get\s+)?${NAMED}`,
].join("|");

/**
 * A command that reads a named secret. Its start (a prompt, a quote, a line, a pipe's end: not inside a
 * word) is checked by `commandStart`, not in the pattern: a leading look-behind would be tried at every
 * position of every text.
 */
const READ_COMMAND = `(?:${READS})`;

/** True when the match starts a command (not the tail of a word: `recat`, `my-aws`). */
function commandStart(m: RegExpExecArray): boolean {
  return m.index === 0 || !/[\w.-]/.test(m.input.charAt(m.index - 1));
}

/** Lower-case literals the commands start with, for the keyword pass. */
const READ_KEYWORDS = [
  "configure get",
  "get-login-password",
  "get-secret-value",
  "get-parameter",
  "get secret",
  "auth token",
  "auth:token",
  "config:get",
  "print-access-token",
  "print-identity-token",
  "get-access-token",
  "secret show",
  "kv get",
  "vault read",
  "print token",
  "op read",
  "op item",
  "find-generic-password",
  "find-internet-password",
  "pass show",
  "bw get",
  "secrets get",
  "terraform output",
  "openssl rand",
  "printenv ",
  "echo $",
  'echo "$',
  "echo '$",
  "cat ",
  "jq ",
  "git config",
];

/** Is `v`, printed by a command that reads a named secret, the secret (not an error word or a path)? */
function printedSecret(v: string): boolean {
  if (v.startsWith("$") || v.includes("[REDACTED:")) return false;
  return UUID.test(v) || looksSecret(v, true);
}

/** One printed value: a line of its own, the rest of the line blank, then a break, a quote or the end. */
const PRINTED = String.raw`[ \t]*([^\s"'\\\x60]{6,4096})(?=[ \t]*(?:[\r\n"'\x60]|\\[rn]|$))`;

/** A line break, as written or JSON-escaped. */
const BREAK = String.raw`(?:\r?\n|(?:\\r)?\\n)`;

/** Nouns a sentence names a secret by; `key` only with what kind of key it is. */
const NOUN =
  "(?:key(?<=(?:api|access|secret|private|signing|encryption|master|license|deploy|recovery|unseal|root|subscription|auth|app|service|account|storage|admin|shared|function)[ _-]?key)|(?:auth)?token|pat|pass(?:w(?:or)?d|phrase|code)|secret|credentials?)";

/** Words between the noun and the value that say the value is about the secret, not the secret. */
const ABOUT =
  /fingerprint|(?:^|[\s_-])id\b|name|hash|digest|sha|length|size|format|type|prefix|path|file|version|count|expir|scope|header|endpoint|url|field|variable|env/i;

/** Words before `token` that make it an id, a cursor, a count or a model's token. */
const NOT_A_TOKEN =
  /(?:max|min|input|output|total|cache|page|next|prev|request|sync|cursor|continuation|pagination|resume|idempotency|id|design|special|end|stop|start|bos|eos|pad|unk|mask|sep|cls|new|num|per|each|first|last|one)[ _-]$/i;

/**
 * A sentence's value: token characters, not ending on punctuation (no brackets, commas or semicolons: a
 * call, a subscript or an argument list is code, and a key with them has its own rule).
 */
const PROSE_VALUE = String.raw`[^\s'"\x60<>()\[\]{}\\,;]{5,299}[^\s'"\x60<>()\[\]{}\\.,;:!?]`;

/** Django's `get_random_secret_key()` alphabet. */
const DJANGO = String.raw`[a-z0-9!@#$%^&*(\-_=+)]`;

/** Rules of the forms. */
export function formRules(): SecretRule[] {
  return [
    token({
      id: "command-output",
      description:
        "the value a command prints bare when the command names the secret it reads (aws configure get aws_secret_access_key, heroku auth:token, kubectl get secret -o jsonpath, vault kv get -field, op read, printenv X_TOKEN…)",
      keywords: READ_KEYWORDS,
      source: String.raw`${READ_COMMAND}[^\n\\]{0,200}?${BREAK}(?:[ \t]*${BREAK}){0,2}${PRINTED}`,
      flags: "i",
      asWritten: true,
      edge: false,
      group: 1,
      check: (v, m) => commandStart(m) && printedSecret(v),
    }),
    token({
      id: "command-argument",
      description:
        "a token given to a command that stores it (ngrok config add-authtoken <token>, set-token, add-api-key)",
      keywords: ["authtoken", "-token ", "_token ", "-api-key ", "-apikey ", "_api_key "],
      source: String.raw`(?:(?:add|set|save|store|update)[-_]?(?:auth)?[-_]?(?:token|api[-_]?key)|authtoken)\s+(?:\\?["'])?([^\s"'\\\x60]{12,512})${END_VALUE}`,
      flags: "i",
      asWritten: true,
      edge: false,
      group: 1,
      check: (v, m) => commandStart(m) && looksSecret(v, false),
    }),
    token({
      id: "prose-secret",
      description:
        'a secret named in a sentence and given in it ("the Jenkins API token is …", "here\'s the Azure DevOps PAT: …", "unseal key 1: …")',
      keywords: ["key", "token", " pat", "passw", "passphrase", "passcode", "secret", "credential"],
      source: String.raw`(${NOUN})(?![A-Za-z0-9_])((?:\s+\d{1,3})?(?:[\w \t'’()/-]|\.(?=\w)){0,48}?)\s*(?::|\bis\b|\bwas\b|->|→|—)\s*(?:\\?["'\x60])?(${PROSE_VALUE})(?=[\s'"\x60<>\]}.,;:!?)\\]|$)`,
      flags: "i",
      asWritten: true,
      edge: false,
      group: 3,
      // Where a rule that knows the kind finds the value too, its name is the one reported.
      fallback: true,
      check: (v, m) => {
        const noun = m[1] ?? "";
        // A word's start (no leading \b in the pattern: it would be tried at every position).
        if (m.index > 0 && /\w/.test(m.input.charAt(m.index - 1))) return false;
        // `pat` in lower case is a word too: a token's abbreviation only right before `:` or `is`.
        if (noun.toLowerCase() === "pat" && noun !== "PAT" && (m[2] ?? "").trim() !== "") return false;
        const before = m.input.slice(Math.max(0, m.index - 16), m.index);
        // The window holds no verb of its own: "the token is invalid and the hash is …" names no secret.
        if (
          /\b(?:is|was|are)\b/i.test(m[2] ?? "") ||
          ABOUT.test(m[2] ?? "") ||
          (/token/i.test(noun) && NOT_A_TOKEN.test(before))
        )
          return false;
        // A plain word after a password's name is not a password in a sentence; a digit or a symbol is.
        if (/pass/i.test(noun)) return /[^A-Za-z]/.test(v) && looksSecret(v, true);
        return looksSecret(v, false) || UUID.test(v);
      },
    }),
    token({
      id: "auth-scheme",
      description:
        "Authorization headers with a scheme no other rule names (SSWS, GenieKey, Splunk, Klaviyo-API-Key…)",
      keywords: ["authorization"],
      source: String.raw`Authorization["'\\]{0,4}\s*[:=]\s*["'\\]{0,6}(?!(?:Bearer|Basic|Token|Bot|Digest|Negotiate|NTLM)\b)[A-Za-z][A-Za-z0-9._-]{1,30}[ \t]+([A-Za-z0-9_~+/.=-]{16,512})`,
      flags: "i",
      edge: false,
      group: 1,
      check: (v) => looksSecret(v, false) || (/[0-9]/.test(v) && v.length >= 24 && entropy(v) >= 3.5),
    }),
    token({
      id: "django-secret-key",
      description:
        "Django secret keys: django-insecure-… and a SECRET_KEY of 50 characters of Django's alphabet",
      keywords: ["django-insecure-", "secret_key"],
      source: String.raw`django-insecure-${DJANGO}{40,60}(?!${DJANGO})|(?<!(?<!\\)[A-Za-z0-9_])(?:DJANGO_)?SECRET_KEY["'\]]{0,2}(?:\s*[:=]|\s+is)\s*(?:\\{0,3}["'])?(${DJANGO}{50})(?=\\{0,3}["']|\\[nrt]|\s|$)`,
      edge: false,
      group: 1,
      check: (v) => /[0-9]/.test(v) && /[!@#$%^&*(\-_=+)]/.test(v) && entropy(v) >= 4,
    }),
    token({
      id: "hex-key-array",
      description:
        'a hex private key in a JavaScript config\'s key array (Hardhat/Truffle accounts: ["0x…"])',
      keywords: ["accounts", "privatekeys", "private_keys", "signers", "wallets"],
      source: String.raw`\b(?:accounts|privateKeys|private_keys|signers|wallets)["']?\s*[:=]\s*\[[^\]\n]{0,400}?\\{0,3}["'\x60](?:0x)?([0-9a-fA-F]{64})\\{0,3}["'\x60]`,
      edge: false,
      group: 1,
      check: (v) => entropy(v) >= 3.3,
    }),
    token({
      id: "aws-ecr-token",
      description:
        'an Amazon ECR login token (base64 of {"payload":…, what aws ecr get-login-password prints)',
      keywords: ["eyjwyxlsb2fkijoi"],
      source: "eyJwYXlsb2FkIjoi[A-Za-z0-9+/]{100,}={0,2}",
    }),
  ];
}

/**
 * Output a tool block shows as its whole content: one printed value, after Codex's exec header or alone, or
 * as the whole of a JSON `output` field (Codex, Hermes).
 */
const BARE_OUTPUTS = [
  new RegExp(
    String.raw`^(?:Exit code: \d+\r?\nWall time: [^\n]*\r?\n(?:Total output lines: \d+\r?\n)?Output:\r?\n)?${PRINTED}(?:[ \t]*${BREAK})*[ \t]*$`,
    "d",
  ),
  new RegExp(
    String.raw`^\{\s*"(?:output|stdout|content|result)"\s*:\s*"${PRINTED}(?:[ \t]*${BREAK})*[ \t]*"`,
    "d",
  ),
];

const READ_ANYWHERE = new RegExp(READ_COMMAND, "gi");

/** True when `text` holds a command that reads a named secret. */
function readsSecret(text: string): boolean {
  READ_ANYWHERE.lastIndex = 0;
  for (let m = READ_ANYWHERE.exec(text); m !== null; m = READ_ANYWHERE.exec(text))
    if (commandStart(m)) return true;
  return false;
}

/** How many blocks after a command its output may come (parallel tool calls put others between). */
const OUTPUT_WINDOW = 4;

/**
 * Values printed bare in one text by a command of an earlier text (a tool call, then its result): for each
 * text whose whole content is one printed value, the finding when one of the OUTPUT_WINDOW texts before it
 * reads a named secret. Texts in their order of a session; the value's range in its own text.
 */
export function commandOutputs(texts: readonly string[]): { index: number; start: number; end: number }[] {
  const out: { index: number; start: number; end: number }[] = [];
  texts.forEach((text, j) => {
    if (j === 0 || text.length > 4200) return;
    const m = BARE_OUTPUTS[0]?.exec(text) ?? BARE_OUTPUTS[1]?.exec(text) ?? null;
    const at = m?.indices?.[1];
    if (m === null || at === undefined || !printedSecret(m[1] ?? "")) return;
    for (let i = j - 1; i >= Math.max(0, j - OUTPUT_WINDOW); i--)
      if (readsSecret(texts[i] ?? "")) {
        out.push({ index: j, start: at[0], end: at[1] });
        return;
      }
  });
  return out;
}
