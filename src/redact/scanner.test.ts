import { describe, expect, it } from "vitest";
import { applyRedactions, redactTexts, scanSecrets } from "./scanner.js";

/** Deterministic pseudo-random characters, so no credential-shaped literal sits in this file. */
function gen(seed: number) {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x;
  };
  return (n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") =>
    Array.from({ length: n }, () => alphabet[next() % alphabet.length]).join("");
}
const r = gen(42);
const HEX = "0123456789abcdef";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const pemBody = Array.from({ length: 12 }, () => r(64, `${LETTERS}0123456789+/`)).join("\n");

/** Planted credentials: [kind, the secret value as it appears in text, surrounding text]. */
const PLANTED: [string, string, (s: string) => string][] = [
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
];

/** Text that must come through untouched. */
const CLEAN = [
  `commit ${r(40, HEX)} fixes the parser`,
  `sha256: ${r(64, HEX)}`,
  "session 06ec42c3-2184-40c5-b0ee-98c3235b4c4c turn d753fba5-0c26-437f-82df-ba98aa773943",
  `chunk id ${r(16, HEX)} and another ${r(16, HEX)}`,
  `"integrity": "sha512-${r(86, `${LETTERS}0123456789+/`)}=="`,
  `iVBORw0KGgoAAAANSUhEUgAA${r(400, `${LETTERS}0123456789+/`)}==`,
  "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='acme/x')",
  "pip install scikit-learn  # sk-learn is its old name",
  "git@github.com:huggingface/funes.git and https://huggingface.co/datasets/acme/kb",
  "postgres://localhost:5432/dev has no password",
  "the token looks like eyJhbGciOi (truncated in the docs)",
  "password: see the vault; key = process.env.API_KEY",
  "AKIA is the prefix of AWS access key ids",
];

describe("scanSecrets", () => {
  it(`finds all ${PLANTED.length} planted credential kinds`, async () => {
    expect(PLANTED.length).toBeGreaterThanOrEqual(20);
    const missed: string[] = [];
    for (const [kind, secret, wrap] of PLANTED) {
      const { texts } = await redactTexts([wrap(secret)]);
      const out = texts[0] ?? "";
      if (out.includes(secret) || !out.includes("[REDACTED:")) missed.push(`${kind}: ${out.slice(0, 120)}`);
    }
    expect(missed).toEqual([]);
  });

  it("flags none of the ordinary text that looks random", async () => {
    for (const text of CLEAN) expect(await scanSecrets(text), text).toEqual([]);
  });

  it("keeps the surrounding words and names the rule", async () => {
    const { texts, counts } = await redactTexts([
      `token ghp_${r(36)} here`,
      "nothing here",
      `HF_TOKEN=hf_${r(34, LETTERS)}`,
    ]);
    expect(texts[0]).toMatch(/^token \[REDACTED:[a-z-]+\] here$/);
    expect(texts[1]).toBe("nothing here");
    expect(texts[2]).toMatch(/^HF_TOKEN=\[REDACTED:huggingface\]$/);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(2);
  });
});

describe("applyRedactions", () => {
  it("merges overlapping findings into one replacement", () => {
    const out = applyRedactions("abcdefghij", [
      { rule: "x", start: 2, end: 6 },
      { rule: "y", start: 4, end: 8 },
      { rule: "z", start: 9, end: 10 },
    ]);
    expect(out.text).toBe("ab[REDACTED:x]i[REDACTED:z]");
    expect(out.counts).toEqual({ x: 1, z: 1 });
  });
});
