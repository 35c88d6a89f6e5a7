/**
 * Catalogue: LLM APIs, payments, messaging and SaaS tokens with their own shape.
 */
import { END, END_URL, entropy, mixedAlnum, type SecretRule, token } from "./catalogue.js";

/** Digits only once base64-decoded: the first segment of a Discord bot token is the bot's numeric id. */
function base64Digits(s: string): boolean {
  try {
    const padded = s.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (s.length % 4)) % 4);
    return /^\d{15,22}$/.test(atob(padded));
  } catch {
    return false;
  }
}

/** Rules for LLM APIs. */
function llmRules(): SecretRule[] {
  return [
    token({
      id: "anthropic",
      description: "Anthropic API, admin and OAuth keys (sk-ant-…)",
      keywords: ["sk-ant-"],
      source: `sk-ant-(?:api|admin|oat|ort)\\d\\d-[A-Za-z0-9_-]{32,200}${END_URL}`,
      gitleaks: ["anthropic-api-key", "anthropic-admin-api-key"],
    }),
    token({
      id: "openai",
      description:
        "OpenAI keys and other sk- keys (project, service account, admin, legacy; OpenRouter, DeepSeek…)",
      keywords: ["sk-"],
      source: `sk-(?:proj-|svcacct-|admin-|or-v1-|None-)?[A-Za-z0-9_-]{32,}${END_URL}`,
      gitleaks: ["openai-api-key"],
    }),
    token({
      id: "huggingface",
      description: "Hugging Face user and organisation tokens (hf_, api_org_)",
      keywords: ["hf_", "api_org_"],
      source: `(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z]{34})${END}`,
      gitleaks: ["huggingface-access-token", "huggingface-organization-api-token"],
    }),
    token({
      id: "groq",
      description: "Groq API key (gsk_)",
      keywords: ["gsk_"],
      source: `gsk_[A-Za-z0-9]{52}${END}`,
    }),
    token({
      id: "replicate",
      description: "Replicate API token (r8_)",
      keywords: ["r8_"],
      source: `r8_[A-Za-z0-9_-]{37}${END_URL}`,
    }),
    token({
      id: "perplexity",
      description: "Perplexity API key (pplx-)",
      keywords: ["pplx-"],
      source: `pplx-[A-Za-z0-9]{48}${END}`,
      gitleaks: ["perplexity-api-key"],
    }),
    token({
      id: "xai",
      description: "xAI API key (xai-)",
      keywords: ["xai-"],
      source: `xai-[A-Za-z0-9_]{70,90}${END}`,
    }),
    token({
      id: "fireworks",
      description: "Fireworks AI API key (fw_)",
      keywords: ["fw_"],
      source: `fw_[A-Za-z0-9]{24}${END}`,
      check: mixedAlnum,
    }),
    token({
      id: "langsmith",
      description: "LangSmith personal and service keys (lsv2_pt_/lsv2_sk_)",
      keywords: ["lsv2_"],
      source: `lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}${END}`,
    }),
    token({
      id: "pinecone",
      description: "Pinecone API key (pcsk_)",
      keywords: ["pcsk_"],
      source: `pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}${END}`,
    }),
    token({
      id: "tavily",
      description: "Tavily API key (tvly-)",
      keywords: ["tvly-"],
      source: `tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}${END}`,
    }),
    token({
      id: "nvidia",
      description: "NVIDIA API key (nvapi-)",
      keywords: ["nvapi-"],
      source: `nvapi-[A-Za-z0-9_-]{64}${END_URL}`,
    }),
    token({
      id: "cerebras",
      description: "Cerebras API key (csk-)",
      keywords: ["csk-"],
      source: `csk-[a-z0-9]{48}${END}`,
    }),
    token({
      id: "elevenlabs",
      description: "ElevenLabs API key (sk_ + 48 hex)",
      keywords: ["sk_"],
      source: `sk_[a-f0-9]{48}${END}`,
    }),
  ];
}

/** Rules for payments. */
function paymentRules(): SecretRule[] {
  return [
    token({
      id: "stripe",
      description: "Stripe secret and restricted keys, webhook secrets (sk_/rk_ live|test|prod, whsec_)",
      keywords: ["sk_live", "sk_test", "sk_prod", "rk_live", "rk_test", "rk_prod", "whsec_"],
      source: `(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9+/]{32,})${END}`,
      gitleaks: ["stripe-access-token"],
    }),
    token({
      id: "square",
      description: "Square access token and OAuth secret (EAAA…, sq0atp-, sq0csp-)",
      keywords: ["eaaa", "sq0atp-", "sq0csp-"],
      source: `(?:EAAA[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43})${END_URL}`,
      check: mixedAlnum,
      gitleaks: ["square-access-token"],
    }),
    token({
      id: "braintree",
      description: "PayPal Braintree access token",
      keywords: ["access_token$"],
      source: String.raw`access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}`,
    }),
    token({
      id: "shopify",
      description: "Shopify access tokens and shared secret (shpat_/shpca_/shppa_/shpss_)",
      keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
      source: `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${END}`,
      gitleaks: [
        "shopify-access-token",
        "shopify-custom-access-token",
        "shopify-private-app-access-token",
        "shopify-shared-secret",
      ],
    }),
    token({
      id: "flutterwave",
      description: "Flutterwave secret, public and encryption keys (FLWSECK/FLWPUBK)",
      keywords: ["flwseck", "flwpubk"],
      source: `FLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?${END}`,
      gitleaks: ["flutterwave-secret-key", "flutterwave-public-key", "flutterwave-encryption-key"],
    }),
    token({
      id: "duffel",
      description: "Duffel API token",
      keywords: ["duffel_"],
      source: `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}${END_URL}`,
      gitleaks: ["duffel-api-token"],
    }),
    token({
      id: "easypost",
      description: "EasyPost production and test keys (EZAK/EZTK)",
      keywords: ["ezak", "eztk"],
      source: `EZ[AT]K[A-Za-z0-9]{54}${END}`,
      gitleaks: ["easypost-api-token", "easypost-test-api-token"],
    }),
    token({
      id: "shippo",
      description: "Shippo API token",
      keywords: ["shippo_"],
      source: `shippo_(?:live|test)_[a-fA-F0-9]{40}${END}`,
      gitleaks: ["shippo-api-token"],
    }),
    token({
      id: "plaid",
      description: "Plaid access token (access-<env>-<uuid>)",
      keywords: ["access-sandbox-", "access-development-", "access-production-"],
      source:
        "access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
      gitleaks: ["plaid-api-token"],
    }),
    token({
      id: "freemius",
      description: "Freemius secret key in PHP config",
      keywords: ["secret_key"],
      source: String.raw`["']secret_key["']\s*=>\s*["'](sk_[^\s'"]{29})["']`,
      edge: false,
      group: 1,
      gitleaks: ["freemius-secret-key"],
    }),
  ];
}

/** Rules for messaging, email and social platforms. */
function messagingRules(): SecretRule[] {
  return [
    token({
      id: "slack",
      description:
        "Slack tokens of every xox<letter>- kind (bot, user, app, workspace, client, cookie, refresh…) and xapp-",
      keywords: ["xox", "xapp-"],
      source: String.raw`(?:xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,200}|xox[a-z]-[A-Za-z0-9%-]{10,}|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)`,
      gitleaks: [
        "slack-bot-token",
        "slack-legacy-bot-token",
        "slack-user-token",
        "slack-app-token",
        "slack-config-access-token",
        "slack-config-refresh-token",
        "slack-legacy-token",
        "slack-legacy-workspace-token",
      ],
    }),
    token({
      id: "slack-webhook",
      description: "Slack incoming webhook, workflow and trigger URLs",
      keywords: ["hooks.slack.com"],
      source: String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`,
      edge: false,
      gitleaks: ["slack-webhook-url"],
    }),
    token({
      id: "discord-bot-token",
      description: "Discord bot token (base64 bot id . timestamp . HMAC)",
      keywords: [],
      source: String.raw`([MNO][A-Za-z0-9_-]{23,27})\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])`,
      check: (s) => base64Digits(s.slice(0, s.indexOf("."))),
    }),
    token({
      id: "discord-webhook",
      description: "Discord webhook URL",
      keywords: ["/api/webhooks/"],
      source: String.raw`discord(?:app)?\.com/api/webhooks/\d{15,22}/[A-Za-z0-9_-]{60,80}`,
    }),
    token({
      id: "telegram-bot-token",
      description: "Telegram bot token (<bot id>:AA…)",
      keywords: [":aa"],
      source: `\\d{8,10}:AA[A-Za-z0-9_-]{33}${END_URL}`,
      gitleaks: ["telegram-bot-api-token"],
    }),
    token({
      id: "twilio",
      description: "Twilio API key SID (SK + 32 hex)",
      keywords: ["sk"],
      source: `SK[0-9a-fA-F]{32}${END}`,
      check: (s) => /[0-9]/.test(s) && /[a-fA-F]/.test(s.slice(2)),
      gitleaks: ["twilio-api-key"],
    }),
    token({
      id: "sendgrid",
      description: "SendGrid API key (SG.<id>.<secret>, either part may hold - and _)",
      keywords: ["sg."],
      source: `SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}${END_URL}`,
      gitleaks: ["sendgrid-api-token"],
    }),
    token({
      id: "brevo",
      description: "Brevo (Sendinblue) API and SMTP keys (xkeysib-/xsmtpsib-)",
      keywords: ["xkeysib-", "xsmtpsib-"],
      source: `x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}${END}`,
      gitleaks: ["sendinblue-api-token"],
    }),
    token({
      id: "mailchimp",
      description: "Mailchimp API key (<32 hex>-us<n>)",
      keywords: ["-us"],
      source: `[a-f0-9]{32}-us\\d{1,2}${END}`,
      gitleaks: ["mailchimp-api-key"],
    }),
    token({
      id: "microsoft-teams-webhook",
      description: "Microsoft Teams incoming webhook URL",
      keywords: ["webhook.office.com"],
      source: String.raw`[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9-]{36}`,
      edge: false,
      gitleaks: ["microsoft-teams-webhook"],
    }),
    token({
      id: "facebook",
      description: "Facebook page/user access token (EAAC/EAAM…) and app access token (<app id>|<secret>)",
      keywords: ["eaac", "eaam", "eaag", "|", "%7c"],
      source: String.raw`EAA[CMG][A-Za-z0-9]{100,}(?![A-Za-z0-9])|\d{15,16}(?:\||%7[Cc])[0-9A-Za-z_-]{27,40}(?![0-9A-Za-z_-])`,
      check: mixedAlnum,
      gitleaks: ["facebook-page-access-token", "facebook-access-token"],
    }),
    token({
      id: "twitter-bearer-token",
      description: "X/Twitter app bearer token (22 A's then the secret)",
      keywords: ["aaaaaaaaaaaaaaaaaaaaaa"],
      source: "A{22}[A-Za-z0-9%]{80,110}(?![A-Za-z0-9%])",
      edge: false,
      check: (s) => mixedAlnum(s) && entropy(s.replace(/^A+/, "")) >= 4,
      gitleaks: ["twitter-bearer-token"],
    }),
  ];
}

/** Rules for other SaaS tokens. */
function saasRules(): SecretRule[] {
  return [
    token({
      id: "linear",
      description: "Linear API keys and OAuth tokens (lin_api_, lin_oauth_)",
      keywords: ["lin_api_", "lin_oauth_"],
      source: `lin_(?:api_[A-Za-z0-9]{40}|oauth_[A-Za-z0-9]{32,80})${END}`,
      gitleaks: ["linear-api-key"],
    }),
    token({
      id: "notion",
      description: "Notion integration tokens (ntn_, legacy secret_)",
      keywords: ["ntn_", "secret_"],
      source: `(?:ntn_\\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})${END}`,
      check: mixedAlnum,
      gitleaks: ["notion-api-token"],
    }),
    token({
      id: "figma",
      description: "Figma personal access and OAuth tokens (figd_, figp_, figu_, figo_…)",
      keywords: ["figd_", "figp_", "figu_", "figo_", "figur_", "figuh_", "figor_", "figoh_"],
      source: `fig[dpuo][rh]?_[A-Za-z0-9_=-]{40,60}(?![A-Za-z0-9_=-])`,
    }),
    token({
      id: "airtable",
      description: "Airtable personal access token (pat….<64 hex>)",
      keywords: ["pat"],
      source: `pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}${END}`,
      gitleaks: ["airtable-personnal-access-token"],
    }),
    token({
      id: "atlassian",
      description: "Atlassian API token (ATATT3…)",
      keywords: ["atatt3"],
      source: `ATATT3[A-Za-z0-9_=-]{150,250}${END_URL}`,
    }),
    token({
      id: "hubspot",
      description: "HubSpot private app token (pat-na1-…)",
      keywords: ["pat-na", "pat-eu"],
      source: "pat-(?:na|eu)\\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    }),
    token({
      id: "contentful",
      description: "Contentful personal access token (CFPAT-)",
      keywords: ["cfpat-"],
      source: `CFPAT-[A-Za-z0-9_-]{43}${END_URL}`,
    }),
    token({
      id: "typeform",
      description: "Typeform personal token (tfp_)",
      keywords: ["tfp_"],
      source: `tfp_[A-Za-z0-9_.=-]{40,80}(?![A-Za-z0-9_.=-])`,
      gitleaks: ["typeform-api-token"],
    }),
    token({
      id: "mapbox",
      description: "Mapbox access tokens (pk./sk./tk. + JWT-like body)",
      keywords: ["pk.ey", "sk.ey", "tk.ey"],
      source: `[pst]k\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}${END_URL}`,
      gitleaks: ["mapbox-api-token"],
    }),
    token({
      id: "maxmind",
      description: "MaxMind license key (…_mmk)",
      keywords: ["_mmk"],
      source: `[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk${END}`,
      gitleaks: ["maxmind-license-key"],
    }),
    token({
      id: "dropbox",
      description: "Dropbox short-lived token (sl.…)",
      keywords: ["sl."],
      source: `sl\\.[A-Za-z0-9_=-]{130,160}${END_URL}`,
      gitleaks: ["dropbox-short-lived-api-token"],
    }),
    token({
      id: "adobe",
      description: "Adobe client secret (p8e-)",
      keywords: ["p8e-"],
      source: `p8e-[A-Za-z0-9]{32}${END}`,
      gitleaks: ["adobe-client-secret"],
    }),
  ];
}

/** All app rules (built on call: the catalogue is compiled on first scan, not on import). */
export function appRules(): SecretRule[] {
  return [...llmRules(), ...paymentRules(), ...messagingRules(), ...saasRules()];
}
