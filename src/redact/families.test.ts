import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../test/helpers/secret-corpus.js";
import { crc32, HELD_OUT_FORMATS, heldOutCorpus, heldOutGone } from "../../test/helpers/secret-heldout.js";
import { applyRedactions, redactTexts, scanPatterns, scanSecrets } from "./scanner.js";

/** Random text from a template (see secret-formats.ts). */
const t = (template: string, seed = 3) => renderTemplate(template, seed, 0).value;

/**
 * A key's armour line, put together at run time so this file holds no key-shaped text (the coverage script
 * counts findings on the repository's own source as false positives).
 */
const armor = (dashes: string, what: "BEGIN" | "END", kind = "EC") =>
  [dashes.trim(), what, kind, "PRIVATE", "KEY", dashes.trim()]
    .join(" ")
    .replace(/^(-{5}) /, "$1")
    .replace(/ (-{5})$/, "$1");

/** The text with every finding of the catalogue replaced. */
const redacted = (text: string) => applyRedactions(text, scanPatterns(text)).text;

describe("the held-out catalogue", () => {
  it("is a table of over 70 formats, with GitHub's checksum computed as GitHub does", () => {
    expect(HELD_OUT_FORMATS.length).toBeGreaterThan(70);
    expect(new Set(HELD_OUT_FORMATS).size).toBe(HELD_OUT_FORMATS.length);
    // The IEEE CRC32 check value.
    expect(crc32("123456789")).toBe(0xcbf43926);
  });

  it("leaves nothing of any sample, in any context, once redacted", async () => {
    const missed: string[] = [];
    for (const s of heldOutCorpus()) {
      const { texts } = await redactTexts([s.text]);
      if (!heldOutGone(s, texts[0] ?? "")) missed.push(`${s.format} ${s.context}: ${texts[0]}`);
    }
    expect(missed).toEqual([]);
  });
});

describe("wrapped secrets", () => {
  const token = `ghp_${t("{a:36}")}`;

  it("finds a token base64-wrapped, and redacts the whole base64 run", () => {
    const b64 = btoa(`deploy:${token}`);
    const text = `echo ${b64} | base64 -d`;
    expect(redacted(text)).toBe("echo [REDACTED:github-base64] | base64 -d");
  });

  it("finds a PEM key base64-wrapped in a kubeconfig", () => {
    const pem = `${armor("-----", "BEGIN")}\n${t("{b:64}")}\n${t("{b:40}", 4)}\n${armor("-----", "END")}\n`;
    const text = `    client-key-data: ${btoa(pem)}\n    user: admin`;
    expect(redacted(text)).toBe("    client-key-data: [REDACTED:private-key-base64]\n    user: admin");
  });

  it("finds a token cut into joined string literals, escaped or not", () => {
    const code = `const k = "${token.slice(0, 10)}" + "${token.slice(10)}";`;
    expect(redacted(code)).toBe("const k = [REDACTED:github-joined];");
    const python = `T = ("${token.slice(0, 20)}" "${token.slice(20)}")`;
    expect(redacted(python)).toBe("T = ([REDACTED:github-joined])");
    const escaped = JSON.stringify({ content: code });
    expect(scanPatterns(escaped).map((f) => f.rule)).toContain("github-joined");
  });

  it("leaves base64 of ordinary text, binary base64 and ordinary joined literals alone", () => {
    for (const text of [
      `echo ${btoa("hello world, this is only a greeting")} | base64 -d`,
      `data = "${btoa(String.fromCharCode(...Array.from({ length: 90 }, (_, i) => (i * 37) % 256)))}"`,
      'msg = "Hello, " + name + "! Your build " + "finished in " + secs + "s"',
      "const path = 'src/' + 'redact/' + 'rules.ts';",
      `sha ${t("{h:40}")} and ${t("{b:44}")}`,
    ])
      expect(scanPatterns(text), text).toEqual([]);
  });
});

describe("prefix families and vendor shapes", () => {
  it("finds every token kind a vendor issues, not only the ones seen before", () => {
    const cases: [string, string][] = [
      ["slack", `xoxc-${t("{d:12}")}-${t("{d:12}", 4)}-${t("{h:64}")}`],
      ["slack", `xoxd-${t("{a:40}")}%2F${t("{a:30}", 5)}%3D`],
      ["vault", `hvr.${t("{w:95}")}`],
      ["atlassian-bitbucket", `ATBB${t("{a:32}")}${t("{H:8}")}`],
      ["linear", `lin_oauth_${t("{h:64}")}`],
      ["postman", `PMAT-${t("{u:26}")}`],
      ["posthog-personal", `phx_${t("{a:43}")}`],
      ["launchdarkly-key", `sdk-${t("{h:8}")}-${t("{h:4}")}-4${t("{h:3}")}-a${t("{h:3}")}-${t("{h:12}")}`],
      ["resend", `re_${t("{a:8}")}_${t("{a:24}", 9)}`],
      ["firebase-fcm", `AAAA${t("{w:7}")}:APA91b${t("{w:134}")}`],
      ["aws-session-token", `IQoJb3JpZ2luX2VjE${t("{b:700}")}`],
      ["azure-entra-refresh-token", `0.A${t("{w:60}")}.Ag${t("{w:260}")}`],
    ];
    for (const [rule, token] of cases) {
      const text = `the value is \`${token}\` now`;
      expect(redacted(text), rule).toBe(`the value is \`[REDACTED:${rule}]\` now`);
    }
  });

  it("finds tokens in URLs: a Bot API path, a Functions key, a presigned URL's session token, query values", () => {
    const bot = `${t("{d:10}")}:AA${t("{w:33}")}`;
    expect(redacted(`GET https://api.telegram.org/bot${bot}/getMe`)).toBe(
      "GET https://api.telegram.org/bot[REDACTED:telegram-bot-url]/getMe",
    );
    const code = t("{w:54}");
    expect(redacted(`https://f.azurewebsites.net/api/Hook?code=${code}==&x=1`)).not.toContain(code);
    const st = encodeURIComponent(`FwoGZXIvYXdz${t("{b:200}")}`);
    expect(redacted(`https://b.s3.amazonaws.com/k?X-Amz-Security-Token=${st}&X-Amz-Date=1`)).not.toContain(
      st.slice(20, 60),
    );
    const v = t("{a:40}");
    expect(redacted(`https://graph.example.com/me?access_token=${v}&fields=id`)).toBe(
      "https://graph.example.com/me?access_token=[REDACTED:generic-secret]&fields=id",
    );
  });

  it("redacts a secret-named value longer than the pattern's bound to its end", () => {
    const long = t("{b:900}");
    expect(redacted(`SESSION_TOKEN=${long}\nnext`)).toBe("SESSION_TOKEN=[REDACTED:generic-secret]\nnext");
  });

  it("reads Laravel's base64: keys and HMAC/salt/PAT names", () => {
    for (const [text, secret] of [
      [`APP_KEY=base64:${t("{b:43}")}=`, t("{b:43}")],
      [`WEBHOOK_HMAC_KEY=${t("{h:64}")}`, t("{h:64}")],
      [`encryption_salt = "${t("{a:32}")}"`, t("{a:32}")],
      [`AZURE_DEVOPS_EXT_PAT=${t("{l:52}")}`, t("{l:52}")],
    ] as const)
      expect(redacted(text), text).not.toContain(secret);
  });
});

describe("names in more syntaxes", () => {
  const v = t("{a:40}");

  it("reads subscripts, Java properties, dotted names, PowerShell and XML elements", () => {
    const pw = `${t("{a:12}")}!x`;
    for (const [text, secret] of [
      [`os.environ["DATADOG_API_KEY"] = "${v}"`, v],
      [`process.env['STRIPE_SECRET'] = '${v}';`, v],
      [`System.setProperty("acme.api.token", "${v}");`, v],
      [`datadog.api.key=${v}`, v],
      [`$env:ACME_TOKEN = "${v}"`, v],
      [`<settings>\n  <apiToken>${v}</apiToken>\n</settings>`, v],
      [`<password>${pw}</password>`, pw],
    ] as [string, string][])
      expect(redacted(text), text).not.toContain(secret);
  });

  it("finds a long random value under any name ending in key, unless the name says it is public or an id", () => {
    for (const name of ["B2_APPLICATION_KEY", "acme.signer.key", "CONVEX_DEPLOY_KEY", "deploy-key"])
      expect(redacted(`${name}=${v}`), name).toBe(`${name}=[REDACTED:key-named-value]`);
    const convex = `CONVEX_DEPLOY_KEY=prod:happy-fox-123|${t("{b:80}")}`;
    expect(redacted(convex)).toBe("CONVEX_DEPLOY_KEY=[REDACTED:key-named-value]");
    for (const text of [
      `VAPID_PUBLIC_KEY=B${t("{w:86}")}`,
      `TURNSTILE_SITE_KEY=0x4AAAAAAA${t("{a:14}")}`,
      `CACHE_KEY=${t("{h:64}")}`,
      `gpg_key: ${t("{H:40}")}`,
      `partition_key = "${t("{h:32}")}"`,
      `<primary_key>${t("{h:32}")}</primary_key>`,
      `SSH_KEY=~/.ssh/id_ed25519`,
      "i18n_key: errors.validation.required_field",
      "<max_tokens>4096</max_tokens>",
    ])
      expect(scanPatterns(text), text).toEqual([]);
  });
});

describe("key files and command lines", () => {
  it("finds PuTTY and SSH2 private keys", () => {
    const body = t("{b:44}");
    const ppk = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n${body}\nPrivate-MAC: ${t("{h:64}")}\n`;
    expect(redacted(ppk)).not.toContain(body);
    const ssh2 = `${armor("---- ", "BEGIN", "SSH2 ENCRYPTED")}\nComment: "k"\n${body}\n${armor("---- ", "END", "SSH2 ENCRYPTED")}`;
    expect(redacted(ssh2)).toBe("[REDACTED:ssh2-private-key]");
  });

  it("finds passwords on command lines, in .netrc and .pgpass, and given to secret stores", () => {
    const p = t("{a:14}");
    for (const text of [
      `mysql -u root -p${p} shop`,
      `sshpass -p '${p}' ssh deploy@host`,
      `redis-cli -h cache -a ${p} PING`,
      `docker login -u ci -p ${p} registry.example.com`,
      `machine api.example.com login deploy password ${p}`,
      `db.internal:5432:app:deploy:${p}`,
      `gh secret set DEPLOY_KEY --body "${p}"`,
      `aws ssm put-parameter --name /app/db --type SecureString --value ${p}`,
      `        - name: DB_PASSWORD\n          value: ${p}`,
    ])
      expect(redacted(text), text).not.toContain(p);
    // Under a token/secret name (not a password name) only a long random value counts, as in generic-secret.
    const long = t("{a:32}");
    expect(redacted(`{"name": "STRIPE_SECRET", "value": "${long}"}`)).not.toContain(long);
  });

  it("leaves command lines and lists that hold no password alone", () => {
    for (const text of [
      "mysql -u root -p shop < dump.sql",
      "docker login -u ci --password-stdin registry.example.com",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, kept literally
      'sshpass -p "${SSH_PASS}" ssh host',
      "the machine learning password reset flow",
      "docker run -p 5432:5432 postgres:16",
      "        - name: LOG_LEVEL\n          value: debug",
      '{"name": "API_KEY_HEADER", "value": "X-Api-Key"}',
      "gh secret list --repo acme/app",
    ])
      expect(scanPatterns(text), text).toEqual([]);
  });

  it("keeps a redaction marker from being found again", async () => {
    for (const text of [
      "mysql -u root -p[REDACTED:cli-password] shop",
      "echo [REDACTED:github-base64] | base64 -d",
      "const k = [REDACTED:github-joined];",
    ])
      expect(await scanSecrets(text), text).toEqual([]);
  });
});
