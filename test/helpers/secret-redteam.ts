/**
 * A red-team secret corpus (round 8): credential kinds that neither the checklist (secret-formats.ts) nor the
 * held-out catalogue (secret-heldout.ts) holds, by class — vendor-prefixed keys from trufflehog's detectors,
 * values known only by a variable's name, credentials inside URLs and connection strings, private keys,
 * cloud credential pairs and passwords given to command-line tools. Shapes (prefixes, lengths, alphabets)
 * are public facts; every value is random, generated here, placed where agents really write them: `.env`
 * lines, JSON/YAML config, `export`, curl headers, CLI output, a Codex-style tool call's JSON arguments,
 * URL-encoded query values, base64 in a Kubernetes Secret, and across a chunk boundary. Deterministic.
 */
import { type CorpusSample, renderTemplate } from "./secret-corpus.js";

/** A kind's class, for the report's table. */
export type RedTeamClass = "prefixed" | "keyed" | "url" | "private-key" | "cloud-pair" | "command-line";

/** One kind: its id, class, and samples (text plus the random runs that must not survive). */
interface Kind {
  id: string;
  cls: RedTeamClass;
  samples: (seed: number) => { context: string; text: string; runs: string[] }[];
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A random value of `template` (see renderTemplate) and its runs of 8 characters or more. */
function gen(template: string, seed: number): { value: string; runs: string[] } {
  const r = renderTemplate(template, seed, 0);
  return { value: r.value, runs: r.runs.filter((x) => x.length >= 8) };
}

/** About 1,150 characters of prose: what follows it straddles the first chunk's end. */
const FILLER = Array.from(
  { length: 23 },
  (_, i) => `Note ${i + 1}: the migration step finished and the logs looked ordinary again. `,
).join("");

const UUID = "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}";
const B58 = "[123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]";

/**
 * Contexts for a token found by its shape, none naming it a secret: prose, bare CLI output, a neutral JSON
 * field, a Codex-style tool call's arguments (JSON-escaped), a chunk boundary, a URL-encoded query value.
 */
function shapeContexts(v: string, runs: string[]): { context: string; text: string; runs: string[] }[] {
  const enc = encodeURIComponent(v);
  return [
    { context: "prose", text: `The console showed ${v} once, so I copied it before closing the tab.`, runs },
    { context: "cli-output", text: `$ acme auth print\n${v}\n$ echo done\ndone`, runs },
    {
      context: "json-neutral",
      text: JSON.stringify({ profile: "prod", value: v, region: "eu" }, null, 2),
      runs,
    },
    {
      context: "codex-args",
      text: JSON.stringify({
        cmd: ["bash", "-lc", `acme login --with "${v}" && acme whoami`],
        workdir: "/w",
      }),
      runs: runs.map((r) => JSON.stringify(r).slice(1, -1)),
    },
    { context: "split", text: `${FILLER}${v} came back from the server.`, runs },
    {
      context: "url-encoded",
      text: `GET https://hooks.example.com/in?k=${enc}&ts=1700000000`,
      runs: runs.map((r) => encodeURIComponent(r)),
    },
  ];
}

/** Vendor-prefixed tokens: [id, template]. */
const PREFIXED: [string, string][] = [
  ["bitbucket-datacenter-http-token", "BBDC-{b:44}"],
  ["bannerbear-project-key", "bb_pr_{h:30}"],
  ["cloudflare-global-key-v2", "cfk_{a:40}{h:8}"],
  ["endorlabs-key", "endr+{w:16}"],
  ["fleetbase-live", "flb_live_{a:20}"],
  ["flexport-token", "shltm_{w:40}"],
  ["fullstory-key", "na1.{b:100}"],
  ["gemini-exchange-master", "master-{a:20}"],
  ["gitlab-oauth-app-secret-v2", "gloas-{h:64}"],
  ["locationiq-token", "pk.{h:32}"],
  ["newrelic-insights-query", "NRIQ-{w:25}"],
  ["nightfall-key", "NF-{a:32}"],
  ["pagarme-live", "ak_live_{a:30}"],
  ["ramp-secret", "ramp_sec_{a:48}"],
  ["robinhood-crypto", `rh-api-${UUID}`],
  ["rootly-key", "rootly_{h:64}"],
  ["saladcloud-key", "salad_cloud_{a:5}_{a:40}"],
  ["salesforce-session", "00D{a:12}!{[A-Za-z0-9_.]:96}"],
  ["sourcegraph-cody-key", "slk_{h:64}"],
  ["stripe-intent-client-secret", "pi_{a:24}_secret_{a:25}"],
  ["tableau-pat", "{b:22}==:{a:32}"],
  ["trufflehog-enterprise-secret", "thog-secret-{h:32}"],
  ["ubidots-token", "BBFF-{a:30}"],
  ["webex-bot-token", `{a:64}_{a:4}_${UUID}`],
  ["closecrm-key", "api_{a:22}.{a:22}"],
  ["finage-key", "API_KEY{u:32}"],
  ["docker-swarm-join", "SWMTKN-1-{l:50}-{l:25}"],
  ["k3s-node-token", "K10{h:64}::server:{h:32}"],
  ["volcengine-access-key", "AKLT{a:43}"],
  ["tencent-secret-id", "AKID{a:32}"],
  ["gcs-hmac-access-id", "GOOG1E{u:55}"],
  ["bitcoin-xprv", `xprv9s21ZrQH143K{${B58}:95}`],
  ["langchain-service-key", "lsv2_sk_{h:32}_{h:10}"],
];

/** Values known only by a variable's name: [id, name, template]. */
const KEYED: [string, string, string][] = [
  ["rabbitmq-pass", "RABBITMQ_DEFAULT_PASS", "{a:20}"],
  ["smtp-pass", "SMTP_PASS", "{a:16}"],
  ["redis-auth", "REDIS_AUTH", "{a:24}"],
  ["cookie-signing", "COOKIE_SIGNING_SECRET", "{a:40}"],
  ["session-key", "SESSION_KEY", "{h:64}"],
  ["master-key", "RAILS_MASTER_KEY", "{h:32}"],
  ["ibm-cloud", "IBMCLOUD_API_KEY", "{w:44}"],
  ["huawei-sk", "HUAWEICLOUD_SDK_SK", "{a:40}"],
  ["oci-auth-token", "OCI_CLI_AUTH_TOKEN", "{a:12}{[<>:;(]:2}{a:6}"],
  ["consul-token", "CONSUL_HTTP_TOKEN", UUID],
  ["mnemonic", "MNEMONIC", "{L:5} {L:6} {L:4} {L:7} {L:5} {L:6} {L:4} {L:5} {L:6} {L:5} {L:7} {L:4}"],
  ["eth-private-key", "DEPLOYER_PRIVATE_KEY", "0x{h:64}"],
  ["passcode", "VPN_PASSCODE", "{a:14}"],
  ["psk", "WIFI_PSK", "{a:20}"],
  [
    "sas-token",
    "AZURE_STORAGE_SAS_TOKEN",
    "sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2027-01-01T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig={b:43}%3D",
  ],
  ["minio-root", "MINIO_ROOT_PASSWORD", "{a:24}"],
  ["store-password", "storePassword", "{a:18}"],
  ["credential-json", "credential", "{a:36}"],
];

/** Contexts for a keyed value (the name is the only clue). */
function keyedContexts(
  name: string,
  v: string,
  runs: string[],
): { context: string; text: string; runs: string[] }[] {
  const lower = name.toLowerCase();
  const esc = (rs: string[]) => rs.map((r) => JSON.stringify(r).slice(1, -1));
  return [
    { context: "dotenv", text: `# prod\n${name}=${v}\nLOG_LEVEL=info`, runs },
    { context: "export", text: `export ${name}="${v}"`, runs },
    { context: "yaml", text: `services:\n  app:\n    environment:\n      ${name}: "${v}"`, runs },
    { context: "json", text: JSON.stringify({ [lower]: v, retries: 3 }, null, 2), runs: esc(runs) },
    { context: "compose-list", text: `    environment:\n      - ${name}=${v}\n      - TZ=UTC`, runs },
    { context: "helm-set", text: `helm upgrade --install app ./chart --set app.${lower}=${v}`, runs },
    {
      context: "kubectl-literal",
      text: `kubectl create secret generic app --from-literal=${lower}=${v} -n prod`,
      runs,
    },
    {
      context: "codex-args",
      text: JSON.stringify({ cmd: ["bash", "-lc", `echo '${name}=${v}' >> .env`] }),
      runs: esc(runs),
    },
    { context: "split", text: `${FILLER}${name}=${v} was written to the env file.`, runs },
  ];
}

/** A PEM body of `lines` base64 lines (64 characters each). */
function pemBody(seed: number, lines: number): string[] {
  return Array.from({ length: lines }, (_, k) => gen("{b:64}", seed + k).value);
}

/** Kinds that live in one syntax (URLs, keys, pairs, command lines). */
const SPECIAL: Kind[] = [
  // URLs and connection strings
  ...(
    [
      ["amqp-url", "amqp://app:{pw}@mq.internal:5672/prod"],
      ["redis-empty-user", "redis://:{pw}@cache.internal:6379/0"],
      ["rediss-default", "rediss://default:{pw}@eu1-fox-123.upstash.io:6379"],
      ["smtp-url", "smtp://mailer%40acme.io:{pw}@smtp.mailgun.org:587"],
      ["ftp-url", "ftp://deploy:{pw}@ftp.acme.io/public_html"],
      ["proxy-url", "http://corp\\\\jdoe:{pw}@proxy.acme.io:3128"],
      ["snowflake-url", "snowflake://etl:{pw}@xy12345.eu-west-1/analytics/public?warehouse=wh"],
      ["sqlalchemy-mssql", "mssql+pyodbc://sa:{pw}@db.internal:1433/app?driver=ODBC+Driver+18"],
      ["nats-url", "nats://svc:{pw}@nats.internal:4222"],
      ["git-credentials", "https://oauth2:{pw}@gitlab.acme.io"],
      ["ldap-url-pw", "ldaps://cn=admin,dc=acme,dc=io:{pw}@ldap.acme.io"],
    ] as const
  ).map(
    ([id, url]): Kind => ({
      id,
      cls: "url",
      samples: (s) => {
        const { value: pw, runs } = gen("{a:10}{[!#^*]:1}{a:9}", s);
        const u = url.replace("{pw}", encodeURIComponent(pw));
        const r = runs.length > 0 ? runs : [pw.slice(0, 10)];
        return [
          { context: "env", text: `DATABASE_URL=${u}`, runs: r },
          { context: "prose", text: `It connects with ${u} right now; should we rotate it?`, runs: r },
          {
            context: "codex-args",
            text: JSON.stringify({ cmd: ["bash", "-lc", `app --dsn '${u}'`] }),
            runs: r,
          },
        ];
      },
    }),
  ),
  {
    id: "kafka-jaas",
    cls: "url",
    samples: (s) => {
      const { value: pw, runs } = gen("{a:32}", s);
      return [
        {
          context: "properties",
          text: `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="ABCD1234" password="${pw}";`,
          runs,
        },
      ];
    },
  },
  {
    id: "libpq-keywords",
    cls: "url",
    samples: (s) => {
      const { value: pw, runs } = gen("{a:16}", s);
      return [
        {
          context: "python",
          text: `conn = psycopg2.connect("host=db.internal port=5432 dbname=app user=app password=${pw} sslmode=require")`,
          runs,
        },
      ];
    },
  },
  {
    id: "odbc-braced-pwd",
    cls: "url",
    samples: (s) => {
      const { value: pw, runs } = gen("{a:16}", s);
      return [
        {
          context: "odbc",
          text: `Driver={ODBC Driver 18 for SQL Server};Server=tcp:acme.database.windows.net,1433;Uid=sa;Pwd={${pw}};Encrypt=yes;`,
          runs,
        },
      ];
    },
  },
  {
    id: "oracle-easy-connect",
    cls: "url",
    samples: (s) => {
      const { value: pw, runs } = gen("{a:14}", s);
      return [
        { context: "shell", text: `sqlplus system/${pw}@//db.internal:1521/ORCLPDB1 @migrate.sql`, runs },
      ];
    },
  },
  // Private keys
  {
    id: "pgp-private-block",
    cls: "private-key",
    samples: (s) => {
      const body = pemBody(s, 4);
      return [
        {
          context: "file",
          text: `$ gpg --export-secret-keys --armor ci@acme.io\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body.join("\n")}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----`,
          runs: body,
        },
      ];
    },
  },
  {
    id: "putty-v2",
    cls: "private-key",
    samples: (s) => {
      const pub = gen("{b:64}", s).value;
      const priv = pemBody(s + 3, 2);
      return [
        {
          context: "file",
          text: `PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported-openssh-key\nPublic-Lines: 1\nAAAAB3NzaC1yc2E${pub}\nPrivate-Lines: 2\n${priv.join("\n")}\nPrivate-MAC: ${gen("{h:40}", s + 9).value}`,
          runs: priv,
        },
      ];
    },
  },
  {
    id: "pem-yaml-block-scalar",
    cls: "private-key",
    samples: (s) => {
      const body = pemBody(s, 3);
      return [
        {
          context: "helm-values",
          text: `tls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n${body.map((b) => `    ${b}`).join("\n")}\n    -----END EC PRIVATE KEY-----\n  cert: ""`,
          runs: body,
        },
      ];
    },
  },
  {
    id: "pem-tfstate",
    cls: "private-key",
    samples: (s) => {
      const body = pemBody(s, 3);
      const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----\n`;
      return [
        {
          context: "tfstate",
          text: JSON.stringify(
            {
              resources: [
                {
                  type: "tls_private_key",
                  instances: [{ attributes: { algorithm: "RSA", private_key_pem: pem } }],
                },
              ],
            },
            null,
            2,
          ),
          runs: body,
        },
      ];
    },
  },
  {
    id: "openssh-split",
    cls: "private-key",
    samples: (s) => {
      const body = pemBody(s, 5).map((b) => b.slice(0, 70 - 6));
      return [
        {
          context: "split",
          text: `${FILLER}\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA\n${body.join("\n")}\n-----END OPENSSH PRIVATE KEY-----`,
          runs: body,
        },
      ];
    },
  },
  {
    id: "pkcs8-encrypted",
    cls: "private-key",
    samples: (s) => {
      const body = pemBody(s, 3);
      return [
        {
          context: "json-escaped",
          text: JSON.stringify({
            output: `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${body.join("\n")}\n-----END ENCRYPTED PRIVATE KEY-----`,
          }),
          runs: body,
        },
      ];
    },
  },
  {
    id: "wireguard-private",
    cls: "private-key",
    samples: (s) => {
      const { value, runs } = gen("{b:42}A=", s);
      return [
        {
          context: "wg-conf",
          text: `$ sudo cat /etc/wireguard/wg0.conf\n[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = ${value}\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = ${gen("{b:42}E=", s + 1).value}\nEndpoint = vpn.acme.io:51820`,
          runs,
        },
      ];
    },
  },
  {
    id: "minisign-secret",
    cls: "private-key",
    samples: (s) => {
      const { value, runs } = gen("RWRTY0Iy{b:204}", s);
      return [
        {
          context: "file",
          text: `$ cat ~/.minisign/minisign.key\nuntrusted comment: minisign encrypted secret key\n${value}`,
          runs,
        },
      ];
    },
  },
  // Cloud credential pairs
  {
    id: "gcs-hmac-pair",
    cls: "cloud-pair",
    samples: (s) => {
      const id = gen("GOOG1E{u:55}", s);
      const secret = gen("{b:40}", s + 1);
      return [
        {
          context: "boto",
          text: `[Credentials]\ngs_access_key_id = ${id.value}\ngs_secret_access_key = ${secret.value}`,
          runs: [...id.runs, ...secret.runs],
        },
      ];
    },
  },
  {
    id: "do-spaces-pair",
    cls: "cloud-pair",
    samples: (s) => {
      const id = gen("DO00{u:16}", s);
      const secret = gen("{b:43}", s + 1);
      return [
        {
          context: "s3cmd",
          text: `$ cat ~/.s3cfg\n[default]\naccess_key = ${id.value}\nsecret_key = ${secret.value}\nhost_base = fra1.digitaloceanspaces.com`,
          runs: [...id.runs, ...secret.runs],
        },
      ];
    },
  },
  {
    id: "tencent-pair",
    cls: "cloud-pair",
    samples: (s) => {
      const id = gen("AKID{a:32}", s);
      const secret = gen("{a:32}", s + 1);
      return [
        {
          context: "tccli",
          text: `$ tccli configure list\ncredential:\n  secretId = ${id.value}\n  secretKey = ${secret.value}\nconfigure:\n  region = ap-guangzhou`,
          runs: [...id.runs, ...secret.runs],
        },
      ];
    },
  },
  {
    id: "azure-sp-output",
    cls: "cloud-pair",
    samples: (s) => {
      const pw = gen("{a:3}8Q~{w:31}", s);
      return [
        {
          context: "az-cli",
          text: `$ az ad sp create-for-rbac --name ci\n${JSON.stringify({ appId: "0c7a2f1e-3b4d-4e5f-8a9b-1c2d3e4f5a6b", displayName: "ci", password: pw.value, tenant: "7d8e9f0a-1b2c-4d3e-9f4a-5b6c7d8e9f0a" }, null, 2)}`,
          runs: pw.runs,
        },
      ];
    },
  },
  {
    id: "r2-pair",
    cls: "cloud-pair",
    samples: (s) => {
      const id = gen("{h:32}", s);
      const secret = gen("{h:64}", s + 1);
      return [
        {
          context: "rclone",
          text: `$ rclone config show r2\n[r2]\ntype = s3\nprovider = Cloudflare\naccess_key_id = ${id.value}\nsecret_access_key = ${secret.value}\nendpoint = https://abc.r2.cloudflarestorage.com`,
          runs: [...secret.runs],
        },
      ];
    },
  },
  {
    id: "vault-init-output",
    cls: "cloud-pair",
    samples: (s) => {
      const keys = [0, 1, 2].map((k) => gen("{b:43}=", s + k));
      const root = gen("hvs.{w:24}", s + 5);
      return [
        {
          context: "cli-output",
          text: `$ vault operator init -key-shares=3 -key-threshold=2\n${keys.map((k, i) => `Unseal Key ${i + 1}: ${k.value}`).join("\n")}\n\nInitial Root Token: ${root.value}`,
          runs: [...keys.flatMap((k) => k.runs), ...root.runs],
        },
      ];
    },
  },
  {
    id: "kubeconfig-token",
    cls: "cloud-pair",
    samples: (s) => {
      const tok = gen("{a:20}.{a:40}", s);
      return [
        {
          context: "kubeconfig",
          text: `users:\n- name: ci\n  user:\n    token: ${tok.value}\n- name: basic\n  user:\n    username: admin\n    password: ${gen("{a:16}", s + 1).value}`,
          runs: [...tok.runs, ...gen("{a:16}", s + 1).runs],
        },
      ];
    },
  },
  // Passwords and tokens given to command-line tools
  ...(
    [
      ["openssl-passout", "openssl pkcs12 -export -in c.pem -inkey k.pem -out c.p12 -passout pass:{pw}"],
      ["keytool-storepass", "keytool -importcert -keystore app.jks -storepass {pw} -noprompt -file ca.crt"],
      ["zip-password", "zip -r -P {pw} backup.zip ./data"],
      ["sqlcmd-password", 'sqlcmd -S db.internal -U sa -P {pw} -Q "SELECT 1"'],
      [
        "mongosh-password",
        'mongosh "mongodb://db.internal:27017" -u admin -p {pw} --authenticationDatabase admin',
      ],
      ["ldapsearch-password", "ldapsearch -x -H ldap://ldap.internal -D cn=admin,dc=acme -w {pw} -b dc=acme"],
      ["smbclient-password", "smbclient //files/share -U jdoe%{pw} -c ls"],
      ["htpasswd-batch", "htpasswd -b -c /etc/nginx/.htpasswd admin {pw}"],
      ["wget-password", "wget --user=ci --password={pw} https://artifacts.acme.io/build.tgz"],
      ["npm-config-set", "npm config set //registry.acme.io/:_authToken {pw}"],
      ["terraform-var", "terraform apply -var 'db_password={pw}' -auto-approve"],
      ["sql-create-user", "CREATE USER app WITH LOGIN PASSWORD '{pw}';"],
      ["mysql-identified-by", "ALTER USER 'app'@'%' IDENTIFIED BY '{pw}';"],
      ["curl-oauth2-bearer", "curl --oauth2-bearer {pw} https://api.acme.io/v1/me"],
      ["header-x-api-key", 'curl -H "x-api-key: {pw}" https://api.acme.io/v1/items'],
      ["header-private-token", 'curl --header "PRIVATE-TOKEN: {pw}" https://gitlab.acme.io/api/v4/projects'],
      ["header-ocp-subscription", "curl -H 'Ocp-Apim-Subscription-Key: {pw}' https://acme.azure-api.net/v1"],
      ["header-cookie-session", "curl -b 'session={pw}' https://app.acme.io/admin"],
      ["http-file-header", "GET https://api.acme.io/v1/me\nX-Auth-Token: {pw}\nAccept: application/json"],
    ] as const
  ).map(
    ([id, cmd]): Kind => ({
      id,
      cls: "command-line",
      samples: (s) => {
        const { value: pw, runs } = gen("{a:22}", s);
        const text = cmd.replace("{pw}", pw);
        return [
          { context: "shell", text: `$ ${text}`, runs },
          { context: "codex-args", text: JSON.stringify({ cmd: ["bash", "-lc", text] }), runs },
        ];
      },
    }),
  ),
];

/** Every kind: prefixed tokens, keyed values and the special syntaxes. */
function kinds(): Kind[] {
  return [
    ...PREFIXED.map(
      ([id, template]): Kind => ({
        id,
        cls: "prefixed",
        samples: (s) => {
          const { value, runs } = gen(template, s);
          return shapeContexts(value, runs);
        },
      }),
    ),
    ...KEYED.map(
      ([id, name, template]): Kind => ({
        id,
        cls: "keyed",
        samples: (s) => {
          const { value, runs } = gen(template, s);
          return keyedContexts(name, value, runs.length > 0 ? runs : [value]);
        },
      }),
    ),
    ...SPECIAL,
  ];
}

/**
 * Round 2: kinds written after the round-1 fixes, never used to write a rule — a held-out check of whether
 * those rules generalise (16 of its 44 kinds slipped before round 2's class fixes; see SECURITY.md).
 */
const ROUND2: Kind[] = [
  ...(
    [
      ["mailersend", "mlsn.{h:64}"],
      ["notion-ntn", "ntn_{a:46}"],
      ["plaid-access", `access-production-${UUID}`],
      ["apify", "apify_api_{a:36}"],
      ["exoscale", "EXO{h:24}"],
      ["zapier-key", "zpka_{h:32}_{h:8}"],
      ["mux", "mux_{a:40}"],
      ["browserbase", "bb_live_{w:27}"],
      ["e2b", "e2b_{h:40}"],
      ["modal-key-id", "ak-{a:22}"],
      ["jina", "jina_{h:32}{a:28}"],
      ["voyage", "pa-{w:43}"],
      ["anyscale", "esecret_{l:24}"],
      ["novita", "sk_{w:43}"],
      ["cursor-key", "key_{h:64}"],
      ["firecrawl", "fc-{h:32}"],
      ["exa", UUID],
      ["nuget-api-key", "oy2{l:43}"],
    ] as const
  ).map(
    ([id, template]): Kind => ({
      id,
      cls: "prefixed",
      samples: (s) => {
        const { value, runs } = gen(template, s);
        return shapeContexts(value, runs.length > 0 ? runs : [value]).filter((c) =>
          ["prose", "cli-output", "codex-args"].includes(c.context),
        );
      },
    }),
  ),
  ...(
    [
      ["db-pw", "DB_PW", "{a:14}"],
      ["totp-secret", "TOTP_SECRET", "{b32:32}"],
      ["shared-secret", "SHARED_SECRET", "{a:32}"],
      ["keystore-pass", "KEYSTORE_PASS", "{a:14}"],
      ["alibaba-key-secret", "ACCESS_KEY_SECRET", "{a:30}"],
      ["ldap-bind", "LDAP_BIND_CREDENTIALS", "{a:16}"],
      ["webhook-signing", "WEBHOOK_SIGNING_SECRET", "whsec_{b:32}"],
      ["root-pw", "ROOT_PW", "{a:12}"],
      ["signature-key", "SIGNATURE_KEY", "{h:64}"],
    ] as const
  ).map(
    ([id, name, template]): Kind => ({
      id,
      cls: "keyed",
      samples: (s) => {
        const { value, runs } = gen(template, s);
        return keyedContexts(name, value, runs.length > 0 ? runs : [value]).filter((c) =>
          ["dotenv", "yaml", "json"].includes(c.context),
        );
      },
    }),
  ),
  ...(
    [
      [
        "azure-servicebus",
        "url",
        "{b:43}",
        (v: string) =>
          `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${v}=`,
      ],
      [
        "azure-iothub",
        "url",
        "{b:43}",
        (v: string) => `HostName=acme.azure-devices.net;DeviceId=d1;SharedAccessKey=${v}=`,
      ],
      [
        "token-as-url-user",
        "url",
        "{a:40}",
        (v: string) => `git clone https://${v}@github.com/acme/private.git`,
      ],
      ["sentry-dsn", "url", "{h:32}", (v: string) => `SENTRY_DSN=https://${v}@o123456.ingest.sentry.io/789`],
      [
        "jwk-rsa-private",
        "private-key",
        "{w:342}",
        (v: string) =>
          JSON.stringify({ kty: "RSA", n: "sXch6vQ1ZqEk1m3bT0uR8yV2wP4nL7cJ9dF5gH2kM0aB", e: "AQAB", d: v }),
      ],
      [
        "jwk-ec-private",
        "private-key",
        "{w:43}",
        (v: string) =>
          JSON.stringify({ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", d: v }),
      ],
      [
        "dotnet-rsa-xml",
        "private-key",
        "{b:128}",
        (v: string) =>
          `<RSAKeyValue><Modulus>AQAB</Modulus><Exponent>AQAB</Exponent><D>${v}</D></RSAKeyValue>`,
      ],
      [
        "az-storage-keys",
        "cloud-pair",
        "{b:86}",
        (v: string) => `$ az storage account keys list -n acme
[
  {
    "keyName": "key1",
    "permissions": "FULL",
    "value": "${v}=="
  }
]`,
      ],
      [
        "echo-password-stdin",
        "command-line",
        "{a:24}",
        (v: string) => `echo "${v}" | docker login ghcr.io -u ci --password-stdin`,
      ],
      [
        "az-login-sp",
        "command-line",
        "{a:3}8Q~{w:31}",
        (v: string) =>
          `az login --service-principal -u 0c7a2f1e-3b4d-4e5f-8a9b-1c2d3e4f5a6b -p ${v} --tenant acme.onmicrosoft.com`,
      ],
      [
        "aws-configure-set",
        "command-line",
        "{b:40}",
        (v: string) => `aws configure set aws_secret_access_key ${v} --profile prod`,
      ],
      [
        "rclone-create",
        "command-line",
        "{h:64}",
        (v: string) => `rclone config create r2 s3 provider Cloudflare secret_access_key ${v}`,
      ],
      [
        "mc-alias",
        "command-line",
        "{a:40}",
        (v: string) => `mc alias set prod https://minio.acme.io ADMINKEY123 ${v}`,
      ],
      ["vault-login-positional", "command-line", "s.{a:24}", (v: string) => `vault login ${v}`],
      [
        "wrangler-oauth",
        "keyed",
        "{w:43}",
        (v: string) => `oauth_token = "${v}"\nexpiration_time = "2026-12-01T00:00:00Z"`,
      ],
      [
        "ansible-extra-vars",
        "command-line",
        "{a:16}",
        (v: string) => `ansible-playbook site.yml --extra-vars "ansible_become_pass=${v}"`,
      ],
      [
        "git-extraheader",
        "command-line",
        "{b:40}",
        (v: string) =>
          `git -c http.extraHeader="AUTHORIZATION: basic ${v}" clone https://dev.azure.com/acme/_git/app`,
      ],
    ] as const
  ).map(
    ([id, cls, template, text]): Kind => ({
      id,
      cls,
      samples: (s) => {
        const { value, runs } = gen(template, s);
        const r = runs.length > 0 ? runs : [value];
        return [
          { context: "text", text: text(value), runs: r },
          {
            context: "codex-args",
            text: JSON.stringify({ cmd: ["bash", "-lc", text(value)] }),
            runs: r.map((x) => JSON.stringify(x).slice(1, -1)),
          },
        ];
      },
    }),
  ),
];

/**
 * Kinds the catalogue still lets through, and why: a shape too short or too plain to tell from ordinary
 * text without its vendor's name beside it (in an assignment under its usual name, the generic rules take
 * it). Tests assert that exactly these slip, so a regression or a fix shows.
 */
export const RED_TEAM_MISSES: readonly string[] = [
  // `endr+` and 16 characters: as short as an identifier, and `+` joins ordinary words too.
  "endorlabs-key",
  // 64 random characters, `_`, 4, `_`, a UUID: no prefix, and long random runs alone are not flagged.
  "webex-bot-token",
  // Round 2. `EXO` glued to 24 hex: no separator, and hex after letters is what hashes look like.
  "exoscale",
  // `fc-` + 32 hex: `fc` is also the prefix of model APIs' function-call ids, and hex after `-` is a hash.
  "firecrawl",
  // A bare UUID: nothing tells it from the ids around it.
  "exa",
  // Not a miss: a Sentry DSN's key is public by design (it ships in browser code and only lets a client
  // send events), so issue 40 left it alone, as it does Stripe's publishable keys.
  "sentry-dsn",
];

/** Every red-team kind with its class and round (the report's table). */
export const RED_TEAM_KINDS: readonly { id: string; cls: RedTeamClass; round: 1 | 2 }[] = [
  ...kinds().map(({ id, cls }) => ({ id, cls, round: 1 as const })),
  ...ROUND2.map(({ id, cls }) => ({ id, cls, round: 2 as const })),
];

/** The red-team corpus: every kind in each of its contexts. */
export function redTeamCorpus(): CorpusSample[] {
  const out: CorpusSample[] = [];
  for (const k of [...kinds(), ...ROUND2])
    for (const s of k.samples(hash(k.id)))
      out.push({ format: k.id, context: s.context, secret: s.text, runs: s.runs, text: s.text });
  return out;
}
