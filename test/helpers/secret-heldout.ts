/**
 * A held-out secret catalogue: credential formats and embeddings that the rules were NOT written against
 * (secret-formats.ts is the checklist they were written from). Written from public facts about each format
 * (trufflehog's detectors, gitleaks' rules, secretlint's rules, the providers' documentation): prefixes,
 * lengths, charsets and, where a format has one, its checksum (GitHub's and npm's CRC32 in base62). Each
 * value is placed the way a user pastes it into an agent session: in diffs, URLs, code, shell commands,
 * container flags, Kubernetes manifests, base64-wrapped, split across string literals. Deterministic; no
 * credential-shaped literal sits in the repo.
 */
import { renderTemplate } from "./secret-corpus.js";

/** One held-out sample: the text a transcript holds, and the runs of it that must not survive. */
export interface HeldOutSample {
  format: string;
  context: string;
  text: string;
  /** Sub-strings of the secret (8 characters or more) that no redacted text may still hold. */
  runs: string[];
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

let crcTable: Uint32Array | null = null;

/** CRC32 (IEEE), as GitHub's and npm's token checksums use it. */
export function crc32(s: string): number {
  if (crcTable === null) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < s.length; i++) c = (crcTable[(c ^ s.charCodeAt(i)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** `n` in base62, left-padded with `0` to 6 digits (the checksum tail of GitHub and npm tokens). */
function base62(n: number): string {
  let out = "";
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = BASE62[v % 62] + out;
  return out.padStart(6, "0");
}

/** A token with a CRC32 checksum tail: prefix + 30 random base62 + base62(crc32(random)). */
function checksummed(prefix: string, seed: number): { value: string; runs: string[] } {
  const { value: body } = renderTemplate("{a:30}", seed, 0);
  return { value: `${prefix}${body}${base62(crc32(body))}`, runs: [body] };
}

const tpl =
  (template: string) =>
  (seed: number): { value: string; runs: string[] } =>
    renderTemplate(template, seed, (seed % 3) as 0 | 1 | 2);

const UUID = "{h:8}-{h:4}-4{h:3}-a{h:3}-{h:12}";

/** Formats with a shape of their own. */
const TOKENS: [string, string | ((seed: number) => { value: string; runs: string[] }), string][] = [
  ["github-pat-crc32", (s) => checksummed("ghp_", s), "GH_TOKEN"],
  ["github-app-install-crc32", (s) => checksummed("ghs_", s), "GITHUB_TOKEN"],
  ["npm-crc32", (s) => checksummed("npm_", s), "NPM_TOKEN"],
  ["pypi-test-macaroon", "pypi-AgENdGVzdC5weXBpLm9yZw{w:60-150}", "TWINE_PASSWORD"],
  ["slack-client-token", "xoxc-{d:12}-{d:12}-{d:13}-{h:64}", "SLACK_XOXC"],
  ["slack-refresh-token", "xoxe-1-{u:40}-{d:13}-{d:13}-{h:64}", "SLACK_REFRESH"],
  ["stripe-test-secret", "sk_test_51{a:97}", "STRIPE_SECRET"],
  ["stripe-restricted-live", "rk_live_51{a:97}", "STRIPE_RK"],
  ["openai-service-account", "sk-svcacct-{w:74}T3BlbkFJ{w:74}", "OPENAI_API_KEY"],
  ["openai-admin", "sk-admin-{w:74}T3BlbkFJ{w:74}", "OPENAI_ADMIN_KEY"],
  ["anthropic-oauth", "sk-ant-oat01-{w:93}AA", "CLAUDE_CODE_OAUTH_TOKEN"],
  ["anthropic-session", "sk-ant-sid01-{w:93}AA", "ANTHROPIC_SESSION"],
  ["huggingface-write", "hf_{A:34}", "HF_TOKEN"],
  ["bitbucket-app-password", "ATBB{a:32}{H:8}", "BITBUCKET_APP_PASSWORD"],
  ["atlassian-connect", "ATCTT3xFfGN0{w:180}", "BITBUCKET_ACCESS_TOKEN"],
  ["doppler-service", "dp.st.prd.{a:40}", "DOPPLER_TOKEN"],
  ["doppler-cli", "dp.ct.{a:43}", "DOPPLER_TOKEN"],
  ["doppler-service-account", "dp.sa.{a:43}", "DOPPLER_TOKEN"],
  ["postman-collection", "PMAT-{u:26}", "POSTMAN_TOKEN"],
  ["linear-oauth", "lin_oauth_{h:64}", "LINEAR_TOKEN"],
  ["notion-legacy", "secret_{a:43}", "NOTION_TOKEN"],
  ["supabase-secret", "sb_secret_{w:31}", "SUPABASE_SECRET_KEY"],
  ["vercel-integration", "vci_{a:24}", "VERCEL_TOKEN"],
  ["vercel-ai-gateway", "vck_{a:56}", "AI_GATEWAY_API_KEY"],
  ["vault-recovery", "hvr.{w:95}", "VAULT_TOKEN"],
  ["posthog-personal", "phx_{a:43}", "POSTHOG_PERSONAL_API_KEY"],
  ["langfuse-secret", `sk-lf-${UUID}`, "LANGFUSE_SECRET_KEY"],
  ["launchdarkly-api", `api-${UUID}`, "LD_API_KEY"],
  ["mapbox-secret", "sk.eyJ1IjoiYWNtZSIsImEiOiJ{w:40}.{w:22}", "MAPBOX_SECRET"],
  ["google-refresh-token", "1//0{w:100}", "GOOGLE_REFRESH_TOKEN"],
  ["firebase-fcm-server-key", "AAAA{w:7}:APA91b{w:134}", "FCM_SERVER_KEY"],
  ["resend", "re_{a:8}_{a:24}", "RESEND_API_KEY"],
  ["docker-org-token", "dckr_oat_{w:32}", "DOCKER_TOKEN"],
  ["tailscale-api", "tskey-api-{a:12}CNTRL-{a:32}", "TS_API_KEY"],
  ["tailscale-client", "tskey-client-{a:12}CNTRL-{a:32}", "TS_OAUTH_SECRET"],
  ["azure-entra-refresh", "0.A{w:60}.Ag{w:260}", "AZURE_REFRESH_TOKEN"],
  ["aws-access-key-id", "AKIA{b32:16}", "AWS_ACCESS_KEY_ID"],
  ["aws-session-token", "IQoJb3JpZ2luX2VjE{b:600}", "AWS_SESSION_TOKEN"],
  ["aws-session-token-legacy", "FwoGZXIvYXdzE{b:300}", "AWS_SESSION_TOKEN"],
  ["gitlab-pat-routable", "glpat-{w:27}.01{l:7}", "GITLAB_TOKEN"],
  ["discord-bot-new", "{b64id:19}.G{w:5}.{w:38}", "DISCORD_BOT_TOKEN"],
  ["sendgrid-dash", "SG.-{w:21}.{w:43}", "SENDGRID_API_KEY"],
  ["twilio-api-key", "SK{h:32}", "TWILIO_API_KEY"],
  ["shopify-app", "shpat_{h:32}", "SHOPIFY_TOKEN"],
  ["grafana-cloud-b64", "glc_eyJvIjoi{b:100}", "GRAFANA_TOKEN"],
  ["digitalocean-oauth", "doo_v1_{h:64}", "DIGITALOCEAN_TOKEN"],
  ["age", "AGE-SECRET-KEY-1{[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]:58}", "SOPS_AGE_KEY"],
  ["jwt-hs256", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwi{w:60}.{w:43}", "SESSION_JWT"],
];

/** Formats recognisable by their name only (random values of a common shape). */
const KEYED: [string, string, string][] = [
  ["datadog-api", "DD_API_KEY", "{h:32}"],
  ["datadog-app", "DD_APP_KEY", "{h:40}"],
  ["cloudflare-api-token", "CF_API_TOKEN", "{w:40}"],
  ["honeycomb", "HONEYCOMB_API_KEY", "{a:22}"],
  ["ngrok", "NGROK_AUTHTOKEN", "2{a:26}_{d:1}{a:20}"],
  ["laravel-app-key", "APP_KEY", "base64:{b:43}="],
  ["hmac-key", "WEBHOOK_HMAC_KEY", "{h:64}"],
  ["encryption-salt", "ENCRYPTION_SALT", "{a:32}"],
  ["mailgun-new", "MAILGUN_API_KEY", "{h:32}-{h:8}-{h:8}"],
  ["azure-devops-pat-2024", "AZURE_DEVOPS_EXT_PAT", "{a:76}AZDO{a:4}"],
  ["vault-legacy", "VAULT_TOKEN", "s.{a:24}"],
  ["mysql-password", "MYSQL_ROOT_PASSWORD", "{a:12}!{a:3}"],
  ["aws-secret", "aws_secret_access_key", "{b:40}"],
  // second round: vendors known only by a `_KEY` name
  ["backblaze-b2", "B2_APPLICATION_KEY", "K005{a:27}"],
  ["qdrant", "QDRANT_API_KEY", "{w:40}"],
  ["recaptcha", "RECAPTCHA_SECRET_KEY", "6L{w:38}"],
  ["convex-deploy", "CONVEX_DEPLOY_KEY", "prod:acme-fox-123|{b:80}"],
  ["modal", "MODAL_TOKEN_SECRET", "as-{a:22}"],
  ["unknown-vendor-key", "ACME_SIGNER_KEY", "{a:40}"],
];

/** Credentials that live only in one syntax: [id, generator of the whole text]. */
const SPECIAL: [string, (seed: number) => { text: string; runs: string[]; context: string }[]][] = [
  [
    "putty-private-key",
    (s) => {
      const pub = renderTemplate("{b:68}", s, 0).value;
      const priv = renderTemplate("{b:44}", s + 1, 0).value;
      const mac = renderTemplate("{h:64}", s + 2, 0).value;
      const key = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI${pub}\nPrivate-Lines: 1\n${priv}\nPrivate-MAC: ${mac}\n`;
      return [
        { context: "file", text: `$ cat ~/keys/deploy.ppk\n${key}`, runs: [priv] },
        { context: "json", text: JSON.stringify({ stdout: key }), runs: [priv] },
      ];
    },
  ],
  [
    "ssh2-private-key",
    (s) => {
      const body = [0, 1, 2].map((k) => renderTemplate("{b:70}", s + k, 0).value);
      const key = `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-20261101"\n${body.join("\n")}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`;
      return [{ context: "file", text: key, runs: body }];
    },
  ],
  [
    "pem-in-diff",
    (s) => {
      const body = [0, 1, 2].map((k) => renderTemplate("{b:64}", s + k, 0).value);
      const diff = `diff --git a/deploy/key.pem b/deploy/key.pem\n--- /dev/null\n+++ b/deploy/key.pem\n@@ -0,0 +1,5 @@\n+-----BEGIN EC PRIVATE KEY-----\n${body.map((b) => `+${b}`).join("\n")}\n+-----END EC PRIVATE KEY-----`;
      return [{ context: "diff", text: diff, runs: body }];
    },
  ],
  [
    "pem-base64-wrapped",
    (s) => {
      const body = [0, 1, 2].map((k) => renderTemplate("{b:64}", s + k, 0).value);
      const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----\n`;
      const b64 = btoa(pem);
      const runs = [b64.slice(60, 120), b64.slice(140, 200)];
      return [
        {
          context: "kubeconfig",
          text: `users:\n- name: admin\n  user:\n    client-certificate-data: ${btoa("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")}\n    client-key-data: ${b64}\n`,
          runs,
        },
        {
          context: "k8s-secret",
          text: `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: ${b64}\n`,
          runs,
        },
      ];
    },
  ],
  [
    "gcp-service-account-json",
    (s) => {
      const body = [0, 1, 2, 3].map((k) => renderTemplate("{b:64}", s + k, 0).value);
      const pk = `-----BEGIN PRIVATE KEY-----\n${body.join("\n")}\n-----END PRIVATE KEY-----\n`;
      const sa = {
        type: "service_account",
        project_id: "acme-prod",
        private_key_id: renderTemplate("{h:40}", s + 9, 0).value,
        private_key: pk,
        client_email: "ci@acme-prod.iam.gserviceaccount.com",
        client_id: "112233445566778899001",
      };
      return [
        { context: "file", text: `$ cat sa.json\n${JSON.stringify(sa, null, 2)}`, runs: body },
        {
          context: "base64-env",
          text: `GOOGLE_CREDENTIALS_B64=${btoa(JSON.stringify(sa))}`,
          runs: [btoa(JSON.stringify(sa)).slice(200, 260)],
        },
      ];
    },
  ],
  [
    "azure-cosmos-connection",
    (s) => {
      const key = renderTemplate("{b:86}", s, 0).value;
      return [
        {
          context: "env",
          text: `COSMOS_CONNECTION=AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey=${key}==;`,
          runs: [key],
        },
      ];
    },
  ],
  [
    "azure-function-key-url",
    (s) => {
      const code = renderTemplate("{w:54}", s, 0).value;
      return [
        {
          context: "url",
          text: `curl "https://acme-fn.azurewebsites.net/api/HttpTrigger1?code=${code}==&name=x"`,
          runs: [code],
        },
      ];
    },
  ],
  [
    "aws-presigned-url",
    (s) => {
      const tok = renderTemplate("{b:300}", s, 0).value;
      const enc = encodeURIComponent(`IQoJb3JpZ2luX2VjE${tok}`);
      return [
        {
          context: "url",
          text: `Download: https://acme.s3.amazonaws.com/a.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAXYZ%2F20261101&X-Amz-Security-Token=${enc}&X-Amz-Signature=${renderTemplate("{h:64}", s + 1, 0).value}`,
          runs: [enc.slice(40, 100)],
        },
      ];
    },
  ],
  [
    "aws-sts-json",
    (s) => {
      const secret = renderTemplate("{b:40}", s, 0).value;
      const tok = renderTemplate("{b:500}", s + 1, 0).value;
      const out = JSON.stringify(
        {
          Credentials: {
            AccessKeyId: `ASIA${renderTemplate("{b32:16}", s + 2, 0).value}`,
            SecretAccessKey: secret,
            SessionToken: `IQoJb3JpZ2luX2VjE${tok}`,
            Expiration: "2026-11-01T12:00:00Z",
          },
        },
        null,
        4,
      );
      return [
        {
          context: "cli-output",
          text: `$ aws sts assume-role --role-arn arn:aws:iam::1:role/x\n${out}`,
          runs: [secret, tok.slice(0, 60)],
        },
      ];
    },
  ],
  [
    "aws-credentials-file",
    (s) => {
      const secret = renderTemplate("{b:40}", s, 0).value;
      const tok = renderTemplate("{b:400}", s + 1, 0).value;
      return [
        {
          context: "ini",
          text: `[default]\naws_access_key_id = ASIA${renderTemplate("{b32:16}", s + 2, 0).value}\naws_secret_access_key = ${secret}\naws_session_token = FwoGZXIvYXdzE${tok}\n`,
          runs: [secret, tok.slice(0, 60)],
        },
      ];
    },
  ],
  [
    "url-query-secret",
    (s) => {
      const v = renderTemplate("{a:40}", s, 0).value;
      const k = renderTemplate("{w:35}", s + 1, 0).value;
      return [
        {
          context: "access_token",
          text: `GET https://graph.example.com/v2/me?fields=id&access_token=${v}&debug=1`,
          runs: [v],
        },
        {
          context: "api_key",
          text: `fetch("https://api.example.com/v1/search?q=cats&api_key=${v}&limit=5")`,
          runs: [v],
        },
        {
          context: "google-key",
          text: `https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIza${k}&region=us`,
          runs: [k],
        },
      ];
    },
  ],
  [
    "db-cli-password",
    (s) => {
      const p = renderTemplate("{a:14}", s, 0).value;
      return [
        { context: "mysql-attached", text: `mysql -h db.internal -u root -p${p} shop < dump.sql`, runs: [p] },
        {
          context: "sshpass",
          text: `sshpass -p '${p}' ssh deploy@10.0.0.4 'sudo systemctl restart app'`,
          runs: [p],
        },
        {
          context: "redis-cli",
          text: `redis-cli -h cache.internal -a ${p} --no-auth-warning PING`,
          runs: [p],
        },
        {
          context: "jdbc",
          text: `jdbc:postgresql://db.internal:5432/app?user=app&password=${p}&ssl=true`,
          runs: [p],
        },
        { context: "netrc", text: `machine api.example.com\n  login deploy\n  password ${p}\n`, runs: [p] },
        { context: "pgpass", text: `db.internal:5432:app:deploy:${p}`, runs: [p] },
        { context: "htpasswd-cli", text: `docker login -u ci -p ${p} registry.example.com`, runs: [p] },
      ];
    },
  ],
  [
    "docker-config-auth",
    (s) => {
      const p = renderTemplate("{a:24}", s, 0).value;
      const auth = btoa(`ci-bot:${p}`);
      return [
        {
          context: "json",
          text: JSON.stringify({ auths: { "ghcr.io": { auth } } }, null, 2),
          runs: [auth.slice(8)],
        },
      ];
    },
  ],
  [
    "basic-auth-in-url",
    (s) => {
      const tok = checksummed("ghp_", s).value;
      const p = renderTemplate("{a:20}", s + 1, 0).value;
      return [
        {
          context: "git-remote",
          text: `git remote set-url origin https://x-access-token:${tok}@github.com/acme/app.git`,
          runs: [tok.slice(4)],
        },
        {
          context: "pip-index",
          text: `pip install --index-url https://__token__:${p}@pypi.acme.internal/simple app`,
          runs: [p],
        },
        {
          context: "telegram-url",
          text: `curl https://api.telegram.org/bot${renderTemplate("{d:10}", s, 0).value}:AA${p}abcdefghijkl/sendMessage`,
          runs: [p],
        },
      ];
    },
  ],
];

/** Contexts a token is pasted in. */
function tokenContexts(name: string, v: string): [string, string][] {
  const half = Math.floor(v.length / 2);
  return [
    ["markdown", `I set it to \`${v}\` in the dashboard; does the request look right?`],
    ["diff", `--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n-${name}=\n+${name}=${v}\n DEBUG=false`],
    ["docker-env", `docker run --rm -e ${name}=${v} -p 8080:8080 acme/app:latest`],
    ["python", `client = Client(token="${v}", timeout=30)`],
    ["yaml-list", `env:\n  - name: ${name}\n    value: "${v}"`],
    ["double-escaped", JSON.stringify({ stdout: JSON.stringify({ output: `token ${v} ok` }) })],
    ["base64-echo", `echo ${btoa(v)} | base64 -d > /tmp/t`],
    ["split-quotes", `const t = "${v.slice(0, half)}" + "${v.slice(half)}";`],
    ["url-param", `https://ci.example.com/hook?token=${encodeURIComponent(v)}&build=42`],
  ];
}

/** Contexts for a value recognisable only by its name. */
function keyedContexts(name: string, v: string): [string, string][] {
  return [
    ["diff", `@@ -3,1 +3,1 @@\n-${name}=changeme\n+${name}=${v}`],
    ["docker-env", `docker run -e ${name}="${v}" acme/app`],
    ["python-dict", `settings = {"${name.toLowerCase()}": "${v}", "debug": False}`],
    ["k8s-env", `        - name: ${name}\n          value: ${v}`],
    ["ini-spaces", `[service]\n${name.toLowerCase()} = ${v}`],
    ["gh-secret", `gh secret set ${name} --body "${v}"`],
    // second round: subscripts, XML, PowerShell, Java properties, HTML
    ["subscript", `os.environ["${name}"] = "${v}"`],
    ["xml", `<config>\n  <${name.toLowerCase()}>${v}</${name.toLowerCase()}>\n</config>`],
    ["powershell", `$env:${name} = "${v}"`],
    ["java-property", `System.setProperty("${name.toLowerCase().replaceAll("_", ".")}", "${v}");`],
    ["properties", `${name.toLowerCase().replaceAll("_", ".")}=${v}`],
  ];
}

/** Runs of `v` to check: its random runs, and for encoded contexts their encoded forms. */
function runsIn(context: string, v: string, runs: string[]): string[] {
  if (context === "base64-echo") {
    const b = btoa(v);
    return [b.slice(4, -4)];
  }
  if (context === "split-quotes") {
    const half = Math.floor(v.length / 2);
    return [v.slice(0, half), v.slice(half)].filter((r) => r.length >= 8).map((r) => r.slice(-8));
  }
  if (context === "url-param") return runs.map((r) => encodeURIComponent(r));
  if (context === "double-escaped") return runs.map((r) => JSON.stringify(JSON.stringify(r)).slice(3, -3));
  return runs;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Every held-out format id (the table of the generated test). */
export const HELD_OUT_FORMATS: readonly string[] = [
  ...TOKENS.map(([id]) => id),
  ...KEYED.map(([id]) => id),
  ...SPECIAL.map(([id]) => id),
];

/** The held-out corpus: every format in each of its contexts. */
export function heldOutCorpus(): HeldOutSample[] {
  const out: HeldOutSample[] = [];
  for (const [id, make, name] of TOKENS) {
    const seed = hash(id);
    const { value, runs } = typeof make === "string" ? tpl(make)(seed) : make(seed);
    for (const [context, text] of tokenContexts(name, value))
      out.push({
        format: id,
        context,
        text,
        runs: runsIn(
          context,
          value,
          runs.filter((r) => r.length >= 8),
        ),
      });
  }
  for (const [id, name, template] of KEYED) {
    const { value, runs } = tpl(template)(hash(id));
    for (const [context, text] of keyedContexts(name, value))
      out.push({ format: id, context, text, runs: runs.filter((r) => r.length >= 8) });
  }
  for (const [id, make] of SPECIAL)
    for (const s of make(hash(id))) out.push({ format: id, context: s.context, text: s.text, runs: s.runs });
  return out;
}

/** True when no run of the sample is left in `text`. */
export function heldOutGone(s: HeldOutSample, text: string): boolean {
  return s.runs.every((r) => !text.includes(r));
}
