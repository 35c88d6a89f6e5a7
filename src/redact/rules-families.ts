/**
 * Catalogue: token families and credential syntaxes found missing by a held-out red-team pass (formats the
 * other rule files were not written against: test/helpers/secret-heldout.ts). Each rule covers a class —
 * every prefix a vendor issues, every tool that takes a password on its command line — not one sample.
 * Formats are facts from the vendors' documentation and trufflehog's detectors; the patterns are funes's.
 */
import { END, END_URL, END_VALUE, mixedAlnum, type SecretRule, token } from "./catalogue.js";
import { KEY_MATERIAL, looksSecret, PAIR_COMMA, STRONG, WEAK } from "./rules-generic.js";

/** A value on a command line: up to the next whitespace or quote. */
const ARG = String.raw`(?:\\{0,3}["'])?([^\s"'\\]{4,256})`;

/** Vendor prefix families: every prefix a vendor uses for its secrets, not only the ones seen so far. */
function familyRules(): SecretRule[] {
  return [
    token({
      id: "atlassian-bitbucket",
      description: "Bitbucket app passwords (ATBB…) and Atlassian Connect/repository access tokens (ATCTT3…)",
      keywords: ["atbb", "atctt3"],
      source: `(?:ATBB[A-Za-z0-9_=.-]{32,64}|ATCTT3xFfGN0[A-Za-z0-9_=-]{100,400})${END_URL}`,
    }),
    token({
      id: "posthog-personal",
      description: "PostHog personal API key (phx_)",
      keywords: ["phx_"],
      source: `phx_[A-Za-z0-9_]{40,50}${END}`,
    }),
    token({
      id: "launchdarkly-key",
      description: "LaunchDarkly API, SDK and mobile keys (api-/sdk-/mob- + UUID)",
      keywords: ["api-", "sdk-", "mob-"],
      source: `(?:api|sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${END}`,
    }),
    token({
      id: "resend",
      description: "Resend API key (re_<id>_<secret>)",
      keywords: ["re_"],
      source: `re_[A-Za-z0-9]{8}_[A-Za-z0-9]{20,40}${END}`,
      check: (s) => mixedAlnum(s.slice(3)),
    }),
    token({
      id: "firebase-fcm",
      description: "Firebase Cloud Messaging legacy server key (AAAA…:APA91b…)",
      keywords: ["apa91b"],
      source: `AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}${END_URL}`,
    }),
    token({
      id: "aws-session-token",
      description:
        "AWS STS session tokens (IQoJb3JpZ2luX2Vj…, FwoGZXIvYXdz…), also URL-encoded as X-Amz-Security-Token",
      keywords: ["iqojb3jpz2lux2vj", "fwogzxivyxdz", "x-amz-security-token"],
      // Bounded, with the left edge in the pattern (a run repeating the prefix is not rescanned from each
      // occurrence); `extend` takes a longer token to its end.
      source: `(?<![A-Za-z0-9_-])(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz)(?:[A-Za-z0-9+/=]|%2[BFbf]|%3[Dd]){40,300}|X-Amz-Security-Token=[A-Za-z0-9%_.~+/=-]{40,300}`,
      edge: false,
      extend: /(?:[A-Za-z0-9%_.~+/=-])*/y,
    }),
    token({
      id: "azure-entra-refresh-token",
      description: "Microsoft Entra ID (Azure AD) refresh token (0.A….Ag…)",
      keywords: [".ag"],
      source: String.raw`[01]\.A[\w-]{50,400}(?:\.\d)?\.Ag[\w-]{250,4096}(?:\.A[\w-]{200,2048})?`,
    }),
    token({
      id: "azure-function-key",
      description: "Azure Functions key in an invocation URL (…azurewebsites.net/api/…?code=)",
      keywords: ["azurewebsites.net"],
      source: String.raw`azurewebsites\.net/[^\s"'?#]*\?(?:[^\s"'#]*?&)?code=([A-Za-z0-9_%=-]{20,200})`,
      edge: false,
      group: 1,
    }),
    token({
      id: "telegram-bot-url",
      description: "Telegram bot token in a Bot API URL (api.telegram.org/bot<id>:<token>)",
      keywords: ["/bot"],
      source: `/bot(\\d{6,12}:[A-Za-z0-9_-]{30,50})${END_URL}`,
      edge: false,
      group: 1,
    }),
  ];
}

/** Private keys in the forms the PEM rule does not see: PuTTY key files and SSH.com (SSH2) keys. */
function keyFileRules(): SecretRule[] {
  return [
    token({
      id: "putty-private-key",
      description: "PuTTY private key file (.ppk, versions 2 and 3): the Private-Lines body and its MAC",
      keywords: ["putty-user-key-file", "private-lines"],
      source: String.raw`Private-Lines:[ \t]*\d+(?:\r?\n|\\{1,3}[rn])+(?:[A-Za-z0-9+/=]+(?:\r?\n|\\{1,3}[rn])+){1,64}(?:Private-MAC:[ \t]*[0-9a-fA-F]+)?`,
      edge: false,
    }),
    token({
      id: "ssh2-private-key",
      description: "SSH.com (SSH2) private key block (---- BEGIN SSH2 … PRIVATE KEY ----)",
      keywords: ["begin ssh2"],
      source: String.raw`---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----[\s\S]{0,20000}?(?:---- END SSH2 (?:ENCRYPTED )?PRIVATE KEY ----|$)`,
      edge: false,
    }),
  ];
}

/** Passwords given to a command line in the form a tool documents (not `--password=`, which is generic). */
function commandLineRules(): SecretRule[] {
  const strong = (s: string) => looksSecret(s, true);
  return [
    token({
      id: "cli-password",
      description:
        "passwords on command lines: mysql/mariadb -p<pw>, sshpass -p, redis-cli -a, docker/podman/helm login -p",
      keywords: [
        "mysql",
        "mariadb",
        "sshpass",
        "redis-cli",
        "docker login",
        "podman login",
        "helm registry login",
        "nerdctl login",
        "buildah login",
        "skopeo login",
        "oras login",
      ],
      source: String.raw`\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?:\\?["'])?([^\s"'\\-][^\s"'\\]{3,255})|\bsshpass\s+-p\s*${ARG}|\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+${ARG}|\b(?:docker|podman|helm|nerdctl|buildah|skopeo|oras)\s+(?:registry\s+)?login\b[^\n|;&]*?\s-p\s+${ARG}`,
      edge: false,
      group: 1,
      check: strong,
    }),
    token({
      id: "secret-setter-cli",
      description:
        "values given to secret stores on the command line (gh secret set --body, az keyvault secret set --value, aws ssm/secretsmanager)",
      keywords: ["secret set", "put-parameter", "secretsmanager"],
      source: String.raw`\b(?:gh\s+secret\s+set|az\s+keyvault\s+secret\s+set|aws\s+ssm\s+put-parameter|aws\s+secretsmanager\s+(?:create-secret|put-secret-value|update-secret))\b[^\n|;&]*?\s(?:--body|-b|--value|--secret-string)(?:=|\s+)${ARG}`,
      edge: false,
      group: 1,
      check: strong,
    }),
    token({
      id: "netrc-password",
      description: ".netrc/_netrc entries (machine … login … password …)",
      keywords: ["machine"],
      // Blanks as written or JSON-escaped (a .netrc read in a tool call's escaped output).
      source: String.raw`(?<!(?<!\\)\w)machine(?:\s|\\{1,3}[nrt])+[^\s\\]+(?:\s|\\{1,3}[nrt])+(?:login(?:\s|\\{1,3}[nrt])+[^\s\\]+(?:\s|\\{1,3}[nrt])+)?password(?:\s|\\{1,3}[nrt])+([^\s\\"']{4,256})`,
      edge: false,
      group: 1,
      // Heroku keeps its API key (a UUID) as the password of its .netrc entries.
      check: (s) => strong(s) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
    }),
    token({
      id: "pgpass",
      description: ".pgpass lines (host:port:database:user:password)",
      keywords: [":5432:", ":*:", ":3306:", ":6432:"],
      source: String.raw`(?:^|[\s"']|\\[nrt])[A-Za-z0-9.*_-]{1,253}:(?:\d{2,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:([^\s"'\\]{6,128})(?=$|[\s"'\\])`,
      flags: "m",
      edge: false,
      group: 1,
      check: strong,
    }),
    nameValue("password-name-value", "PASSW(?:OR)?D|PASSPHRASE|_PWD", strong),
    nameValue(
      "secret-name-value",
      "SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|_KEY|_PAT|_SALT|CREDENTIALS?",
      (s) => looksSecret(keyPart(s), false),
    ),
  ];
}

/**
 * A value paired with a secret-looking name in a name/value list (Kubernetes `env:`, ECS task definitions,
 * GitHub Actions), where the name and the value are two fields: `name: DB_PASSWORD` then `value: …`.
 */
function nameValue(id: string, names: string, check: (s: string) => boolean): SecretRule {
  return token({
    id,
    description: `a value paired with a ${id.startsWith("password") ? "password" : "secret-looking"} name in name/value lists (Kubernetes env, ECS task definitions)`,
    keywords: ["value:", "value=", '"value"', "'value'", 'value\\"'],
    source: String.raw`\bname["'\\]{0,2}\s*[:=]\s*["'\\]{0,2}[A-Za-z0-9_.-]*(?:${names})[A-Za-z0-9_.-]*["'\\]{0,2}\s*,?\s*(?:\\n|\r?\n)?[\s-]*["'\\]{0,2}value["'\\]{0,2}\s*[:=]\s*["'\\]{0,2}([^\s"'\\,}]{6,4096})${END_VALUE}`,
    flags: "i",
    edge: false,
    group: 1,
    check,
  });
}

/** Names of keys that are not secrets: ids, public halves, lookup and storage keys, fingerprints. */
const NOT_SECRET_KEY =
  /(?:^|[_.-])(?:public|publishable|pub|site|cache|primary|foreign|partition|sort|range|hash|idempotency|dedupe?|lookup|map|dict|row|object|s3|bucket|i18n|translation|query|gpg|pgp|fingerprint|ssh|host|kid|id|name|file|path|env|prefix|field|column|index|group|label|unique|composite|shard)(?:[_.-]|$)/i;

/** The name before `key`, without the letter of a JSON escape before it (`\nIdempotency-` → `Idempotency-`). */
function unescaped(m: RegExpExecArray): string {
  const name = m[1] ?? "";
  // The name is read by a look-behind: its place is in the capture's indices, not in the match.
  const at = m.indices?.[1]?.[0] ?? m.index;
  return m.input.charAt(at - 1) === "\\" && /^[nrt][A-Z]/.test(name) ? name.slice(1) : name;
}

/** A value under a key-like name: token characters, and `|` (Convex joins a deployment and its key with it). */
const KEY_VALUE = "[A-Za-z0-9_.~+/=:%|-]";

/** The random part of a value: Convex deploy keys are `<kind>:<deployment>|<key>`. */
function keyPart(v: string): string {
  return v.replace(/^[a-z]+:[a-z0-9-]+\|/, "");
}

/** Assignments and elements whose name says what the value is, in the syntaxes the generic rules miss. */
function namedValueRules(): SecretRule[] {
  return [
    token({
      id: "key-named-value",
      description:
        "a long high-entropy value under a name ending in key (B2_APPLICATION_KEY, acme.signer.key, deploy-key), unless the name says it is public or an id",
      keywords: ["key"],
      // Anchored on the literal `key` (a pattern starting at every letter cost more than the catalogue);
      // the name before it is read by the look-behind.
      source: String.raw`key(?<=(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+){0,8}[_.-])key)[\s'"\\\]]{0,5}(?:=>|:=|=|:|${PAIR_COMMA})[\s'"\x60\\]{0,6}(${KEY_VALUE}{16,300})${END_VALUE}`,
      flags: "i",
      edge: false,
      group: 2,
      check: (v, m) => !NOT_SECRET_KEY.test(`${unescaped(m)}key`) && looksSecret(keyPart(v), false),
    }),
    xmlElement("xml-password", STRONG, (v) => looksSecret(v, true)),
    xmlElement(
      "xml-secret",
      `${WEAK}|${KEY_MATERIAL}|[_.-]key`,
      (v, m) => !NOT_SECRET_KEY.test(m[1] ?? "") && looksSecret(keyPart(v), false),
    ),
  ];
}

/** `<…password…>value</…>` (XML config: Maven settings.xml, app.config, pom properties). */
function xmlElement(
  id: string,
  names: string,
  check: (v: string, m: RegExpExecArray) => boolean,
): SecretRule {
  return token({
    id,
    description: `the text of an XML element named like a ${id === "xml-password" ? "password" : "secret, token or key"}`,
    keywords: ["</"],
    source: String.raw`<((?:[A-Za-z_][\w.:-]{0,30}?)?(?:${names})[\w.:-]{0,30})>[ \t]*([^<>\s]{6,300})[ \t]*</\1>`,
    flags: "i",
    edge: false,
    group: 2,
    check,
  });
}

/** The held-out classes found by their shape or syntax (before the service-named rules). */
export function familyAndSyntaxRules(): SecretRule[] {
  return [...familyRules(), ...keyFileRules(), ...commandLineRules()];
}

/** The held-out classes found by a name (last: a vendor's or the generic rule names a value first). */
export function namedRules(): SecretRule[] {
  return namedValueRules();
}
