/**
 * Catalogue: the classes issue 40 found missing, by kind — webhook URLs (the URL is the credential: anyone
 * holding it can post), wallet and signing keys (WIF, Solana keypairs, Ethereum raw keys in context, Nostr
 * `nsec`, BIP-39 phrases in a sentence, minisign/signify keys without their comment line), personal access
 * tokens (Asana, Azure DevOps's new 84-character form, a 52-character Azure DevOps PAT beside its name) — and
 * by shape: secret-ish names in camel case (`wifiPsk`, `smtpPassword`), and bearer tokens in curl's, httpie's
 * and fetch's own syntaxes. Formats are facts from the services' documentation; the patterns are funes's.
 */
import { END, END_URL, entropy, type SecretRule, token, wordsIdentifier } from "./catalogue.js";
import { looksSecret, typeName } from "./rules-generic.js";
import { randomRun } from "./rules-shapes.js";
import { base58Decode, isWif } from "./wallets.js";

const B58 = "[1-9A-HJ-NP-Za-km-z]";
const BECH32 = "[02-9ac-hj-np-z]";
/** A URL's characters after its host (no blank, quote, bracket or escape). */
const URL_REST = String.raw`[^\s"'<>\x60\\)\]}]`;

/** A path segment or query value that is a random secret, not a word, a number or a slug. */
function randomSegment(s: string): boolean {
  const run = s.replace(/[_-]/g, "");
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) return true;
  if (randomRun(run)) return true;
  // Lower-case ids (Mattermost's 26 characters): letters and digits mixed, few vowels, enough entropy.
  return (
    run.length >= 20 && /[0-9]/.test(run) && /[a-z]/i.test(run) && entropy(run) >= 3.5 && !/^\d+$/.test(run)
  );
}

/** Webhook URLs: the URL itself is the credential. */
function webhookRules(): SecretRule[] {
  return [
    token({
      id: "webhook-url",
      description:
        "webhook URLs whose path or query is the credential: Zapier, Teams (webhook.office.com, Power Automate/Logic Apps workflows), Google Chat, IFTTT, Make, Feishu/Lark, DingTalk, WeCom, Pipedream, Webex, Airtable",
      keywords: [
        "hooks.zapier.com",
        "webhook.office.com",
        "outlook.office",
        "logic.azure.com",
        "powerplatform.com",
        "powerautomate",
        "chat.googleapis.com",
        "ifttt.com",
        "make.com",
        "integromat",
        "open-apis/bot",
        "dingtalk.com",
        "qyapi.weixin",
        "pipedream.net",
        "webexapis.com",
        "hooks.airtable.com",
      ],
      source: String.raw`(?:hooks\.zapier\.com/hooks/(?:catch|standard)/\d{3,12}/[A-Za-z0-9]{5,40}/?|[\w-]+\.webhook\.office\.com/webhook(?:b2)?/${URL_REST}{40,}|outlook\.office(?:365)?\.com/webhook/${URL_REST}{40,}|[\w.-]+\.(?:logic\.azure\.com|api\.powerplatform\.com|powerautomate\.com)(?::\d+)?/${URL_REST}{0,400}?[?&]sig=[A-Za-z0-9_%-]{20,}|chat\.googleapis\.com/v1/spaces/${URL_REST}{0,300}?[?&]token=[A-Za-z0-9_%=-]{20,}|maker\.ifttt\.com/(?:trigger/[^\s/"']+/(?:json/)?with/key|use)/[A-Za-z0-9_-]{16,}|hook\.(?:[a-z0-9]+\.)?(?:make|integromat)\.com/[a-z0-9]{20,}|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[0-9a-f-]{20,}|oapi\.dingtalk\.com/robot/send\?access_token=[0-9a-f]{40,}|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[0-9a-f-]{20,}|[a-z0-9]{16,40}\.m\.pipedream\.net|webexapis\.com/v1/webhooks/incoming/[A-Za-z0-9_-]{20,}|hooks\.airtable\.com/workflows/v1/genericWebhook/${URL_REST}{20,})`,
      flags: "i",
      edge: false,
    }),
    token({
      id: "webhook-path",
      description:
        "a webhook URL of any service whose path holds a random secret after a segment naming a hook (hooks/, webhook/, sendwebhookdata/: Mattermost, Rocket.Chat, n8n, Pabbly, self-hosted services)",
      keywords: ["hook"],
      source: String.raw`https?://[^\s"'<>/\\]{3,253}/(?:[^\s"'<>/\\?#]{1,60}/){0,4}[^\s"'<>/\\?#]{0,30}hooks?[^\s"'<>/\\?#]{0,30}/(?:[^\s"'<>/\\?#]{1,60}/){0,3}([A-Za-z0-9_-]{20,200})${END_URL}`,
      edge: false,
      group: 1,
      check: randomSegment,
    }),
  ];
}

/** Words before a 64-hex run that make it a key rather than a hash. */
const KEY_CONTEXT = /priv|secret|wallet|signer|deployer|metamask|mnemonic|\bkey\b|_key|pk\b/i;
const HASH_CONTEXT =
  /hash|sha|digest|commit|\btx|transaction|block|address|checksum|etag|integrity|public|pubkey/i;

/** Wallet and signing keys. */
function walletRules(): SecretRule[] {
  return [
    token({
      id: "bitcoin-wif",
      description:
        "WIF private keys (Bitcoin 5…/K…/L…, testnet 9…/c…; other coins by their checksum) beside a wallet word",
      keywords: ["wif", "bitcoin", "btc", "privkey", "private", "wallet", "importprivkey", "electrum"],
      source: `(?<!${B58})[5KLc9]${B58}{50,51}(?!${B58})`,
      edge: false,
      check: (s) => isWif(s) || ((s.length === 51 ? /^[59]/.test(s) : /^[KLc]/.test(s)) && entropy(s) >= 4.5),
    }),
    token({
      id: "solana-keypair",
      description: "a Solana keypair in base58 (64 bytes) beside a wallet word",
      keywords: ["solana", "keypair", "phantom", "wallet", "sol_"],
      source: `(?<!${B58})${B58}{86,88}(?!${B58})`,
      edge: false,
      check: (s) => base58Decode(s)?.length === 64,
    }),
    token({
      id: "solana-keypair-json",
      description: "a keypair as a JSON array of 64 bytes (Solana's id.json, a wallet export)",
      // An array opening on a number (`[12,`, `[ 12,`); pretty-printed arrays put a break first.
      keywords: [..."0123456789"].flatMap((d) => [`[${d}`, `[ ${d}`, `[\n  ${d}`, `[\\n  ${d}`]),
      source: String.raw`\[\s*(?:(?:25[0-5]|2[0-4]\d|1?\d{1,2})\s*,\s*){63}(?:25[0-5]|2[0-4]\d|1?\d{1,2})\s*\]`,
      edge: false,
      check: (s) => new Set(s.match(/\d+/g)).size >= 24,
    }),
    token({
      id: "nostr-nsec",
      description: "Nostr private keys (nsec1…, NIP-49 ncryptsec1…)",
      keywords: ["nsec1", "ncryptsec1"],
      source: `(?:nsec1${BECH32}{58}|ncryptsec1${BECH32}{100,})${END}`,
    }),
    token({
      id: "minisign-secret-key",
      description: "minisign and signify secret keys without their comment line (RWRTY0Iy…, RWRCSw…)",
      keywords: ["rwrty0iy", "rwrcsw"],
      source: "(?:RWRTY0Iy|RWRCSw)[A-Za-z0-9+/]{60,}={0,2}",
    }),
    token({
      id: "eth-private-key",
      description: "a raw 64-hex (Ethereum/secp256k1) private key with a key or wallet word before it",
      keywords: [
        "private_key",
        "private-key",
        "privatekey",
        "private key",
        "privkey",
        "priv_key",
        "wallet",
        "signer",
        "deployer",
        "metamask",
        "mnemonic",
      ],
      source: `(?<![A-Za-z0-9])(?:0x)?[0-9a-fA-F]{64}${END}`,
      edge: false,
      check: (s, m) => {
        if (entropy(s.replace(/^0x/, "")) < 3.3) return false;
        const before = m.input.slice(Math.max(0, m.index - 60), m.index);
        return KEY_CONTEXT.test(before) && !HASH_CONTEXT.test(before);
      },
    }),
    token({
      id: "mnemonic-phrase",
      description:
        "a BIP-39 recovery phrase (12 to 24 words) named in a sentence or a list: my seed phrase is …, mnemonic: 1. word 2. word …",
      keywords: ["mnemonic", "seed", "recovery", "phrase", "secret words", "backup words"],
      source: String.raw`(?:mnemonic|seed|recovery|secret|backup|wallet)(?:[ _.-]?(?:phrase|words|key))?[\w '’.-]{0,40}?["'\\\]]{0,4}(?:\s*(?::|=|->|→|—)|\s+is(?:\s*:)?|\s*\n|\s)\s*\[?\s*\\{0,3}["'\x60]?((?:(?:\d{1,2}[.)]\s*)?[a-z]{3,8}(?:\\{0,3}["'])?[ ,\t]*(?:(?:\n|\\n)[ \t]*)?(?:\\{0,3}["'])?){11,23}(?:\d{1,2}[.)]\s*)?[a-z]{3,8})`,
      flags: "i",
      edge: false,
      group: 1,
      check: (s) => {
        const words = s.match(/[a-z]{3,8}/gi) ?? [];
        const stop = words.filter((w) => STOPWORDS.has(w.toLowerCase())).length;
        return words.length >= 12 && new Set(words).size >= 9 && stop <= 1;
      },
    }),
  ];
}

/** Function words of English that are not in the BIP-39 list: prose, not a phrase. */
const STOPWORDS = new Set(
  "the and that with this you are but from have was were they will would should could what when which there their then than into because been its our your".split(
    " ",
  ),
);

/** Personal access tokens. */
function patRules(): SecretRule[] {
  return [
    token({
      id: "asana-pat",
      description: "Asana personal access tokens (1/<user id>:<32 hex>, 2/<user id>/<app id>:<32 hex>)",
      keywords: [..."123456789"].flatMap((d) => [`1/${d}`, `2/${d}`]),
      source: String.raw`[12]/\d{10,19}(?:/\d{10,19})?:[0-9a-f]{32}${END}`,
    }),
    token({
      id: "azure-devops-pat",
      description:
        "Azure DevOps personal access tokens: the 84-character form (…AZDO…) anywhere, and 52 base32 characters beside an Azure DevOps word",
      keywords: ["azdo", "devops", "azure", "vsts", "ado_", "ado-", "personal access"],
      source: `(?<![A-Za-z0-9])(?:[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}|[a-z2-7]{52})${END}`,
      edge: false,
      check: (s) => s.length === 84 || (/[2-7].*[2-7]/.test(s) && entropy(s) >= 4),
    }),
  ];
}

/** Secret-ish words as the last camel-case words of a name (`wifiPsk`, `smtpPassword`, `apiTokenValue`). */
const CAMEL_STRONG = "Password|Passwd|Passphrase|Passcode|Pwd|Pass|Psk";
const CAMEL_WEAK = "Secret|Token|Key|Credentials?|Creds?|Auth|Private|Seed|Mnemonic|Salt|Signature";

/** Names whose last word is a part, not a secret (`tokenCount`, `keyName`, `authUrl`). */
const CAMEL_NOT_SECRET =
  /(?:Id|Ids|Name|Names|Count|Length|Type|Types|Url|Uri|Path|File|Header|Field|Prefix|Hint|Label|Format|Policy|Expiry|Expires|At|Ttl|Endpoint|Provider|Mode|Enabled|Required|Valid|Index|Hash|Public)$/;

/** Headers named like a key that hold none: idempotency, cache and sort keys, public and id keys. */
const NOT_SECRET_HEADER =
  /(?:Idempotency|Dedupe|Cache|Sort|Partition|Primary|Public|Publishable|Request|Trace|Correlation|Routing|Lookup)-/i;

/** Rules for names and headers in the syntaxes the generic rules read too narrowly. */
function nameRules(): SecretRule[] {
  const camel = (id: string, words: string, strong: boolean): SecretRule =>
    token({
      id,
      description: `a value assigned to a camel-case name ending in a ${strong ? "password" : "secret, token or key"} word (${strong ? "wifiPsk, smtpPassword" : "apiToken, signingKey"})`,
      keywords: strong
        ? ["password", "passwd", "passphrase", "passcode", "pwd", "pass", "psk"]
        : [
            "secret",
            "token",
            "key",
            "credential",
            "cred",
            "auth",
            "private",
            "seed",
            "mnemonic",
            "salt",
            "signature",
          ],
      // Case-sensitive: the word's capital after a lower-case letter or digit is the camel-case boundary
      // (checked in code: a leading look-behind would be tried at every position of every text).
      // A password word ends the name (`computePassEncoder` is no password); a key word may have a tail
      // (`apiTokenValue`) that CAMEL_NOT_SECRET reads.
      source: String.raw`(?:${words})${strong ? "" : "(?:[A-Z][a-z0-9]*){0,2}"}["'\\\]]{0,5}\s{0,3}(?:=>|:=|=|:)[\s'"\x60\\]{0,6}([^\s'"\x60\\;,<>(){}\[\]]{${strong ? 6 : 16},300})(?![^\s'"\x60;,)\]}>|\\&])`,
      edge: false,
      group: 1,
      check: (v, m) => {
        if (!/[a-z0-9]/.test(m.input.charAt(m.index - 1))) return false;
        const name = /^[A-Za-z0-9]*/.exec(m[0])?.[0] ?? "";
        if (CAMEL_NOT_SECRET.test(name) || wordsIdentifier(v) || typeName(v)) return false;
        return looksSecret(v, strong);
      },
    });
  return [
    token({
      id: "key-value-attributes",
      description:
        'a value paired with a secret-looking name in attributes (.NET appSettings <add key="ApiSecret" value="…"/>, name=… value=…)',
      keywords: ["value="],
      source: String.raw`\b(?:key|name)\s*=\s*\\{0,3}["']([\w.:-]{0,40}?(?:secret|token|passw(?:or)?d|pwd|api[_.-]?key|credential|private[_.-]?key|access[_.-]?key|signing[_.-]?key|psk)[\w.:-]{0,40})\\{0,3}["']\s+value\s*=\s*\\{0,3}["']([^"'\\\s]{6,300})\\{0,3}["']`,
      flags: "i",
      edge: false,
      group: 2,
      check: (v, m) => looksSecret(v, /passw|pwd|psk/i.test(m[1] ?? "")),
    }),
    token({
      id: "header-secret",
      description:
        "a header whose name ends in Key, Token, Secret or Auth (Ocp-Apim-Subscription-Key, X-Goog-Api-Key…), and a bare token as the whole of an Authorization header",
      keywords: [
        ...["-key", "-token", "-secret", "-auth", "-password"].flatMap((k) => [
          `${k}:`,
          `${k}":`,
          `${k}':`,
          `${k}\\":`,
        ]),
        "authorization:",
        'authorization":',
        "authorization':",
      ],
      source: String.raw`(?:\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-(?:Key|Token|Secret|Auth|Password)|\bAuthorization)\\{0,3}["']?\s*:\s*\\{0,3}["']?([A-Za-z0-9_~+/.=:-]{16,512})(?![A-Za-z0-9_~+/.=:-]|\s+[A-Za-z0-9_~+/=-]{8})`,
      flags: "i",
      edge: false,
      group: 1,
      check: (v, m) =>
        !NOT_SECRET_HEADER.test(m[0]) && (looksSecret(v, false) || randomRun(v.replace(/[^A-Za-z0-9]/g, ""))),
    }),
    token({
      id: "prose-named-value",
      description:
        'a random value right after the word that names it, with no ":" or "is" between ("use PAT 3x…", "the webhook https://…", "token ghx…")',
      keywords: [
        " pat ",
        "token ",
        "api key ",
        "apikey ",
        "secret ",
        "password ",
        "passphrase ",
        "credential ",
        "psk ",
        "passcode ",
      ],
      source: String.raw`\b(?:PAT|[Tt]oken|API[ _-]?[Kk]ey|[Aa]pi[ _-]?[Kk]ey|[Ss]ecret|[Cc]redential|([Pp]assword|[Pp]assphrase|PSK|[Pp]asscode))[ \t]+\\{0,3}["'\x60]?([A-Za-z0-9_~+/.=:%$!@#*-]{16,300})(?=\\{0,3}["'\x60]|[\s,;)]|\.(?:\s|$)|$)`,
      edge: false,
      group: 2,
      asWritten: true,
      fallback: true,
      // A password's noun (capture 1) takes a password's value; the others a long random one.
      check: (v, m) =>
        m[1] !== undefined
          ? v.length >= 10 && looksSecret(v, true)
          : !/^0x[0-9a-fA-F]{40}$/.test(v) &&
            !/^[a-z]+:/i.test(v) &&
            (randomRun(v.replace(/[^A-Za-z0-9]/g, "")) ||
              (looksSecret(v, false) && v.length >= 24 && entropy(v) >= 3.8)),
    }),
    camel("camel-password", CAMEL_STRONG, true),
    camel("camel-secret", CAMEL_WEAK, false),
    token({
      id: "bearer-flag",
      description:
        "bearer tokens given in a client's own syntax: curl --oauth2-bearer, httpie -A bearer -a, wget --header, a token with : (Asana)",
      keywords: ["oauth2-bearer", "bearer"],
      source: String.raw`(?:--oauth2-bearer[=\s]+|(?:-A|--auth-type)[=\s]+bearer\s+(?:-a|--auth)[=\s]+|Bearer\s+)(?:\\{0,3}["'])?([A-Za-z0-9_~+/.=:-]{12,4096})`,
      flags: "i",
      edge: false,
      group: 1,
      check: (s) =>
        !/^\$/.test(s) &&
        (looksSecret(s, false) || (/[0-9]/.test(s) && s.length >= 20 && entropy(s) >= 3.5) || randomRun(s)),
    }),
  ];
}

/** The issue-40 classes. */
export function edgeRules(): SecretRule[] {
  return [...webhookRules(), ...walletRules(), ...patRules(), ...nameRules()];
}
