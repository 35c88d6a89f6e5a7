import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../test/helpers/secret-corpus.js";
import {
  base58,
  bech32,
  EDGE_FORMS,
  EDGE_KINDS,
  edgeCorpus,
  PUBLIC_KINDS,
  readability,
} from "../../test/helpers/secret-edges.js";
import { reflowSplices, splicedView } from "./reflow.js";
import { applyRedactions, redactTexts, scanPatterns } from "./scanner.js";
import { isEd25519Pair, isWif } from "./wallets.js";

/** Random text from a template (see secret-formats.ts). */
const t = (template: string, seed = 11) => renderTemplate(template, seed, 0).value;

/** The text with every finding of the catalogue replaced. */
const redacted = (text: string) => applyRedactions(text, scanPatterns(text)).text;

/** Lines of `s`, `width` characters each. */
const wrap = (s: string, width: number) => s.match(new RegExp(`.{1,${width}}`, "g"))?.join("\n") ?? "";

describe("the edge catalogue (kinds × forms)", () => {
  it("leaves no run of any kind readable in any form, as written or as a tool call's input", async () => {
    const samples = edgeCorpus();
    expect(new Set(samples.map((s) => s.form))).toEqual(new Set(EDGE_FORMS));
    expect(new Set(samples.map((s) => s.kind))).toEqual(new Set(EDGE_KINDS.map((k) => k.id)));
    const { texts } = await redactTexts(samples.map((s) => s.text));
    const left = samples
      .map((s, i) => ({ s, r: readability(s.runs, texts[i] ?? "") }))
      .filter(({ r }) => r !== "caught")
      .map(({ s, r }) => `${r} ${s.kind} ${s.form} ${s.embedding}`);
    expect(left).toEqual([]);
  });

  it("leaves public-by-design keys alone (Stripe publishable keys, a Sentry DSN)", async () => {
    // A base64 or `xxd -p` dump's line decoded alone may cut a DSN's host, and the rest reads as a token in
    // a URL (a dump with offsets is read whole).
    const samples = edgeCorpus(PUBLIC_KINDS).filter((s) => !/base64|hex-dump/.test(s.form));
    const { texts } = await redactTexts(samples.map((s) => s.text));
    const changed = samples
      .filter((s, i) => texts[i] !== s.text)
      .map((s) => `${s.kind} ${s.form} ${s.embedding}`);
    expect(changed).toEqual([]);
  });
});

describe("values split across lines", () => {
  it("joins a .env in wrapped base64 at any width, and a hex dump, before decoding", () => {
    const token = t("hf_{a:34}");
    const env = Buffer.from(`NODE_ENV=production\nLOG_LEVEL=info\nHF_TOKEN=${token}\nPORT=8080\n`);
    for (const width of [40, 60, 64, 76, 100]) {
      const out = redacted(`$ base64 .env\n${wrap(env.toString("base64"), width)}\n`);
      expect(out, `width ${width}`).toContain("[REDACTED:");
      expect(out).not.toMatch(/^[A-Za-z0-9+/=]{16,}$/m);
    }
    // Indented, as a Markdown code block or a YAML value shows it.
    const indented = redacted(
      `decoded:\n\n    ${wrap(env.toString("base64"), 64).replaceAll("\n", "\n    ")}\n`,
    );
    expect(indented).toContain("-base64]");
    expect(indented).not.toMatch(/^ {4}[A-Za-z0-9+/=]{16,}$/m);
    const hex = redacted(`$ xxd -p .env\n${wrap(env.toString("hex"), 60)}\n`);
    expect(hex).toContain("-hex]");
    expect(hex).not.toMatch(/^[0-9a-f]{16,}$/m);
  });

  it("reads a value cut by a shell continuation, a terminal's wrap at 60 to 200 columns, and a YAML block", () => {
    const key = t("{a:40}", 3);
    expect(redacted(`export SERVICE_API_TOKEN="${key.slice(0, 17)}\\\n${key.slice(17)}"`)).not.toContain(
      key.slice(17),
    );
    // A tool call's arguments JSON inside JSON (Codex): the continuation escaped twice.
    const twice = JSON.stringify({
      arguments: JSON.stringify({ command: `export API_TOKEN="${key.slice(0, 20)}\\\n${key.slice(20)}"` }),
    });
    expect(redacted(twice)).not.toContain(key.slice(20));
    for (const width of [60, 80, 132, 200]) {
      const line = `${".".repeat(width - 30)} loaded: API_TOKEN=${key} region=eu`;
      const out = redacted(wrap(line, width));
      expect(out, `width ${width}`).toContain("[REDACTED:");
      for (const piece of wrap(key, 8).split("\n")) if (piece.length === 8) expect(out).not.toContain(piece);
    }
    const folded = redacted(`env:\n  DB_SECRET: >-\n    ${key.slice(0, 20)}\n    ${key.slice(20)}\n`);
    expect(folded).not.toContain(key.slice(0, 20));
    expect(folded).not.toContain(key.slice(20));
  });

  it("reads a value cut by PowerShell's backtick and cmd's caret continuations, as written and JSON-escaped", () => {
    const key = t("{a:40}", 3);
    const [a, b] = [key.slice(0, 17), key.slice(17)];
    for (const text of [
      `$env:SERVICE_API_TOKEN = "${a}" + \`\n  "${b}"`,
      // Typed in a console, the continued line opens with PowerShell's `>>` prompt.
      `PS C:\\app> $env:SERVICE_API_TOKEN = '${a}' + \`\n>>   '${b}'\nPS C:\\app> .\\deploy.ps1`,
      `C:\\app> set SERVICE_API_TOKEN=${a}^\n${b}\nC:\\app> deploy.cmd`,
      `curl -sS https://api.acme.dev/v1/me ^\n  -H "Authorization: Bearer ${a}^\n${b}"`,
    ])
      for (const form of [text, JSON.stringify({ command: text })]) {
        const out = redacted(form);
        expect(out, form).not.toContain(a);
        expect(out, form).not.toContain(b);
      }
  });

  it("takes no backtick or caret at a line's end for a continuation where it is code or a pointer", () => {
    const none = { catA: false, tables: false, block: false };
    for (const text of [
      "```\nconst x = 1;\n```",
      "then run `npm`\ninstall it",
      "let x = foo\n        ^\nerror: expected bar",
      // A JavaScript template literal opening on an escape (`\\n` then a placeholder).
      "info += `\\n$" + "{n} lines`;\n",
      "text.replace(/^\\n+/, '')",
    ])
      expect(reflowSplices(text, none), text).toEqual([]);
  });

  it("reads adjacent and joined literals beside their name (Python, C, Go, JS, JSON-escaped)", () => {
    const key = t("{a:40}", 4);
    const [a, b] = [key.slice(0, 13), key.slice(13)];
    for (const code of [
      `client_secret = (\n    "${a}"\n    "${b}"\n)`,
      `static const char *client_secret = "${a}"\n                                   "${b}";`,
      `const clientSecret = "${a}" +\n\t"${b}"`,
      JSON.stringify({ command: `const clientSecret =\n  "${a}" +\n  "${b}";` }),
    ]) {
      const out = redacted(code);
      expect(out, code).not.toContain(a);
      expect(out, code).not.toContain(b);
    }
  });

  it("maps a spliced view's findings back to the text", () => {
    const text = "TOKEN=abc\\\ndef$\nNEXT";
    const splices = reflowSplices(text, { catA: false, tables: false, block: false });
    const view = splicedView(text, splices);
    expect(view.text).toBe("TOKEN=abcdef$\nNEXT");
    const at = view.text.indexOf("abcdef");
    expect(view.toSource(at, at + 6)).toEqual([6, 14]);
  });
});

describe("display noise", () => {
  it("reads cat -A output ($ line ends, ^I tabs, M- bytes)", () => {
    const key = t("{h:32}", 5);
    const out = redacted(`# staging M-bM-^@M-^T do not commit$\n^IDATADOG_API_KEY=${key}$\nPORT=8080$\n`);
    expect(out).not.toContain(key);
    expect(out).toContain("M-bM-^@M-^T");
  });

  it("reads a name in one table cell and its value in the next (Markdown and box-drawing tables)", () => {
    const pw = t("{a:14}", 6);
    for (const bar of ["|", "│", "┃", "║"]) {
      const table = `${bar} Name ${bar} Value ${bar}\n${bar} \`DB_PASSWORD\` ${bar} ${pw} ${bar}\n${bar} PORT ${bar} 8080 ${bar}`;
      expect(redacted(table), bar).not.toContain(pw);
    }
  });
});

describe("kinds", () => {
  it("finds webhook URLs whose path or query is the credential", () => {
    const urls = [
      `https://hooks.zapier.com/hooks/catch/${t("{d:7}")}/${t("{l:7}")}/`,
      `https://acme.webhook.office.com/webhookb2/${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}@${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}", 2)}/IncomingWebhook/${t("{h:32}")}/${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}", 3)}/V2${t("{w:40}")}`,
      `https://prod-27.westeurope.logic.azure.com:443/workflows/${t("{h:32}")}/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${t("{w:43}")}`,
      `https://chat.googleapis.com/v1/spaces/AAAA${t("{A:7}")}/messages?key=k&token=${t("{w:43}")}`,
      `https://chat.acme.dev/hooks/${t("{l:26}")}`,
      `https://n8n.acme.dev/webhook/${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}")}`,
      `https://maker.ifttt.com/trigger/done/with/key/${t("{w:22}")}`,
    ];
    for (const url of urls)
      expect(redacted(`the webhook is ${url} — post JSON to it`), url).toContain("[REDACTED:");
  });

  it("finds wallet keys that prove themselves with no word beside them, and others beside a wallet word", () => {
    // A WIF key: version 0x80, 32 bytes, compressed flag, double-SHA-256 checksum.
    const wifs = edgeCorpus(EDGE_KINDS.filter((k) => k.id === "bitcoin-wif")).filter((s) => s.form === "env");
    const wif = /=(\S+)/.exec(wifs[0]?.text ?? "")?.[1] ?? "";
    expect(isWif(wif)).toBe(true);
    expect(redacted(`imported ${wif} ok`)).toBe("imported [REDACTED:bitcoin-wif] ok");
    const solana = edgeCorpus(EDGE_KINDS.filter((k) => k.id === "solana-keypair")).find(
      (s) => s.form === "env",
    );
    const pair = /=(\S+)/.exec(solana?.text ?? "")?.[1] ?? "";
    expect(pair.length).toBeGreaterThan(85);
    expect(redacted(`got ${pair}`)).toBe("got [REDACTED:solana-keypair]");
    // 64 random bytes are no keypair: known only beside a wallet word.
    const random = base58(Buffer.from(t("{h:128}"), "hex"));
    expect(isEd25519Pair(Buffer.from(t("{h:128}"), "hex"))).toBe(false);
    expect(redacted(`got ${random}`)).toBe(`got ${random}`);
    expect(redacted(`my phantom wallet key: ${random}`)).not.toContain(random);
    const nsec = bech32("nsec", Buffer.from(t("{h:64}"), "hex"));
    expect(redacted(`nostr: ${nsec}`)).toBe("nostr: [REDACTED:nostr-nsec]");
    const bytes = Array.from({ length: 64 }, (_, i) => (i * 97 + 13) % 256).join(",");
    expect(redacted(`cat ~/.config/solana/id.json\n[${bytes}]`)).toContain("[REDACTED:solana-keypair-json]");
    const words = "abandon ability able about above absent absorb abstract absurd abuse access accident";
    expect(redacted(`my seed phrase is ${words}`)).not.toContain("absurd abuse");
  });

  it("finds personal access tokens: Asana in a bearer header, Azure DevOps in a sentence", () => {
    const asana = `2/${t("{d:16}")}/${t("{d:16}", 2)}:${t("{h:32}")}`;
    expect(
      redacted(`curl -H "Authorization: Bearer ${asana}" https://app.asana.com/api/1.0/users/me`),
    ).not.toContain(asana.slice(-32));
    const bare = t("{a:40}", 12);
    expect(redacted(`here is the token ${bare} for staging`)).toBe(
      "here is the token [REDACTED:prose-named-value] for staging",
    );
    const ado = t("{[a-z2-7]:52}");
    expect(
      redacted(`my Azure DevOps personal access token is ${ado}, use it for the pipeline`),
    ).not.toContain(ado);
  });

  it("finds secret names in any naming style, values with no digit or made of words, passwords with % or $", () => {
    const psk = t("{a:16}");
    expect(redacted(`{ "wifiPsk": "${psk}" }`)).not.toContain(psk);
    const letters = t("{A:32}");
    expect(redacted(`INTERNAL_AUTH_TOKEN=${letters}`)).not.toContain(letters);
    const percent = `${t("{a:6}")}%${t("{a:6}", 2)}%d${t("{a:4}", 3)}`;
    expect(redacted(`db.password = ${percent}`)).not.toContain(percent);
    const dollar = `$${t("{a:12}")}`;
    expect(redacted(`SMTP_PASS=${dollar}`)).not.toContain(dollar);
    const words = t("{L:5}-{L:6}-{L:5}-{L:7}", 8);
    expect(redacted(`DB_PASSWORD=${words}`)).toBe("DB_PASSWORD=[REDACTED:password-assignment]");
    const key = t("{a:40}", 7);
    expect(redacted(`my pat is ${key}`)).toBe("my pat is [REDACTED:prose-secret]");
    const apim = t("{h:32}", 9);
    expect(redacted(`curl -H "Ocp-Apim-Subscription-Key: ${apim}" https://api.acme.dev`)).not.toContain(apim);
    const raw = t("{a:40}", 10);
    expect(redacted(`curl -H "Authorization: ${raw}" https://api.acme.dev`)).not.toContain(raw);
    const lower = t("{L:16}", 11);
    expect(redacted(`DB_PASSWORD=${lower}`)).toBe("DB_PASSWORD=[REDACTED:password-assignment]");
    // Words run together are a passphrase under a password's name, in every naming style alike.
    for (const words of ["correcthorsebatterystaple", "purplemonkeydishwasher"])
      for (const text of [
        `{"wifiPsk": "${words}"}`,
        `smtpPassword: ${words}`,
        `WIFI_PSK=${words}`,
        `wifi_password: ${words}`,
        `wifi-psk: ${words}`,
        `wifi.passphrase = ${words}`,
      ])
        expect(redacted(text), text).not.toContain(words);
    const pabbly = `https://connect.pabbly.com/workflow/sendwebhookdata/${t("{w:60}")}`;
    expect(redacted(`post it to ${pabbly}`)).not.toContain(pabbly.slice(-40));
  });
});

describe("what stays", () => {
  it("leaves listings, wrapped prose, banners, references and password hashes alone", () => {
    const listing = Array.from(
      { length: 4 },
      (_, i) => `drwxr-xr-x@  2 user  staff  64 Jan  8 22:47 ${t("{h:8}-{h:4}-{h:4}-{h:4}-{h:12}", i)}`,
    ).join("\n");
    const prose = wrap(
      "The build ran the test suite again and the summary looked fine; the release notes mention the new parser and the configuration loader that reads TOKEN_LIMIT from the environment.",
      80,
    );
    const banner = `// ${"=".repeat(76)}\n// Types & Schema\n// ${"=".repeat(76)}`;
    const clean = [
      listing,
      prose,
      banner,
      "SMTP_PASS=$SMTP_PASSWORD",
      "password_hash = $2b$12$abcdefghijklmnopqrstuv",
      "const tokenCount = 1234567890123456789;",
      "give him a pat on the back: it was good work overall today",
      "the USDC token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 on mainnet; the token limit 128000 was hit",
      "passwordKey: postgres-password",
      "smtpPassword: administrator",
      '{"password": "yourpasswordgoeshere", "adminPassword": "changemechangemechangeme"}',
      "POSTGRES_PASSWORD=postgres\npassword: administrator\nIdempotency-Key: 3f2a-order-create-retry",
      // A key-like header after a JSON-escaped line break: the escape's letter is not part of its name.
      JSON.stringify({ output: "HTTP/1.1 200 OK\nIdempotency-Key: 3f2a-order-create-retry" }),
      "private computePassEncoder: GPUComputePassEncoder;\nconst pass: GPURenderPassEncoder = encoder;",
      "see https://react.dev/reference/react/hooks/useEffect and https://github.com/acme/repo/settings/hooks/123456789",
      `| Token | Purpose |\n|-------|---------|\n| \`accent\` | Primary accent color |`,
    ];
    for (const text of clean) expect(scanPatterns(text), text).toEqual([]);
  });
});
