import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../test/helpers/secret-corpus.js";
import { RED_TEAM_KINDS, RED_TEAM_MISSES, redTeamCorpus } from "../../test/helpers/secret-redteam.js";
import { applyRedactions, redactTexts, scanPatterns } from "./scanner.js";

/** Random text from a template (see secret-formats.ts). */
const t = (template: string, seed = 3) => renderTemplate(template, seed, 0).value;

/** The text with every finding of the catalogue replaced. */
const redacted = (text: string) => applyRedactions(text, scanPatterns(text)).text;

describe("the red-team corpus", () => {
  it("holds 100 kinds or more in six classes", () => {
    expect(RED_TEAM_KINDS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(RED_TEAM_KINDS.map((k) => k.id)).size).toBe(RED_TEAM_KINDS.length);
    expect(new Set(RED_TEAM_KINDS.map((k) => k.cls))).toEqual(
      new Set(["prefixed", "keyed", "url", "private-key", "cloud-pair", "command-line"]),
    );
  });

  it("leaves nothing of any sample once redacted, but for the known misses", async () => {
    const samples = redTeamCorpus();
    const { texts } = await redactTexts(samples.map((s) => s.text));
    const slipped = new Set<string>();
    samples.forEach((s, i) => {
      if (s.runs.some((r) => (texts[i] ?? "").includes(r))) slipped.add(s.format);
    });
    expect([...slipped].sort()).toEqual([...RED_TEAM_MISSES].sort());
  });
});

describe("vendor-prefixed random tokens", () => {
  it("finds a prefixed token of a vendor no rule names, after any separator, and keeps the prefix", () => {
    for (const [prefix, body] of [
      ["acme_live_", t("{a:32}")],
      ["zq-", t("{a:40}")],
      ["ORBIT-", t("{u:30}")],
      ["vx_", t("{h:48}")],
      ["na2.", t("{b:80}")],
    ] as const) {
      const text = `got ${prefix}${body} back`;
      expect(redacted(text), text).toMatch(/^got [A-Za-z0-9]+\[REDACTED:prefixed-token\] back$/);
    }
  });

  it("yields to the vendor's own rule", () => {
    const stripe = `sk_live_${t("{a:30}", 23)}`;
    expect(scanPatterns(`key ${stripe}`).map((f) => f.rule)).toEqual(["stripe"]);
  });

  it("finds one in escaped tool output and URL-encoded in a query", () => {
    const token = `QZX-${t("{b:44}", 5)}`;
    expect(redacted(JSON.stringify({ out: `$ qzx print\n${token}\n` }))).not.toContain(token.slice(4));
    const url = `https://hooks.example.com/in?k=${encodeURIComponent(token)}&ts=1`;
    expect(redacted(url)).toContain("-urlencoded]");
  });

  it("leaves ids, hashes, cache keys, paths and identifiers alone", () => {
    for (const text of [
      `"id":"toolu_01${t("{a:22}")}"`,
      `msg_01${t("{a:22}")} and req_011C${t("{a:20}")} and call_${t("{a:24}")}`,
      `chatcmpl-${t("{a:29}")}; resp_${t("{h:48}")}; evt_1${t("{a:23}")}; pi_3${t("{a:23}")}`,
      `user_2${t("{a:26}")} sess_${t("{a:26}")} file-${t("{a:24}")} org-${t("{a:24}")}`,
      `"integrity": "sha512-${t("{b:86}")}=="`,
      `key: deps-Linux-${t("{h:64}")}\nkey: cargo-registry-${t("{h:40}")}`,
      `main.${t("{h:20}")}.js and model.${t("{a:24}")}.safetensors`,
      `PR_kwDO${t("{w:16}")} I_kwDOABC${t("{w:20}")} evt_01H${t("{u:23}")} ami-0${t("{h:16}")}`,
      `docker.io/library/node@sha256:${t("{h:64}")} v0.0.0-20231012-${t("{h:12}")}`,
      `github.com/acme/app/internal/${t("{l:30}")} /nix/store/${t("{l:32}")}-openssl-3.0`,
      "test_parse_transcript_with_2_blocks_and_3_tools snake_case_identifier_number_42_and_more",
      `window.__NEXT_DATA__.buildId_${t("{a:21}")} x-request-id: ${t("{a:8}")}-${t("{a:24}")}`,
      `fingerprint: SHA256:${t("{b:43}")} e.g. ${t("{a:6}")}-${t("{w:43}")}`,
      `the docs' key acme_live_${t("{a:20}")}EXAMPLE`,
      // model APIs' example ids, camel-case members, diff anchors (found in installed packages' sources)
      `['env_011C${t("{a:20}")}', 'sesn_011C${t("{a:20}")}', 'cp_${t("{a:24}")}', 'app_${t("{a:24}")}']`,
      "exports.resolveAWSSDKSigV4Config = x; crypto.encodeBase64StringUtf8(data); init.ec2MetadataV1Disabled",
      "require_utils_ipaddr.convertIPv4MappedIPv6ToIPv4(addr); exports.uint8ArrayToBase64url = f",
      `https://github.com/nodejs/node/pull/1/files#diff-${t("{h:32}")}R408`,
      `const urlAlphabet = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict"`,
    ])
      expect(scanPatterns(text), text).toEqual([]);
  });
});

describe("names, command lines and key files", () => {
  it("finds passwords under _PASS, passcode and PSK names, and UUID tokens under token names", () => {
    const p = t("{a:16}");
    for (const text of [
      `SMTP_PASS=${p}`,
      `rabbitmq_default_pass: "${p}"`,
      `VPN_PASSCODE=${p}`,
      `psk="${p}"`,
      `CONSUL_HTTP_TOKEN=${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}`,
      `HUAWEICLOUD_SDK_SK=${t("{a:40}")}`,
    ])
      expect(redacted(text), text).not.toMatch(/[A-Za-z0-9]{12}$/);
  });

  it("leaves pass-like words and UUIDs that are ids alone", () => {
    for (const text of [
      "bypass=true; PASS_RATE=0.95; pass: true; passenger_count=3",
      `page_token: ${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}`,
      `TOKEN_ID=${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}`,
      `"request_token": "${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}"`,
      "Cookie: theme=dark; lang=en-US",
      "recovery phrase: you should write it down on paper and keep it somewhere safe at all times",
    ])
      expect(scanPatterns(text), text).toEqual([]);
  });

  it("finds passwords given to tools, SQL and cookies", () => {
    const p = t("{a:18}");
    for (const text of [
      `openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:${p}`,
      `keytool -list -keystore app.jks -storepass ${p}`,
      `zip -r -P ${p} out.zip data`,
      `sqlcmd -S db -U sa -P ${p} -Q "SELECT 1"`,
      `ldapsearch -x -D cn=admin -w ${p} -b dc=acme`,
      `smbclient //files/share -U jdoe%${p}`,
      `npm config set //registry.acme.io/:_authToken ${p}`,
      `CREATE ROLE app LOGIN PASSWORD '${p}';`,
      `curl -b 'session=${p}' https://app.acme.io/`,
      `Pwd={${p}};Encrypt=yes`,
      `sqlplus system/${p}@//db:1521/ORCL`,
    ])
      expect(redacted(text), text).not.toContain(p);
  });

  it("finds recovery phrases, Vault unseal keys and minisign secret keys", () => {
    const words = Array.from({ length: 12 }, (_, i) => t("{L:6}", 40 + i)).join(" ");
    expect(redacted(`MNEMONIC="${words}"`)).toBe('MNEMONIC="[REDACTED:seed-phrase]"');
    const unseal = t("{b:44}");
    expect(redacted(`Unseal Key 1: ${unseal}`)).toBe("Unseal Key 1: [REDACTED:key-file-line]");
    const key = `RWRTY0Iy${t("{b:120}")}`;
    expect(redacted(`untrusted comment: minisign encrypted secret key\n${key}`)).not.toContain(key.slice(8));
  });
});
