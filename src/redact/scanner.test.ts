import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../test/helpers/fixtures.js";
import { GITLEAKS_FILE_RULES, GITLEAKS_RULE_IDS } from "../../test/helpers/gitleaks-rules.js";
import { formatSamples, renderTemplate, secretGone } from "../../test/helpers/secret-corpus.js";
import { edgeCorpus } from "../../test/helpers/secret-edges.js";
import { SECRET_FORMATS } from "../../test/helpers/secret-formats.js";
import { formsCorpus } from "../../test/helpers/secret-forms.js";
import { heldOutCorpus } from "../../test/helpers/secret-heldout.js";
import { redTeamCorpus } from "../../test/helpers/secret-redteam.js";
import { HEX, LETTERS, PLANTED, r } from "../../test/helpers/secrets.js";
import { catalogue } from "./rules.js";
import { applyRedactions, findingsPerText, redactTexts, scanPatterns, scanSecrets } from "./scanner.js";

/** Random text from a template (see secret-formats.ts), for look-alikes that must stay. */
const t = (template: string, seed = 7) => renderTemplate(template, seed, 1).value;

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
  // git SHAs, UUIDs, chunk ids, integrity hashes, digests in logs, plain base64
  `[main ${t("{h:7}")}] fix: split on code points\n commit ${t("{h:40}", 1)}\nMerge: ${t("{h:7}", 2)} ${t("{h:7}", 3)}`,
  `{"session_id": "${t("{h:8}-{h:4}-4{h:3}-a{h:3}-{h:12}")}", "uuid": "${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}", 4)}"}`,
  `ids: ${t("{h:16}", 5)}, ${t("{h:16}", 6)}, ${t("{h:16}", 8)}`,
  `"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz", "integrity": "sha512-${t("{b:86}", 9)}=="`,
  `sha256  ${t("{h:64}", 10)}  model.onnx\nmd5 ${t("{h:32}", 11)}\nsha1 ${t("{h:40}", 12)}`,
  `etag: "${t("{h:64}", 13)}" x-linked-etag: ${t("{h:40}", 14)}`,
  `data = "${t("{b:200}", 15)}=="\nblob ${t("{b:120}", 16)}`,
  `cache_key = "${t("{h:64}", 17)}"; digest: sha256:${t("{h:64}", 18)}`,
  // code and config that name secrets without holding one
  "const password = getPassword(); token = os.environ['GITHUB_TOKEN']; api_key = settings.API_KEY",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell and template references, kept literally
  'password: "${DB_PASSWORD}"\nsecret_key: {{ .Values.secretKey }}\ntoken: <your token here>',
  '"max_tokens": 4096, "input_tokens": 123456, "cache_read_input_tokens": 98765432',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell and template references, kept literally
  'Authorization: Bearer ${TOKEN}\ncurl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com',
  'secret_name = "my-app-secret"; token_type: bearer; auth: required; tokenizer: bert-base-uncased',
  "const password = result.groups?.password; const accessToken = await getAccessToken();",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell and template references, kept literally
  "postgres://user:password@localhost:5432/db and https://user:${PASS}@example.com/",
  "password_hash = $2b$12$abcdefghijklmnopqrstuv; PASSWORD=/run/secrets/db_password",
  "[REDACTED:github] was here; the AWS docs key AKIAIOSFODNN7EXAMPLE",
  "secret_arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
  "token_secret_ref: projects/123456/secrets/db-token/versions/latest",
  "secretName: app-secret-v2-2024-01-15-prod; auth_provider: google-oauth2-2024",
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

describe("the catalogue", () => {
  const CATALOGUE = catalogue();

  it("has unique ids, global patterns and lower-case keywords", () => {
    const ids = CATALOGUE.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of CATALOGUE) {
      expect(r.pattern.global, r.id).toBe(true);
      for (const k of r.keywords) expect(k, r.id).toBe(k.toLowerCase());
    }
  });

  it("is counted right in SECURITY.md and README.md", () => {
    const security = readFileSync(join(ROOT, "SECURITY.md"), "utf8");
    expect(security).toContain(`**funes's catalogue: ${CATALOGUE.length} rules**`);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(
      `a scan of ${CATALOGUE.length} pattern rules`,
    );
  });

  it("answers for every gitleaks default rule that applies to text, each with test formats", () => {
    const claimed = new Set(CATALOGUE.flatMap((r) => r.gitleaks ?? []));
    const tested = new Set(SECRET_FORMATS.filter((f) => f.gitleaks).map((f) => f.id));
    const textRules = GITLEAKS_RULE_IDS.filter((id) => !GITLEAKS_FILE_RULES.includes(id));
    expect(textRules.filter((id) => !claimed.has(id))).toEqual([]);
    expect(textRules.filter((id) => !tested.has(id))).toEqual([]);
    expect([...claimed].filter((id) => !GITLEAKS_RULE_IDS.includes(id))).toEqual([]);
  });

  it("finds every generated sample of every format in every context, and leaves none of it", async () => {
    const missed: string[] = [];
    for (const f of SECRET_FORMATS)
      for (const s of formatSamples(f)) {
        // As written, and as a tool call's input serialises it (escaped once more).
        const { texts } = await redactTexts([s.text, JSON.stringify({ command: s.text })]);
        texts.forEach((out, i) => {
          if (!secretGone(s, out))
            missed.push(`${s.format} ${s.context}${i === 1 ? " (tool input)" : ""}: ${out}`);
        });
      }
    expect(missed).toEqual([]);
  });

  it("has every rule find samples of its own in the corpus (no rule goes untested)", () => {
    const fired = new Set<string>();
    for (const f of SECRET_FORMATS)
      for (const s of formatSamples(f, [0])) for (const x of scanPatterns(s.text)) fired.add(x.rule);
    // Rules added after the held-out pass are tested by its corpus (families.test.ts).
    for (const s of heldOutCorpus()) for (const x of scanPatterns(s.text)) fired.add(x.rule);
    // And those added after the third red-team pass by its corpus (secret-redteam.ts).
    for (const s of redTeamCorpus()) for (const x of scanPatterns(s.text)) fired.add(x.rule);
    // And those of the display forms (secret-forms.ts), a command's output in the next block among them.
    for (const s of formsCorpus()) for (const x of scanPatterns(s.text)) fired.add(x.rule);
    // And issue 40's kinds and forms (secret-edges.ts).
    for (const s of edgeCorpus())
      for (const x of scanPatterns(s.text)) fired.add(x.rule.replace(/-(?:base64|hex|joined)$/, ""));
    fired.add("command-output");
    expect(CATALOGUE.map((r) => r.id).filter((id) => !fired.has(id))).toEqual([]);
  });

  it("finds a token after a JSON-escaped newline but not inside a longer word", () => {
    const token = `ghp_${t("{a:36}", 21)}`;
    expect(scanPatterns(`"out":"line\\n${token}\\n"`).map((f) => f.rule)).toEqual(["github"]);
    // Not as a GitHub token: only the shape of any prefixed random token (`xyzghp_…`) is left.
    expect(scanPatterns(`xyz${token}`).map((f) => f.rule)).toEqual(["prefixed-token"]);
  });

  it("reports only the value of a keyed assignment, and the vendor's rule over the generic one", () => {
    const text = `DISCORD_API_KEY=${t("{h:64}", 22)} # bot`;
    expect(applyRedactions(text, scanPatterns(text)).text).toBe("DISCORD_API_KEY=[REDACTED:discord] # bot");
    const stripe = `STRIPE_SECRET_KEY="sk_live_${t("{a:30}", 23)}"`;
    expect(applyRedactions(stripe, scanPatterns(stripe)).text).toBe('STRIPE_SECRET_KEY="[REDACTED:stripe]"');
  });

  it("never takes a redaction marker for a secret, so a redacted text rescans clean", async () => {
    for (const text of [
      "curl -u admin:[REDACTED:curl-user] https://ci.example.com/",
      '<add key="ClearTextPassword" value="[REDACTED:nuget]" />',
      "http://admin:http://admin:[REDACTED:url-credentials]@localhost:8080/@localhost:8080/",
      "Server=db;Password=[REDACTED:database-password-param];",
    ])
      expect(await scanSecrets(text), text).toEqual([]);
  });

  it("scans each text on its own, in its own offsets", async () => {
    const token = `glpat-${t("{w:20}", 24)}`;
    const found = await findingsPerText(["nothing", `x ${token}`, ""]);
    expect(found.map((f) => f.length > 0)).toEqual([false, true, false]);
    expect(found[1]?.every((f) => f.start === 2 && f.end === 2 + token.length)).toBe(true);
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
