import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../test/helpers/secret-corpus.js";
import { FORMS, formsCorpus } from "../../test/helpers/secret-forms.js";
import { displayView } from "./display.js";
import { commandOutputs } from "./rules-forms.js";
import { applyRedactions, findingsPerText, redactTexts, scanPatterns, scanSecrets } from "./scanner.js";

/** Random text from a template (see secret-formats.ts). */
const t = (template: string, seed = 5) => renderTemplate(template, seed, 0).value;

/** The text with every finding of the catalogue replaced. */
const redacted = (text: string) => applyRedactions(text, scanPatterns(text)).text;

const gutter = (lines: string[], sep = "→") =>
  lines.map((l, i) => `${String(i + 1).padStart(6)}${sep}${l}`).join("\n");

describe("the display view", () => {
  it("cuts gutters, quote markers and a diff's markers, and maps findings back to the text", () => {
    const text = gutter(["# x", "> + key"]);
    const view = displayView(text);
    expect(view?.text).toBe("# x\n+ key");
    // `key` in the view is `key` in the text.
    const at = (view?.text ?? "").indexOf("key");
    const [start, end] = view?.toSource(at, at + 3) ?? [0, 0];
    expect(text.slice(start, end)).toBe("key");
    const diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same";
    expect(displayView(diff)?.text).toBe(
      "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\nold\nnew\n same",
    );
  });

  it("leaves text without decoration alone, and PEM armour, flags and bullets outside a diff", () => {
    expect(displayView("plain prose, no gutter\n- a bullet\n--password x")).toBeNull();
    const armour = ["-----BEGIN", "PRIVATE KEY-----"].join(" ");
    expect(displayView(`${armour}\n     1→x`)?.text).toBe(`${armour}\nx`);
  });

  it("strips a grep listing's path only when its line numbers change (a .pgpass line repeats its port)", () => {
    expect(displayView("src/a.ts:3:one\nsrc/a.ts:9:two")?.text).toBe("one\ntwo");
    expect(displayView("db:5432:app:u:p1\ndb:5432:other:u:p2")).toBeNull();
  });
});

describe("secrets in display forms", () => {
  it("catches every kind of the forms corpus in every form", async () => {
    const samples = formsCorpus();
    expect(new Set(samples.map((s) => s.context))).toEqual(new Set(FORMS));
    const { texts } = await redactTexts(samples.map((s) => s.text));
    const kept = samples.filter((s, i) => s.runs.some((r) => (texts[i] ?? "").includes(r)));
    expect(kept.map((s) => `${s.format} ${s.context}`)).toEqual([]);
  });

  it("finds what a command that reads a named secret prints, in its block or the next ones", async () => {
    const key = t("{b:40}");
    expect(redacted(`$ aws configure get aws_secret_access_key\n${key}\n$ ls`)).toBe(
      "$ aws configure get aws_secret_access_key\n[REDACTED:command-output]\n$ ls",
    );
    const uuid = t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}");
    const call = JSON.stringify({ command: "heroku auth:token" });
    const found = await findingsPerText([call, JSON.stringify({ command: "ls" }), `${uuid}\n`]);
    expect(found[2]).toEqual([{ rule: "command-output", start: 0, end: uuid.length }]);
    expect(commandOutputs([call, `Exit code: 0\nWall time: 0.1 seconds\nOutput:\n${key}\n`])).toHaveLength(1);
    // An argument that stores a token.
    const ngrok = `2${t("{a:26}")}_${t("{a:21}", 6)}`;
    expect(redacted(`ngrok config add-authtoken ${ngrok}`)).toBe(
      "ngrok config add-authtoken [REDACTED:command-argument]",
    );
  });

  it("finds a secret named in a sentence, and an Authorization scheme no rule names", () => {
    const token = `11${t("{h:32}")}`;
    expect(redacted(`the Jenkins API token is ${token}, rotate it`)).toBe(
      "the Jenkins API token is [REDACTED:prose-secret], rotate it",
    );
    const pat = t("{l:52}");
    expect(redacted(`here's the Azure DevOps PAT: ${pat}, from the portal`)).toMatch(
      /^here's the Azure DevOps PAT: \[REDACTED:[a-z-]+\], from the portal$/,
    );
    const unseal = t("{b:43}=", 7);
    expect(redacted(`unseal key 1 was ${unseal}`)).toBe("unseal key 1 was [REDACTED:prose-secret]");
    const okta = `00${t("{w:40}")}`;
    expect(redacted(`Authorization: SSWS ${okta}`)).toBe("Authorization: SSWS [REDACTED:auth-scheme]");
  });

  it("finds a Django key in Django's alphabet and a hex key in a config's accounts array", () => {
    const django = t("{[a-z0-9!@#$%^&*(_=+)-]:50}");
    expect(redacted(`SECRET_KEY = '${django}'`)).toBe("SECRET_KEY = '[REDACTED:django-secret-key]'");
    const hex = t("{h:64}");
    expect(redacted(`accounts: ["0x${hex}"]`)).toBe('accounts: ["0x[REDACTED:hex-key-array]"]');
  });
});

describe("the false-positive guard in the forms", () => {
  it("leaves ids, hashes, commit SHAs, base64 images and ordinary sentences alone", async () => {
    const sha = t("{h:40}", 11);
    const uuid = t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}", 12);
    for (const text of [
      `$ git rev-parse HEAD\n${sha}\n$ `,
      `$ printenv HOME\n/home/dev\n$ echo $GITHUB_TOKEN\n\n$ gh auth token\nno oauth token found for github.com`,
      "the token is invalid, and the password is required; the API key is stored in ~/.config/acme/key",
      `the session token count is 4096 and the commit is ${sha}; the request_token: ${uuid}`,
      `the signing key fingerprint is ${t("{H:40}", 13)}; the deploy key id: ${uuid}`,
      "const password = getPassword(); const token = await fetchToken(user);",
      gutter([
        `"integrity": "sha512-${t("{b:86}", 14)}=="`,
        `"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz"`,
      ]),
      gutter([`<img src="data:image/png;base64,iVBORw0KGgo${t("{b:300}", 15)}">`, `session: ${uuid}`], "\t"),
      `diff --git a/x b/x\nindex ${t("{h:7}", 16)}..${t("{h:7}", 17)} 100644\n@@ -1 +1 @@\n-commit ${sha}\n+commit ${t("{h:40}", 18)}`,
      `> the password must be 12 characters or more\n> PAT: see 1Password`,
      `TOKEN_ID=${uuid}\n"max_tokens": 4096, "input_tokens": 1234`,
    ])
      expect(await scanSecrets(text), text).toEqual([]);
    // A bare hash after a command that reads nothing secret is not a secret.
    expect(commandOutputs([JSON.stringify({ command: "git rev-parse HEAD" }), `${sha}\n`])).toEqual([]);
  });
});
