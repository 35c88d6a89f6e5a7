/**
 * The generated secret corpus: for every format of secret-formats.ts, several values (shortest and longest
 * lengths, `-` and `_` at the start and inside when the charset has them) in several contexts (prose, shell
 * quoting, env/YAML/JSON/TOML assignments, JSON-escaped tool input, tool output, a block long enough to be
 * cut into two chunks across the secret). Deterministic, and no credential-shaped literal sits in the repo.
 */
import { SECRET_FORMATS, type SecretFormat } from "./secret-formats.js";

/** One planted secret in one context. */
export interface CorpusSample {
  format: string;
  context: string;
  /** The secret as it appears in `text` (a sub-string of it; for JSON-escaped contexts, escaped). */
  secret: string;
  /** The secret's random runs of 8 characters or more: none may be left in a redacted text. */
  runs: string[];
  text: string;
}

const CLASSES: Record<string, string> = {
  a: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  l: "abcdefghijklmnopqrstuvwxyz0123456789",
  u: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  L: "abcdefghijklmnopqrstuvwxyz",
  U: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  A: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  h: "0123456789abcdef",
  H: "0123456789ABCDEF",
  d: "0123456789",
  b: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  w: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
  wl: "abcdefghijklmnopqrstuvwxyz0123456789_-",
  b32: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
};

/** mulberry32: small, fast, and its low bits are as random as its high ones. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function expandClass(cls: string): string {
  const named = CLASSES[cls];
  if (named !== undefined) return named;
  const body = cls.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (body[i + 1] === "-" && i + 2 < body.length) {
      for (let x = c.charCodeAt(0); x <= body.charCodeAt(i + 2); x++) out += String.fromCharCode(x);
      i += 2;
    } else out += c;
  }
  return out;
}

/**
 * One value of a template. `variant` 0: shortest lengths; 1: longest; 2: middle lengths, and `-`/`_` put at
 * the start and the middle of every run whose charset has them.
 */
export function renderTemplate(
  template: string,
  seed: number,
  variant: 0 | 1 | 2,
): { value: string; runs: string[] } {
  const rand = prng(seed);
  const runs: string[] = [];
  const value = template.replace(
    /\{(\[[^\]]+\]|[a-zA-Z0-9]+):(\d+)(?:-(\d+))?\}/g,
    (_, cls: string, lo: string, hi?: string) => {
      const min = Number(lo);
      const max = hi === undefined ? min : Number(hi);
      const n = variant === 0 ? min : variant === 1 ? max : Math.round((min + max) / 2);
      if (cls === "b64id") {
        // A numeric id, base64url-encoded without padding (the first part of a Discord bot token).
        const id = `1${Array.from({ length: n - 1 }, () => Math.floor(rand() * 10)).join("")}`;
        const run = btoa(id).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
        runs.push(run);
        return run;
      }
      const chars = expandClass(cls);
      const out = Array.from({ length: n }, () => chars[Math.floor(rand() * chars.length)] ?? "a");
      if (variant === 2 && n >= 4) {
        if (chars.includes("-")) out[0] = "-";
        if (chars.includes("_")) out[Math.floor(n / 2)] = "_";
      }
      const run = out.join("");
      if (run.length >= 8) runs.push(run);
      return run;
    },
  );
  return { value, runs };
}

/** About 1,100 characters of ordinary prose: a secret right after it straddles the first chunk's end. */
const FILLER = Array.from(
  { length: 24 },
  (_, i) => `Step ${i + 1}: the build ran the test suite again and the summary looked fine. `,
).join("");

/** Contexts for a token found by its shape. */
function tokenContexts(v: string): [string, string, string][] {
  const json = JSON.stringify({ command: `echo "${v}" > .credential && chmod 600 .credential` });
  const jsonSecret = JSON.stringify(v).slice(1, -1);
  return [
    ["prose", v, `Here is the value you asked for: ${v} — keep it out of the repository.`],
    ["shell-quoted", v, `curl -s -d 'value=${v}' https://api.example.com/v1/check`],
    ["json-escaped", jsonSecret, json],
    ["tool-output", jsonSecret, `{"stdout":"$ cat .credential\\n${jsonSecret}\\n$ echo done","exit":0}`],
    ["split-across-chunks", v, `${FILLER}${v} was printed by the last step, then the job ended.`],
  ];
}

/** Contexts for a credential found by its key. */
function keyedContexts(name: string, v: string): [string, string, string][] {
  const lower = name.toLowerCase();
  const j = JSON.stringify(v).slice(1, -1);
  return [
    ["env", v, `${name}=${v}`],
    ["yaml", v, `config:\n  ${lower}: ${v}\n  region: us-east-1`],
    ["json", j, JSON.stringify({ [lower]: v, debug: false }, null, 2)],
    ["json-escaped", j, JSON.stringify({ content: `{"${lower}": "${v}"}` })],
    ["toml", v, `[service]\n${lower} = "${v}"\n`],
    ["shell-quoted", v, `export ${name}='${v}' && ./deploy.sh`],
    ["tool-output", v, `$ printenv\nHOME=/home/dev\n${name}=${v}\nPATH=/usr/bin`],
    ["split-across-chunks", v, `${FILLER}${name}=${v} was set for the job.`],
  ];
}

/** Contexts for formats that only exist in one syntax. */
function specialContexts(name: string, v: string): [string, string, string][] | null {
  switch (name) {
    case "curl":
      return [
        ["shell", v, `curl -H "Authorization: Bearer ${v}" https://api.example.com/v1/me`],
        ["shell-single-quoted", v, `curl -sS -H 'Authorization: Token ${v}' https://api.example.com/`],
        ["header-json", v, `{"headers": {"Authorization": "Bearer ${v}"}}`],
      ];
    case "curl-user":
      return [
        ["shell", v, `curl -u admin:${v} https://ci.example.com/api/json`],
        ["shell-long", v, `curl --silent --user "deploy:${v}" https://registry.example.com/v2/`],
      ];
    case "password-flag":
      return [
        ["shell", v, `mysqldump --user=root --password=${v} shop > dump.sql`],
        ["shell-space", v, `docker login --username ci --password ${v} registry.example.com`],
        ["shell-quoted", v, `pg_restore --password='${v}' -d app dump.sql`],
      ];
    case "token-flag":
      return [
        ["shell", v, `vault login --token=${v}`],
        ["shell-space", v, `./deploy.sh --api-key ${v} --region eu-west-1`],
        ["shell-quoted", v, `terraform apply -var region=eu --auth-token "${v}"`],
      ];
    case "basic-auth":
      return [
        ["shell", v, `curl -H "Authorization: Basic ${v}" https://ci.example.com/api/json`],
        ["header", v, `Authorization: Basic ${v}`],
        ["json", v, `{"headers":{"Authorization":"Basic ${v}"}}`],
      ];
    case "freemius":
      return [["php", v, `$config = array('secret_key' => '${v}', 'public_key' => 'pk_123');`]];
    case "nuget":
      return [
        [
          "xml",
          v,
          `<packageSourceCredentials><feed><add key="Username" value="ci" /><add key="ClearTextPassword" value="${v}" /></feed></packageSourceCredentials>`,
        ],
      ];
    case "k8s":
      return [["yaml", v, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: ${v}\n`]];
    default:
      return null;
  }
}

/** The samples of one format (`variants`: which values; all three by default). */
export function formatSamples(f: SecretFormat, variants: readonly (0 | 1 | 2)[] = [0, 1, 2]): CorpusSample[] {
  const out: CorpusSample[] = [];
  for (const variant of variants) {
    const { value: v, runs } = renderTemplate(f.value, hash(`${f.id}/${variant}`), variant);
    const contexts =
      f.name === undefined ? tokenContexts(v) : (specialContexts(f.name, v) ?? keyedContexts(f.name, v));
    for (const [context, secret, text] of contexts)
      out.push({ format: f.id, context: `${context}/v${variant}`, secret, runs, text });
  }
  return out;
}

/** True when no random run of the sample's secret is left in `text`. */
export function secretGone(s: CorpusSample, text: string): boolean {
  return s.runs.every((r) => !text.includes(r));
}

/** The whole corpus: every format, every value, every context. */
export function secretCorpus(): CorpusSample[] {
  return SECRET_FORMATS.flatMap((f) => formatSamples(f));
}

/** A third of the corpus for end-to-end runs: every format and context, one value each (taken in turn). */
export function compactCorpus(): CorpusSample[] {
  return SECRET_FORMATS.flatMap((f, i) => formatSamples(f, [(i % 3) as 0 | 1 | 2]));
}
