/**
 * A generated corpus of secrets in the forms coding agents display them (issue 33): not new kinds, but each
 * kind as an agent shows it — a file read through Claude Code's Read tool (`     1→…` gutters) or its Edit
 * snippet, Codex's exec output of `cat -n`/`nl -ba` (tabs, JSON-escaped in the function call's output) and
 * its `read_file` (`L1: …`), Hermes's `read_file` (`     1|…` in JSON), pi's read (raw) and grep (`path:12:
 * …`), a git diff and a Codex patch (`+…`), a quoted reply (`> …`), prose that names the secret in a
 * sentence, a command that prints it bare (the name is in the command, not beside the value), and a value
 * split across lines by a string join. How each agent shows a file is taken from the real transcripts in
 * test/fixtures/traces (Claude's `→`, Codex's `\t` gutters, pi's raw reads and `path:n:` greps, Hermes's
 * documented `LINE|CONTENT`). Values are random, generated here; deterministic.
 */
import { type CorpusSample, renderTemplate } from "./secret-corpus.js";

/** One kind: its value, the file it lives in, what prose calls it, and a command that prints it. */
export interface FormKind {
  id: string;
  /** Template of the value (see secret-formats.ts). */
  value: string;
  /** The file holding it: a path and its lines (`{v}` stands for the value). */
  file: { path: string; lines: string[] };
  /** What a sentence calls it ("the Jenkins API token"). */
  noun: string;
  /** A command that prints the value bare (`{v}` when the command itself carries it). */
  read: string;
  /** Known by its shape alone, so a join of its pieces is a form of it too. */
  shape?: true;
}

const UUID = "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}";
const DJANGO = "[a-z0-9!@#$%^&*(_=+)-]";

/** The kinds: values found by shape, by name, and by neither (only the form says what they are). */
export const FORM_KINDS: readonly FormKind[] = [
  {
    id: "github-pat",
    value: "ghp_{a:36}",
    file: { path: ".env", lines: ["NODE_ENV=production", "GITHUB_TOKEN={v}", "LOG_LEVEL=info"] },
    noun: "GitHub token",
    read: "gh auth token",
    shape: true,
  },
  {
    id: "aws-secret-access-key",
    value: "{b:40}",
    file: {
      path: "~/.aws/credentials",
      lines: [
        "[default]",
        "aws_access_key_id = AKIA{b32:16}",
        "aws_secret_access_key = {v}",
        "region = eu-west-1",
      ],
    },
    noun: "AWS secret access key",
    read: "aws configure get aws_secret_access_key",
  },
  {
    id: "pgpass",
    value: "{a:20}",
    file: { path: "~/.pgpass", lines: ["# host:port:db:user:password", "db.internal:5432:app:deploy:{v}"] },
    noun: "database password",
    read: "vault kv get -field=password secret/prod/db",
  },
  {
    id: "netrc",
    value: "{a:18}",
    file: { path: "~/.netrc", lines: ["machine api.example.com", "  login deploy", "  password {v}"] },
    noun: "password for api.example.com",
    read: "security find-generic-password -w -s api.example.com",
  },
  {
    id: "dotenv-password",
    value: "{a:14}",
    file: { path: ".env", lines: ["DB_HOST=db.internal", "DB_PASSWORD={v}", "DB_POOL=10"] },
    noun: "DB password",
    read: "printenv DB_PASSWORD",
  },
  {
    id: "django-secret-key",
    value: `django-insecure-{${DJANGO}:50}`,
    file: {
      path: "mysite/settings.py",
      lines: [
        "# SECURITY WARNING: keep the secret key used in production secret!",
        "SECRET_KEY = '{v}'",
        "DEBUG = True",
      ],
    },
    noun: "Django secret key",
    read: "heroku config:get DJANGO_SECRET_KEY",
    shape: true,
  },
  {
    id: "django-secret-key-bare",
    value: `{${DJANGO}:50}`,
    file: {
      path: "config/settings/prod.py",
      lines: ["import os", 'SECRET_KEY = "{v}"', "ALLOWED_HOSTS = ['*']"],
    },
    noun: "Django SECRET_KEY",
    read: "op read op://prod/django/secret_key",
  },
  {
    id: "jenkins-api-token",
    value: "11{h:32}",
    file: {
      path: "jenkins.properties",
      lines: ["jenkins.url=https://ci.example.com", "jenkins.user=deploy", "jenkins.apiToken={v}"],
    },
    noun: "Jenkins API token",
    read: "printenv JENKINS_API_TOKEN",
  },
  {
    id: "azure-devops-pat",
    value: "{l:52}",
    file: { path: "azure-pipelines.env", lines: ["ORG=acme", "AZURE_DEVOPS_EXT_PAT={v}"] },
    noun: "Azure DevOps PAT",
    read: "az keyvault secret show --vault-name acme --name ado-pat --query value -o tsv",
  },
  {
    id: "vault-unseal-key",
    value: "{b:43}=",
    file: { path: "vault-init.txt", lines: ["Unseal Key 1: {v}", "", "Vault initialized with 1 key shares"] },
    noun: "unseal key 1",
    read: "jq -r '.unseal_keys_b64[0]' cluster-keys.json",
  },
  {
    id: "okta-ssws",
    value: "00{w:40}",
    file: {
      path: "requests.http",
      lines: [
        "GET https://acme.okta.com/api/v1/users",
        "Authorization: SSWS {v}",
        "Accept: application/json",
      ],
    },
    noun: "Okta API token",
    read: "op read op://infra/okta/credential",
  },
  {
    id: "heroku-api-key",
    value: UUID,
    file: {
      path: "~/.netrc",
      lines: ["machine api.heroku.com", "  login dev@example.com", "  password {v}"],
    },
    noun: "Heroku API key",
    read: "heroku auth:token",
  },
  {
    id: "k8s-secret-base64",
    value: "{b:32}",
    file: { path: "k8s/db-secret.yaml", lines: ["kind: Secret", "data:", "  password: {v}", "type: Opaque"] },
    noun: "base64 password of the db secret",
    read: "kubectl get secret db -o jsonpath='{.data.password}'",
  },
  {
    id: "ngrok-authtoken",
    value: "2{a:26}_{a:21}",
    file: { path: "~/.config/ngrok/ngrok.yml", lines: ['version: "2"', "authtoken: {v}"] },
    noun: "ngrok authtoken",
    read: "ngrok config add-authtoken {v}",
  },
  {
    id: "eth-private-key",
    value: "0x{h:64}",
    file: {
      path: "hardhat.config.js",
      lines: [
        "module.exports = {",
        "  networks: {",
        '    sepolia: { url: RPC_URL, accounts: ["{v}"] },',
        "  },",
        "};",
      ],
    },
    noun: "deployer private key",
    read: "printenv DEPLOYER_KEY",
  },
  {
    id: "twilio-auth-token",
    value: "{h:32}",
    file: { path: ".env.local", lines: ["TWILIO_ACCOUNT_SID=AC{h:32}", "TWILIO_AUTH_TOKEN={v}"] },
    noun: "Twilio auth token",
    read: "echo $TWILIO_AUTH_TOKEN",
  },
  {
    id: "gcp-access-token",
    value: "ya29.{w:120}",
    file: { path: "token.txt", lines: ["{v}"] },
    noun: "Google access token",
    read: "gcloud auth print-access-token",
    shape: true,
  },
  {
    id: "ecr-login-password",
    value: "eyJwYXlsb2FkIjoi{b:300}",
    file: { path: "ecr-login.txt", lines: ["{v}"] },
    noun: "ECR login password",
    read: "aws ecr get-login-password --region eu-west-1",
    shape: true,
  },
  {
    id: "yaml-password",
    value: "{a:16}",
    file: {
      path: "config/database.yml",
      lines: ["production:", "  adapter: postgresql", "  username: app", "  password: {v}"],
    },
    noun: "production database password",
    read: "terraform output -raw db_password",
  },
  {
    id: "anthropic-key",
    value: "sk-ant-api03-{w:93}AA",
    file: { path: ".env", lines: ["ANTHROPIC_API_KEY={v}"] },
    noun: "Anthropic API key",
    read: "printenv ANTHROPIC_API_KEY",
    shape: true,
  },
  {
    id: "stripe-live-key",
    value: "sk_live_{a:24}",
    file: { path: "config.js", lines: ["export default {", '  stripeKey: "{v}",', "};"] },
    noun: "Stripe secret key",
    read: "doppler secrets get STRIPE_SECRET_KEY --plain",
    shape: true,
  },
  {
    id: "private-key-pem",
    value: "{b:64}",
    file: {
      path: "~/.ssh/deploy_key",
      lines: [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "{v}",
        "{b:64}",
        "{b:36}",
        "-----END OPENSSH PRIVATE KEY-----",
      ],
    },
    noun: "deploy key",
    read: "cat ~/.ssh/deploy_key",
  },
  {
    id: "slack-workflow-webhook",
    value: "https://hooks.slack.com/triggers/T{u:10}/{d:13}/{h:32}",
    file: { path: "notify.sh", lines: ["#!/bin/sh", 'curl -X POST -d "$1" {v}'] },
    noun: "Slack workflow webhook",
    read: "printenv SLACK_WEBHOOK_URL",
    shape: true,
  },
  {
    id: "discord-webhook-suffix",
    value: "https://discord.com/api/webhooks/{d:19}/{w:68}/github",
    file: { path: ".github/workflows/notify.yml", lines: ["    steps:", "      - run: curl -X POST {v}"] },
    noun: "Discord webhook",
    read: "printenv DISCORD_WEBHOOK",
    shape: true,
  },
];

/** A form: how an agent displays a file (lines) or a value. */
export type FormId =
  | "claude-read"
  | "claude-edit"
  | "codex-cat-n"
  | "codex-exec-json"
  | "codex-read-file"
  | "hermes-read"
  | "pi-read"
  | "grep-n"
  | "git-diff"
  | "codex-patch"
  | "quoted"
  | "prose-is"
  | "prose-colon"
  | "command-output"
  | "join-plus"
  | "join-implicit"
  | "join-backslash";

/** Every form, in the order the bench reports them. */
export const FORMS: readonly FormId[] = [
  "claude-read",
  "claude-edit",
  "codex-cat-n",
  "codex-exec-json",
  "codex-read-file",
  "hermes-read",
  "pi-read",
  "grep-n",
  "git-diff",
  "codex-patch",
  "quoted",
  "prose-is",
  "prose-colon",
  "command-output",
  "join-plus",
  "join-implicit",
  "join-backslash",
];

const gutter = (n: number, sep: string) => `${String(n).padStart(6)}${sep}`;

/** A file's lines as each form shows them. */
function fileForm(form: FormId, path: string, lines: string[]): string | null {
  const numbered = (sep: string, from = 1) => lines.map((l, i) => `${gutter(i + from, sep)}${l}`).join("\n");
  switch (form) {
    case "claude-read":
      return `${numbered("→")}\n`;
    case "claude-edit":
      return `The file /w/app/${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numbered("→", 12)}`;
    case "codex-cat-n":
      return `Exit code: 0\nWall time: 0.1 seconds\nOutput:\n${numbered("\t")}\n`;
    case "codex-exec-json":
      return JSON.stringify({
        output: `${numbered("\t")}\n`,
        metadata: { exit_code: 0, duration_seconds: 0.1 },
      });
    case "codex-read-file":
      return lines.map((l, i) => `L${i + 1}: ${l}`).join("\n");
    case "hermes-read":
      return JSON.stringify({
        content: numbered("|"),
        total_lines: lines.length,
        file_size: 512,
        truncated: false,
      });
    case "pi-read":
      return lines.join("\n");
    case "grep-n":
      return lines.map((l, i) => `${path}:${i + 3}:${l}`).join("\n");
    case "git-diff":
      return [
        `diff --git a/${path} b/${path}`,
        "index 3f2a1b9..8c4d0e7 100644",
        `--- a/${path}`,
        `+++ b/${path}`,
        `@@ -1,1 +1,${lines.length} @@`,
        ...lines.map((l) => `+${l}`),
      ].join("\n");
    case "codex-patch":
      return ["*** Begin Patch", `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), "*** End Patch"].join(
        "\n",
      );
    case "quoted":
      return `You pasted this from ${path}:\n\n${lines.map((l) => `> ${l}`).join("\n")}\n\nI'll move it into the secret store.`;
    default:
      return null;
  }
}

/** The value (or its pieces) in a form that is not a file. */
function valueForm(form: FormId, kind: FormKind, v: string): { text: string; pieces?: string[] } | null {
  switch (form) {
    case "prose-is":
      return { text: `For the record, the ${kind.noun} is ${v} and it expires next month.` };
    case "prose-colon":
      return { text: `Sure — here's the ${kind.noun}: ${v}\nPaste it into the CI settings, not the repo.` };
    case "command-output": {
      const cmd = kind.read.replace("{v}", v);
      return {
        text: kind.read.includes("{v}")
          ? `$ ${cmd}\nAuthtoken saved to configuration file.`
          : `$ ${cmd}\n${v}\n$ `,
      };
    }
    default: {
      if (!form.startsWith("join-") || kind.shape !== true) return null;
      const cut = Math.floor(v.length / 2);
      const [a, b] = [v.slice(0, cut), v.slice(cut)];
      const text =
        form === "join-plus"
          ? `const token =\n  "${a}" +\n  "${b}";`
          : form === "join-implicit"
            ? `TOKEN = (\n    "${a}"\n    "${b}"\n)`
            : `TOKEN = "${a}" \\\n    "${b}"`;
      return { text, pieces: [a, b] };
    }
  }
}

/** The runs of `piece` that are random (not the kind's fixed text): 8 characters or more. */
function randomRuns(runs: string[], pieces: string[]): string[] {
  const out: string[] = [];
  for (const p of pieces)
    for (const r of runs) for (const part of overlap(p, r)) if (part.length >= 8) out.push(part);
  return out;
}

/** The common stretches of a piece and a random run (a piece cuts a run in two). */
function overlap(piece: string, run: string): string[] {
  if (piece.includes(run)) return [run];
  if (run.includes(piece)) return [piece];
  for (let k = Math.min(piece.length, run.length); k >= 8; k--) {
    if (run.startsWith(piece.slice(-k))) return [piece.slice(-k)];
    if (run.endsWith(piece.slice(0, k))) return [piece.slice(0, k)];
  }
  return [];
}

/** A kind's value and its random runs, as every form of the corpus shows it. */
function kindValue(kind: FormKind): { value: string; runs: string[] } {
  return renderTemplate(kind.value, 7919 * (FORM_KINDS.indexOf(kind) + 1), 0);
}

/** A kind's value, as the corpus shows it. */
export function formValue(kind: FormKind): string {
  return kindValue(kind).value;
}

/** Every kind in every form that applies to it: the samples. */
export function formsCorpus(): CorpusSample[] {
  const out: CorpusSample[] = [];
  FORM_KINDS.forEach((kind, k) => {
    const { value: v, runs } = kindValue(kind);
    const filled = kind.file.lines.map((l, i) =>
      l
        .replace("{v}", v)
        .replace(/\{[a-zA-Z0-9]+:\d+\}/g, (t) => renderTemplate(t, 31 * (k + 1) + i, 0).value),
    );
    const secretRuns = runs.filter((r) => r.length >= 8);
    for (const form of FORMS) {
      const file = fileForm(form, kind.file.path, filled);
      if (file !== null) {
        const escaped = form === "codex-exec-json" || form === "hermes-read";
        const rs = escaped ? secretRuns.map((r) => JSON.stringify(r).slice(1, -1)) : secretRuns;
        out.push({ format: kind.id, context: form, secret: v, runs: rs, text: file });
        continue;
      }
      const shown = valueForm(form, kind, v);
      if (shown === null) continue;
      const rs = shown.pieces === undefined ? secretRuns : randomRuns(secretRuns, shown.pieces);
      out.push({ format: kind.id, context: form, secret: v, runs: rs, text: shown.text });
    }
  });
  return out;
}
