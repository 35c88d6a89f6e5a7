/**
 * Planted credentials for secret tests: one of each kind, built from a seeded generator so no
 * credential-shaped literal sits in the repository.
 */
/** Deterministic pseudo-random characters, so no credential-shaped literal sits in this file. */
export function gen(seed: number) {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x;
  };
  return (n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") =>
    Array.from({ length: n }, () => alphabet[next() % alphabet.length]).join("");
}
export const r = gen(42);
export const HEX = "0123456789abcdef";
export const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
export const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const pemBody = Array.from({ length: 12 }, () => r(64, `${LETTERS}0123456789+/`)).join("\n");

/** Planted credentials: [kind, the secret value as it appears in text, surrounding text]. */
export const PLANTED: [string, string, (s: string) => string][] = [
  ["github classic token", `ghp_${r(36)}`, (s) => `export GITHUB_TOKEN=${s}`],
  ["github fine-grained token", `github_pat_${r(22)}_${r(59)}`, (s) => `token: ${s}`],
  ["github oauth token", `gho_${r(36)}`, (s) => `"auth": "${s}"`],
  ["hugging face token (letters)", `hf_${r(34, LETTERS)}`, (s) => `HF_TOKEN=${s}`],
  ["hugging face token (digits)", `hf_${r(17, LETTERS)}${r(17, "0123456789")}`, (s) => `login(token="${s}")`],
  ["openai project key", `sk-proj-${r(20)}T3BlbkFJ${r(20)}`, (s) => `OPENAI_API_KEY=${s}`],
  ["sk- key without marker", `sk-${r(48)}`, (s) => `key = "${s}"`],
  ["anthropic key", `sk-ant-api03-${r(93, b64url)}AA`, (s) => `ANTHROPIC_API_KEY=${s}`],
  ["aws access key id", `AKIA${r(16, UPPER)}`, (s) => `aws_access_key_id = ${s}`],
  ["aws secret access key", r(40, `${LETTERS}0123456789/+`), (s) => `aws_secret_access_key = "${s}"`],
  ["slack bot token", `xoxb-${r(11, "0123456789")}-${r(12, "0123456789")}-${r(24)}`, (s) => `SLACK=${s}`],
  [
    "slack webhook",
    `https://hooks.slack.com/services/T${r(8, UPPER)}/B${r(8, UPPER)}/${r(24)}`,
    (s) => `curl ${s}`,
  ],
  ["npm token", `npm_${r(36)}`, (s) => `//registry.npmjs.org/:_authToken=${s}`],
  ["jwt", `eyJ${r(20, b64url)}.eyJ${r(40, b64url)}.${r(43, b64url)}`, (s) => `Authorization: Bearer ${s}`],
  ["basic auth url", "s3cr3tPa55word", (s) => `git clone https://alice:${s}@example.com/repo.git`],
  ["credentials in a url without a tld", "hunter2hunter2", (s) => `http://admin:${s}@localhost:8080/`],
  ["database url", "pg-Passw0rd-xyz", (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/main`],
  [
    "private key (PEM)",
    `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`,
    (s) => `cat id_rsa\n${s}\n`,
  ],
  [
    "private key with escaped newlines (inside JSON)",
    `-----BEGIN OPENSSH PRIVATE KEY-----\\n${pemBody.replaceAll("\n", "\\n")}\\n-----END OPENSSH PRIVATE KEY-----`,
    (s) => `{"content":"${s}"}`,
  ],
  ["private key cut off", `-----BEGIN PRIVATE KEY-----\n${pemBody}`, (s) => `${s}`],
  ["stripe live key", `sk_live_${r(24)}`, (s) => `stripe.api_key = "${s}"`],
  ["google api key", `AIza${r(35, b64url)}`, (s) => `GOOGLE_API_KEY=${s}`],
  ["gitlab token", `glpat-${r(20, b64url)}`, (s) => `GITLAB_TOKEN=${s}`],
  ["sendgrid key", `SG.${r(22, b64url)}.${r(43, b64url)}`, (s) => `SENDGRID_API_KEY=${s}`],
  ["shopify token", `shpat_${r(32, HEX)}`, (s) => `token=${s}`],
  // The six kinds issue 12 found published: each reached the Hub before the catalogue.
  ["sendgrid key with - in its first part", `SG.-${r(21, b64url)}.${r(43, b64url)}`, (s) => `sg = "${s}"`],
  ["twilio api key", `SK${r(32, "0123456789abcdefABCDEF")}`, (s) => `twilio: ${s}`],
  [
    "discord bot token (its first part is the bot's id, base64url)",
    `${btoa(`1${r(17, "0123456789")}`).replace(/=+$/, "")}.${r(6, b64url)}.${r(38, b64url)}`,
    (s) => `client.login("${s}")`,
  ],
  ["telegram bot token", `${r(10, "0123456789")}:AA${r(33, b64url)}`, (s) => `bot = Bot("${s}")`],
  ["digitalocean token", `dop_v1_${r(64, "0123456789abcdef0123456789")}`, (s) => `doctl auth init -t ${s}`],
  [
    "azure storage account key",
    `${r(86, `${LETTERS}0123456789+/`)}==`,
    (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net`,
  ],
];
