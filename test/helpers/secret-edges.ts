/**
 * An adversarial catalogue of secrets at the edges (issue 40): kinds × forms, generated. Kinds by class —
 * vendor tokens, personal access tokens, values known only by a name (also values with no digit, passwords
 * holding `%` or starting with `$`, a camel-case `wifiPsk`, words run together), wallet and signing keys (Bitcoin WIF, Solana
 * keypairs as base58 and as a JSON byte array, Ethereum raw keys, Nostr `nsec`, BIP-39 phrases, age and
 * minisign keys), webhook URLs of a dozen services — each in the forms tools print them: a `.env` line,
 * other key naming styles in JSON/YAML/ini, `cat -A`, Markdown and box-drawing tables, a sentence, an auth
 * header in curl/httpie/fetch, a shell `\` continuation, PowerShell's backtick and cmd's `^` continuations,
 * a terminal's hard wrap at a column from 60 to 200, adjacent or `+`-joined literals in Python/JS/C/Go, a
 * YAML block scalar, a `.env` as wrapped base64 (76 columns and other widths) and as hex dumps (`xxd -p`,
 * `xxd`, `hexdump -C`, `od -A x -t x1z`, PowerShell's `Format-Hex`, byte for byte as those tools print).
 * Each text also as a tool call's JSON input. Values
 * are random (checksums and key pairs computed, so they are valid), deterministic; no credential-shaped
 * literal sits in the repo. Plus public-by-design keys that must be left alone.
 */
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { dumpReadings, formatHex, hexdumpC, odX1z, xxd } from "./hex-dumps.js";
import { renderTemplate } from "./secret-corpus.js";

/** Category of a kind: which header or command form suits it. */
type Category = "token" | "password" | "url" | "key";

/** One generated value: the value, and its random runs (none may be readable after redaction). */
interface Value {
  value: string;
  runs: string[];
}

/** A kind: how it is named (`words` of its variable name), what a sentence calls it, and its value. */
export interface EdgeKind {
  id: string;
  category: Category;
  /** Words of its variable name (`["wifi","psk"]` → `WIFI_PSK`, `wifiPsk`, `wifi-psk`, `wifi.psk`). */
  words: string[];
  noun: string;
  make: (seed: number) => Value;
  /** The header a client sends it in, when not `Authorization: Bearer`. */
  header?: string;
}

/** A random run from a template class (`{a:36}`), recorded as a run when 6 characters or longer. */
function rnd(template: string, seed: number, runs: string[]): string {
  const { value } = renderTemplate(template, seed, 0);
  if (value.length >= 6) runs.push(value);
  return value;
}

/** A value from pieces: literal text, or `{cls:n}` templates that are random runs. */
function tpl(...parts: string[]): (seed: number) => Value {
  return (seed) => {
    const runs: string[] = [];
    const value = parts.map((p, i) => (p.startsWith("{") ? rnd(p, seed * 31 + i, runs) : p)).join("");
    return { value, runs };
  };
}

const UUID = ["{h:8}", "-", "{h:4}", "-4", "{h:3}", "-a", "{h:3}", "-", "{h:12}"];

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Base58 (Bitcoin's alphabet) of `bytes`. */
export function base58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = "";
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

function sha256(b: Uint8Array): Buffer {
  return createHash("sha256").update(b).digest();
}

/** Deterministic bytes from a seed. */
function bytes(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let h: Buffer = createHash("sha256").update(`edge-${seed}`).digest();
  for (let i = 0; i < n; i++) {
    if (i % 32 === 0 && i > 0) h = sha256(h);
    out[i] = h[i % 32] as number;
  }
  return out;
}

/** A Bitcoin WIF private key (mainnet, compressed `K`/`L` or uncompressed `5`), checksum included. */
function wif(seed: number): Value {
  const key = bytes(32, seed);
  key[0] = (key[0] as number) & 0x7f;
  const compressed = seed % 2 === 0;
  const payload = Buffer.concat([Buffer.from([0x80]), key, Buffer.from(compressed ? [1] : [])]);
  const value = base58(Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]));
  return { value, runs: [value.slice(1)] };
}

/** An Ed25519 seed and its public key (a Solana keypair's two halves). */
function ed25519(seed: number): { secret: Buffer; public: Buffer } {
  const secret = bytes(32, seed);
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), secret]);
  const spki = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" })).export({
    format: "der",
    type: "spki",
  });
  return { secret, public: spki.subarray(spki.length - 32) };
}

function solanaBase58(seed: number): Value {
  const k = ed25519(seed);
  const value = base58(Buffer.concat([k.secret, k.public]));
  return { value, runs: [value] };
}

function solanaJson(seed: number): Value {
  const k = ed25519(seed);
  const all = [...k.secret, ...k.public];
  const value = `[${all.join(",")}]`;
  // The secret half, as written: no run of it may stay.
  return {
    value,
    runs: [all.slice(0, 8).join(","), all.slice(12, 20).join(","), all.slice(24, 32).join(",")],
  };
}

const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

function polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i] as number;
  }
  return chk >>> 0;
}

/** Bech32 of `data` under `hrp` (BIP-173; Nostr's `nsec` and age's secret keys use it). */
export function bech32(hrp: string, data: Uint8Array): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const expand = [...hrp].map((c) => c.charCodeAt(0) >> 5);
  const values = [...expand, 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31), ...words];
  const mod = polymod([...values, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32[w]).join("")}`;
}

function nsec(seed: number): Value {
  const value = bech32("nsec", bytes(32, seed));
  return { value, runs: [value.slice(5)] };
}

function age(seed: number): Value {
  const value = bech32("age-secret-key-", bytes(32, seed)).toUpperCase();
  return { value, runs: [value.slice(16)] };
}

/** A few BIP-39 words (the detector does not know the list: a phrase is known by its context). */
const WORDS =
  "abandon ability able about above absent absorb abstract absurd abuse access accident account accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air airport aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter always amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle announce annual another answer antenna antique anxiety".split(
    " ",
  );

function mnemonic(seed: number): Value {
  const b = bytes(24, seed);
  const n = seed % 2 === 0 ? 12 : 24;
  const words = Array.from({ length: n }, (_, i) => WORDS[(b[i] as number) % WORDS.length] as string);
  const value = words.join(" ");
  return {
    value,
    runs: [words.slice(0, 4).join(" "), words.slice(4, 8).join(" "), words.slice(8, 12).join(" ")],
  };
}

/** Common words a diceware passphrase is drawn from. */
const DICE =
  "correct horse battery staple purple monkey river stone candle garden copper violin lemon tiger window marble orbit velvet harbor pencil rocket meadow cobalt falcon jungle walnut thunder saddle crystal bishop glacier pepper lantern mango quiver ribbon shadow timber vapor whistle yonder zebra basket cactus dragon ember fossil goblet hammock igloo jigsaw kettle lobster mitten nectar oyster puzzle quartz raven sierra tundra umbrella".split(
    " ",
  );

/** Dictionary words run together, one case, no digit (`correcthorsebatterystaple`): 18 letters or more. */
function gluedWords(seed: number): Value {
  const b = bytes(16, seed);
  const words: string[] = [];
  for (let i = 0; i < 16 && (words.length < 4 || words.join("").length < 18); i++) {
    const w = DICE[(b[i] as number) % DICE.length] as string;
    if (!words.includes(w)) words.push(w);
  }
  const value = words.join("");
  return { value, runs: [value] };
}

function minisign(seed: number): Value {
  const body = Buffer.concat([Buffer.from("EdScB2", "latin1"), bytes(152, seed)]).toString("base64");
  return { value: body, runs: [body.slice(8, 40), body.slice(60, 100), body.slice(140)] };
}

function basicAuth(seed: number): Value {
  const runs: string[] = [];
  const pw = rnd("{a:14}", seed, runs);
  const value = Buffer.from(`deploy:${pw}`).toString("base64");
  return { value, runs: [value.slice(8)] };
}

/** Letters only, both cases: no digit anywhere. */
const LETTERS_ONLY = "{A:32}";

/** The kinds. */
export const EDGE_KINDS: readonly EdgeKind[] = [
  {
    id: "hf-token",
    category: "token",
    words: ["hf", "token"],
    noun: "Hugging Face token",
    make: tpl("hf_", "{a:34}"),
  },
  {
    id: "github-fine-grained-pat",
    category: "token",
    words: ["github", "pat"],
    noun: "GitHub PAT",
    make: tpl("github_pat_", "{a:22}", "_", "{a:59}"),
  },
  {
    id: "gitlab-pat",
    category: "token",
    words: ["gitlab", "token"],
    noun: "GitLab token",
    make: tpl("glpat-", "{a:20}"),
  },
  {
    id: "npm-token",
    category: "token",
    words: ["npm", "token"],
    noun: "npm token",
    make: tpl("npm_", "{a:36}"),
  },
  {
    id: "openai-project",
    category: "token",
    words: ["openai", "api", "key"],
    noun: "OpenAI API key",
    make: tpl("sk-proj-", "{a:48}", "T3BlbkFJ", "{a:48}"),
  },
  {
    id: "slack-bot",
    category: "token",
    words: ["slack", "bot", "token"],
    noun: "Slack bot token",
    make: tpl("xoxb-", "{d:12}", "-", "{d:13}", "-", "{a:24}"),
  },
  {
    id: "stripe-secret",
    category: "token",
    words: ["stripe", "secret", "key"],
    noun: "Stripe secret key",
    make: tpl("sk_live_51", "{a:97}"),
  },
  {
    id: "telegram-bot",
    category: "token",
    words: ["telegram", "bot", "token"],
    noun: "Telegram bot token",
    make: tpl("{d:10}", ":AA", "{w:33}"),
  },
  {
    id: "jwt",
    category: "token",
    words: ["session", "jwt"],
    noun: "session token",
    make: tpl("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.", "{w:43}"),
  },
  {
    id: "aws-secret-access-key",
    category: "token",
    words: ["aws", "secret", "access", "key"],
    noun: "AWS secret access key",
    make: tpl("{b:40}"),
  },
  {
    id: "azure-devops-pat",
    category: "token",
    words: ["azure", "devops", "pat"],
    noun: "Azure DevOps PAT",
    make: tpl("{[a-z2-7]:52}"),
  },
  {
    id: "asana-pat",
    category: "token",
    words: ["asana", "access", "token"],
    noun: "Asana personal access token",
    make: tpl("2/", "{d:16}", "/", "{d:16}", ":", "{h:32}"),
  },
  {
    id: "atlassian-api-token",
    category: "token",
    words: ["jira", "api", "token"],
    noun: "Jira API token",
    make: tpl("ATATT3xFfGF0", "{w:180}", "=", "{H:8}"),
  },
  {
    id: "opaque-api-token",
    category: "token",
    words: ["service", "api", "token"],
    noun: "API token",
    make: tpl("{a:40}"),
  },
  {
    id: "apim-subscription-key",
    category: "token",
    words: ["apim", "subscription", "key"],
    noun: "APIM subscription key",
    header: "Ocp-Apim-Subscription-Key",
    make: tpl("{h:32}"),
  },
  {
    id: "letters-only-token",
    category: "token",
    words: ["internal", "auth", "token"],
    noun: "auth token",
    make: tpl(LETTERS_ONLY),
  },
  {
    id: "lowercase-client-secret",
    category: "token",
    words: ["oauth", "client", "secret"],
    noun: "client secret",
    make: tpl("{L:40}"),
  },
  {
    id: "mqtt-credential",
    category: "token",
    words: ["mqtt", "credential"],
    noun: "MQTT credential",
    make: tpl("{a:28}"),
  },
  {
    id: "password-percent",
    category: "password",
    words: ["db", "password"],
    noun: "database password",
    make: tpl("{a:6}", "%", "{a:6}", "%", "{a:6}"),
  },
  {
    id: "password-dollar",
    category: "password",
    words: ["smtp", "pass"],
    noun: "SMTP password",
    make: tpl("$", "{a:12}"),
  },
  {
    id: "password-no-digit",
    category: "password",
    words: ["admin", "passwd"],
    noun: "admin password",
    make: tpl("{A:7}", "!", "{A:6}", "#"),
  },
  { id: "wifi-psk", category: "password", words: ["wifi", "psk"], noun: "wifi PSK", make: tpl("{a:16}") },
  {
    id: "glued-passphrase",
    category: "password",
    words: ["router", "psk"],
    noun: "router PSK",
    make: gluedWords,
  },
  {
    id: "postgres-url",
    category: "url",
    words: ["database", "url"],
    noun: "database URL",
    make: tpl("postgres://app:", "{a:18}", "@db.internal:5432/app"),
  },
  {
    id: "basic-auth",
    category: "token",
    words: ["basic", "auth"],
    noun: "basic auth credential",
    make: basicAuth,
  },
  {
    id: "eth-private-key",
    category: "key",
    words: ["deployer", "private", "key"],
    noun: "deployer private key",
    make: tpl("0x", "{h:64}"),
  },
  { id: "bitcoin-wif", category: "key", words: ["btc", "wif"], noun: "bitcoin private key", make: wif },
  {
    id: "solana-keypair",
    category: "key",
    words: ["solana", "keypair"],
    noun: "Solana keypair",
    make: solanaBase58,
  },
  {
    id: "solana-keypair-json",
    category: "key",
    words: ["solana", "keypair"],
    noun: "Solana keypair",
    make: solanaJson,
  },
  { id: "nostr-nsec", category: "key", words: ["nostr", "nsec"], noun: "nostr key", make: nsec },
  {
    id: "bip39-mnemonic",
    category: "key",
    words: ["wallet", "mnemonic"],
    noun: "seed phrase",
    make: mnemonic,
  },
  { id: "age-key", category: "key", words: ["sops", "age", "key"], noun: "age key", make: age },
  {
    id: "minisign-key",
    category: "key",
    words: ["minisign", "key"],
    noun: "minisign secret key",
    make: minisign,
  },
  {
    id: "zapier-webhook",
    category: "url",
    words: ["zapier", "hook", "url"],
    noun: "Zapier webhook",
    make: tpl("https://hooks.zapier.com/hooks/catch/", "{d:8}", "/", "{l:7}", "/"),
  },
  {
    id: "slack-webhook",
    category: "url",
    words: ["slack", "webhook", "url"],
    noun: "Slack webhook",
    make: tpl("https://hooks.slack.com/services/T", "{u:8}", "/B", "{u:10}", "/", "{a:24}"),
  },
  {
    id: "discord-webhook",
    category: "url",
    words: ["discord", "webhook"],
    noun: "Discord webhook",
    make: tpl("https://discord.com/api/webhooks/", "{d:18}", "/", "{w:68}"),
  },
  {
    id: "teams-webhook",
    category: "url",
    words: ["teams", "webhook", "url"],
    noun: "Teams webhook",
    make: tpl(
      "https://acme.webhook.office.com/webhookb2/",
      ...UUID,
      "@",
      ...UUID,
      "/IncomingWebhook/",
      "{h:32}",
      "/",
      ...UUID,
      "/V2",
      "{w:43}",
    ),
  },
  {
    id: "teams-workflow",
    category: "url",
    words: ["teams", "workflow", "url"],
    noun: "Teams workflow webhook",
    make: tpl(
      "https://prod-27.westeurope.logic.azure.com:443/workflows/",
      "{h:32}",
      "/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=",
      "{w:43}",
    ),
  },
  {
    id: "google-chat-webhook",
    category: "url",
    words: ["chat", "webhook"],
    noun: "Google Chat webhook",
    make: tpl(
      "https://chat.googleapis.com/v1/spaces/",
      "{A:11}",
      "/messages?key=AIzaSy",
      "{w:33}",
      "&token=",
      "{w:43}",
    ),
  },
  {
    id: "mattermost-webhook",
    category: "url",
    words: ["mattermost", "hook"],
    noun: "Mattermost webhook",
    make: tpl("https://chat.acme.dev/hooks/", "{l:26}"),
  },
  {
    id: "ifttt-webhook",
    category: "url",
    words: ["ifttt", "url"],
    noun: "IFTTT webhook",
    make: tpl("https://maker.ifttt.com/trigger/build_done/with/key/", "{w:22}"),
  },
  {
    id: "make-webhook",
    category: "url",
    words: ["make", "hook"],
    noun: "Make webhook",
    make: tpl("https://hook.eu1.make.com/", "{l:32}"),
  },
  {
    id: "feishu-webhook",
    category: "url",
    words: ["lark", "bot", "webhook"],
    noun: "Lark bot webhook",
    make: tpl("https://open.feishu.cn/open-apis/bot/v2/hook/", ...UUID),
  },
];

/** Public-by-design keys: never to be redacted (a Stripe publishable key, a Sentry DSN's public key). */
export const PUBLIC_KINDS: readonly EdgeKind[] = [
  {
    id: "stripe-publishable",
    category: "token",
    words: ["stripe", "publishable", "key"],
    noun: "Stripe publishable key",
    make: tpl("pk_live_51", "{a:97}"),
  },
  {
    id: "stripe-publishable-test",
    category: "token",
    words: ["next", "public", "stripe", "key"],
    noun: "Stripe publishable key",
    make: tpl("pk_test_51", "{a:97}"),
  },
  {
    id: "sentry-dsn",
    category: "url",
    words: ["sentry", "dsn"],
    noun: "Sentry DSN",
    make: tpl("https://", "{h:32}", "@o", "{d:6}", ".ingest.sentry.io/", "{d:7}"),
  },
];

/** The forms. */
export const EDGE_FORMS = [
  "env",
  "camel-json",
  "kebab-yaml",
  "dotted-ini",
  "cat-A",
  "markdown-table",
  "box-table",
  "prose",
  "header",
  "shell-continuation",
  "terminal-wrap",
  "python-adjacent",
  "js-concat",
  "c-adjacent",
  "go-concat",
  "yaml-block",
  "base64-76",
  "base64-width",
  "hex-dump",
  "powershell-continuation",
  "cmd-continuation",
  "xxd",
  "hexdump-C",
  "od-x1z",
  "format-hex",
] as const;

export type EdgeForm = (typeof EDGE_FORMS)[number];

/** How a text reaches the store: as written (a result, a prompt) or as a tool call's JSON input. */
export const EDGE_EMBEDDINGS = ["raw", "tool-call"] as const;

/** One sample. */
export interface EdgeSample {
  kind: string;
  form: EdgeForm;
  embedding: (typeof EDGE_EMBEDDINGS)[number];
  text: string;
  /** The secret's random runs: read back (through joins, base64 and hex) none may remain. */
  runs: string[];
}

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const screaming = (k: EdgeKind) => k.words.join("_").toUpperCase();
const camel = (k: EdgeKind) => k.words.map((w, i) => (i === 0 ? w : cap(w))).join("");

/**
 * Splits `v` in two inside its longest random run (the secret is cut, not a literal around it); a phrase is
 * cut after a blank (`words` true), as code and YAML cut one.
 */
function splitValue(v: string, runs: string[], at = 0.5, words = true): [string, string] {
  if (words && v.includes(" ")) {
    const target = Math.round(v.length * at);
    const cut = v.indexOf(" ", target) + 1 || v.lastIndexOf(" ") + 1;
    return [v.slice(0, cut), v.slice(cut)];
  }
  const run = [...runs].sort((a, b) => b.length - a.length)[0] ?? v;
  const start = Math.max(0, v.indexOf(run));
  const cut = start + Math.max(1, Math.min(run.length - 1, Math.round(run.length * at)));
  return [v.slice(0, cut), v.slice(cut)];
}

/** Hard-wraps every line longer than `width` as a terminal does. */
function hardWrap(text: string, width: number): string {
  return text
    .split("\n")
    .map((line) => {
      const out: string[] = [];
      for (let i = 0; i < line.length; i += width) out.push(line.slice(i, i + width));
      return out.length === 0 ? "" : out.join("\n");
    })
    .join("\n");
}

function header(k: EdgeKind, v: string, seed: number): string {
  if (k.category === "key")
    return `curl -sS -X POST https://signer.acme.dev/v1/import -H 'Content-Type: application/json' -d '{"${camel(k)}":${v.startsWith("[") ? v : `"${v}"`}}'`;
  if (k.category === "url")
    return `curl -sS -X POST -H 'Content-Type: application/json' --data '{"text":"deploy finished"}' '${v}'`;
  if (k.category === "password") return `curl --fail -u deploy:'${v}' https://ci.acme.dev/api/json`;
  if (k.header !== undefined) return `curl -sS https://api.acme.dev/v1/orders -H '${k.header}: ${v}'`;
  if (k.id === "basic-auth")
    return `curl -H "Authorization: Basic ${v}" https://registry.acme.dev/v2/_catalog`;
  switch (seed % 4) {
    case 0:
      return `curl -sS https://api.acme.dev/v1/projects -H "Authorization: Bearer ${v}" -H 'Accept: application/json'`;
    case 1:
      return `http GET https://api.acme.dev/v1/projects "Authorization:Bearer ${v}"`;
    case 2:
      return `const res = await fetch("https://api.acme.dev/v1/projects", {\n  headers: { Authorization: "Bearer ${v}" },\n});`;
    default:
      return `curl --oauth2-bearer ${v} https://api.acme.dev/v1/me`;
  }
}

function prose(k: EdgeKind, v: string, seed: number): string {
  switch (seed % 4) {
    case 3:
      return `use this ${k.noun} ${v} for the deploy, then rotate it`;
    case 0:
      return `ok so the ${k.noun} is ${v} and it should work for staging too`;
    case 1:
      return `Here's my ${k.noun}: ${v}\nCan you wire it into the deploy script?`;
    default:
      return `I rotated it yesterday — the new ${k.noun} is ${v}. Please update the config.`;
  }
}

/** The `.env` file a few forms print. */
function dotenv(k: EdgeKind, v: string): string {
  return `# staging\nNODE_ENV=production\nLOG_LEVEL=info\n${screaming(k)}=${v}\nPORT=8080\n`;
}

function wrapLines(s: string, width: number): string {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += width) out.push(s.slice(i, i + width));
  return out.join("\n");
}

/** The text of one kind in one form. */
function render(k: EdgeKind, form: EdgeForm, value: Value, seed: number): string {
  const v = value.value;
  const name = screaming(k);
  const [a, b] = splitValue(v, value.runs, 0.3 + (seed % 5) * 0.1);
  switch (form) {
    case "env":
      return `${name}=${v}`;
    case "camel-json":
      return JSON.stringify({ region: "eu-west-1", [camel(k)]: v, retries: 3 }, null, 2);
    case "kebab-yaml":
      return `service:\n  ${k.words.join("-")}: ${k.category === "key" && v.includes(" ") ? `"${v}"` : v}\n  timeout: 30\n`;
    case "dotted-ini":
      return `[service]\n${k.words.join(".")} = ${v}\nregion = eu-west-1\n`;
    case "cat-A":
      return `$ cat -A .env\n# staging M-bM-^@M-^T do not commit$\nNODE_ENV=production$\n^ILOG_LEVEL=info$\n${name}=${v}$\nPORT=8080$\n`;
    case "markdown-table":
      return `| Variable | Value |\n|----------|-------|\n| \`NODE_ENV\` | production |\n| \`${name}\` | ${v} |\n| \`PORT\` | 8080 |`;
    case "box-table": {
      const bar = ["│", "┃", "║"][seed % 3] as string;
      const w = Math.max(name.length, 8) + 2;
      const line = "─".repeat(w);
      return `┌${line}┬${"─".repeat(v.length + 2)}┐\n${bar} ${"Name".padEnd(w - 2)} ${bar} ${"Value".padEnd(v.length)} ${bar}\n├${line}┼${"─".repeat(v.length + 2)}┤\n${bar} ${name.padEnd(w - 2)} ${bar} ${v} ${bar}\n${bar} ${"PORT".padEnd(w - 2)} ${bar} ${"8080".padEnd(v.length)} ${bar}\n└${line}┴${"─".repeat(v.length + 2)}┘`;
    }
    case "prose":
      return prose(k, v, seed);
    case "header":
      return header(k, v, seed);
    case "shell-continuation":
      return k.category === "url"
        ? `curl -sS -X POST \\\n  -d '{"text":"hi"}' \\\n  "${a}\\\n${b}"`
        : `export ${name}="${a}\\\n${b}"\n./deploy.sh --env staging`;
    case "terminal-wrap": {
      const width = 60 + ((seed * 37) % 141);
      const head = "[2026-11-02 10:14:03] INFO ";
      const tail = `loaded settings from /etc/acme/app.env: ${name}=`;
      // Dots after the log level put the terminal's column right inside the value.
      // A terminal cuts anywhere, inside a word too.
      const [cutA] = splitValue(v, value.runs, 0.3 + (seed % 5) * 0.1, false);
      const pad = (width - ((head.length + tail.length + cutA.length) % width)) % width;
      const line = `${head}${".".repeat(pad)}${tail}${v} region=eu-west-1`;
      return hardWrap(`$ ./app --print-config\n${line}\nready.`, width);
    }
    case "python-adjacent":
      return `${k.words.join("_")} = (\n    "${a}"\n    "${b}"\n)\nclient = Client(${k.words.join("_")})`;
    case "js-concat":
      return `const ${camel(k)} =\n  "${a}" +\n  "${b}";\nexport default ${camel(k)};`;
    case "c-adjacent":
      return `static const char *${k.words.join("_")} = "${a}"\n                          "${b}";`;
    case "go-concat":
      return `const ${camel(k)} = "${a}" +\n\t"${b}"`;
    case "yaml-block":
      return `env:\n  ${name}: ${seed % 2 === 0 ? ">-" : "|-"}\n    ${a.trimEnd()}\n    ${b}\n  PORT: "8080"\n`;
    case "base64-76":
      return `$ base64 .env\n${wrapLines(Buffer.from(dotenv(k, v)).toString("base64"), 76)}\n`;
    case "base64-width": {
      const width = [40, 60, 64, 100][seed % 4] as number;
      return `$ base64 -w ${width} .env\n${wrapLines(Buffer.from(dotenv(k, v)).toString("base64"), width)}\n`;
    }
    case "hex-dump":
      return `$ xxd -p .env\n${wrapLines(Buffer.from(dotenv(k, v)).toString("hex"), 60)}\n`;
    case "powershell-continuation": {
      const q = seed % 2 === 0 ? '"' : "'";
      return k.category === "url"
        ? `Invoke-RestMethod -Method Post \`\n  -ContentType 'application/json' \`\n  -Body '{"text":"hi"}' \`\n  -Uri (${q}${a}${q} + \`\n  ${q}${b}${q})`
        : `PS C:\\app> $env:${name} = ${q}${a}${q} + \`\n>>   ${q}${b}${q}\nPS C:\\app> .\\deploy.ps1 -Environment staging`;
    }
    case "cmd-continuation":
      return k.category === "url"
        ? `C:\\app> curl -sS -X POST ^\n  -H "Content-Type: application/json" ^\n  -d "{}" ^\n  ${a}^\n${b}`
        : `C:\\app> set ${name}=${a}^\n${b}\nC:\\app> deploy.cmd --env staging`;
    case "xxd":
      return `$ xxd${seed % 2 === 0 ? "" : " -g 1"} .env\n${xxd(Buffer.from(dotenv(k, v)), seed % 2 === 0 ? 2 : 1)}\n`;
    case "hexdump-C":
      return `$ hexdump -C .env\n${hexdumpC(Buffer.from(dotenv(k, v)))}\n`;
    case "od-x1z":
      return `$ od -A x -t x1z .env\n${odX1z(Buffer.from(dotenv(k, v)))}\n`;
    case "format-hex":
      return `PS C:\\app> Format-Hex .env\n\n${formatHex(Buffer.from(dotenv(k, v)), "C:\\app\\.env")}\n`;
  }
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Every kind (`kinds`, the secret ones by default) in every form and embedding. */
export function edgeCorpus(kinds: readonly EdgeKind[] = EDGE_KINDS): EdgeSample[] {
  const out: EdgeSample[] = [];
  for (const k of kinds)
    for (const form of EDGE_FORMS) {
      const seed = hashSeed(`${k.id}/${form}`) % 100_000;
      const value = k.make(seed);
      if (value.runs.length === 0) throw new Error(`${k.id}: no run to look for`);
      const text = render(k, form, value, seed);
      out.push({ kind: k.id, form, embedding: "raw", text, runs: value.runs });
      const call = form === "prose" ? { prompt: text } : { command: text, description: "run it" };
      out.push({ kind: k.id, form, embedding: "tool-call", text: JSON.stringify(call), runs: value.runs });
    }
  return out;
}

/**
 * The ways a reader gets text back from a redacted sample: as written; with line breaks, shell
 * continuations, quotes, `+`, JSON escapes and table bars taken out (a wrapped or joined value read whole);
 * and the base64 and hex runs of that decoded.
 */
export function readings(text: string): string[] {
  const unescaped = text.replace(/\\\\/g, "\\").replace(/\\n/g, "\n").replace(/\\"/g, '"');
  const joined = unescaped
    .replace(/\$(?=\n)/g, "")
    .replace(/\\\n[ \t]*/g, "")
    .replace(/"\s*\+?\s*\n\s*"/g, "")
    .replace(/\n[ \t]*/g, "");
  const out = [text, unescaped, joined];
  const lines = unescaped.split("\n");
  const b64 = lines.filter((l) => /^[A-Za-z0-9+/=]{8,}$/.test(l)).join("");
  const hex = lines.filter((l) => /^[0-9a-f]{8,}$/.test(l)).join("");
  for (let shift = 0; shift < 4; shift++)
    out.push(Buffer.from(b64.slice(shift), "base64").toString("latin1"));
  for (let shift = 0; shift < 2; shift++) out.push(Buffer.from(hex.slice(shift), "hex").toString("latin1"));
  out.push(...dumpReadings(lines));
  return out;
}

/** What redaction left of a sample: readable (every run), partly (some 8-character piece), or caught. */
export function readability(runs: readonly string[], redacted: string): "readable" | "partly" | "caught" {
  const views = readings(redacted);
  const has = (s: string) => views.some((v) => v.includes(s));
  if (runs.every(has)) return "readable";
  for (const run of runs)
    for (let i = 0; i + 8 <= run.length; i += 4) if (has(run.slice(i, i + 8))) return "partly";
  return "caught";
}
