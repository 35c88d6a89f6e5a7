/**
 * Catalogue: cloud providers, hosting, databases and observability (tokens with their own shape).
 */
import { END, END_URL, mixedAlnum, type SecretRule, token } from "./catalogue.js";

/** Rules for cloud, hosting, databases and observability. */
export function cloudRules(): SecretRule[] {
  return [
    token({
      id: "aws-access-key-id",
      description: "AWS access key id (AKIA/ASIA/ABIA/ACCA/A3T…)",
      keywords: ["akia", "asia", "abia", "acca", "a3t", "aida", "aroa", "anpa", "aipa"],
      source: `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AIDA|AROA|ANPA|AIPA)[A-Z2-7]{16}${END}`,
      // AWS's documentation example key ids end in EXAMPLE.
      check: (s) => !s.endsWith("EXAMPLE"),
      gitleaks: ["aws-access-token"],
    }),
    token({
      id: "aws-secret-access-key",
      description: "AWS secret access key assigned to an aws secret key name",
      keywords: ["secret"],
      source: String.raw`aws_?secret_?(?:access_?)?key[\w.-]{0,10}["'\\]{0,4}\s*(?:=|:|=>)\s*["'\\]{0,6}([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])`,
      flags: "i",
      edge: false,
      group: 1,
    }),
    token({
      id: "aws-bedrock",
      description: "Amazon Bedrock API keys (long-lived ABSK…, short-lived bedrock-api-key-…)",
      keywords: ["absk", "bedrock-api-key-"],
      source:
        "ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%_-]{20,}",
      gitleaks: ["aws-amazon-bedrock-api-key-long-lived", "aws-amazon-bedrock-api-key-short-lived"],
    }),
    token({
      id: "gcp-api-key",
      description: "Google API key (AIza…)",
      keywords: ["aiza"],
      source: `AIza[A-Za-z0-9_-]{35}${END_URL}`,
      gitleaks: ["gcp-api-key"],
    }),
    token({
      id: "google-oauth",
      description: "Google OAuth client secret (GOCSPX-…), access token (ya29.…) and refresh token (1//…)",
      keywords: ["gocspx-", "1//", "ya29."],
      source: String.raw`GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])|ya29\.[A-Za-z0-9_-]{20,}|1//0[A-Za-z0-9_-]{40,}`,
    }),
    token({
      id: "azure-ad-client-secret",
      description: "Microsoft Entra (Azure AD) client secret (…Q~…)",
      keywords: ["q~"],
      source: String.raw`[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`,
      gitleaks: ["azure-ad-client-secret"],
    }),
    token({
      id: "azure-connection-string",
      description:
        "Azure storage/service bus/event hub keys in connection strings (AccountKey=, SharedAccessKey=)",
      keywords: ["accountkey", "sharedaccesskey"],
      source: String.raw`(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)\s*=\s*([A-Za-z0-9+/]{30,100}={0,2})`,
      edge: false,
      flags: "i",
      group: 1,
    }),
    token({
      id: "azure-storage-key",
      description:
        "Azure storage/Cosmos DB account key (86–88 base64 characters) under an access/account/storage key name",
      keywords: [
        "accountkey",
        "account_key",
        "account-key",
        "storagekey",
        "storage_key",
        "storage-key",
        "accesskey",
        "access_key",
        "access-key",
        "cosmos",
      ],
      source: String.raw`(?:access|account|storage|cosmos\w{0,20})[_.-]?key[\w.-]{0,20}?[\s'"\\]{0,4}(?:=>|:=|=|:)[\s'"\\]{0,6}([A-Za-z0-9+/-]{86}(?:==|[A-Za-z0-9+/-]{2}))`,
      edge: false,
      flags: "i",
      group: 1,
    }),
    token({
      id: "azure-container-registry",
      description: "Azure Container Registry password (…+ACR…)",
      keywords: ["+acr"],
      source: `[A-Za-z0-9+/]{42}\\+ACR[A-Za-z0-9]{6}${END}`,
      edge: false,
    }),
    token({
      id: "azure-sas",
      description: "Azure shared access signature (sig= in a SAS URL or token)",
      keywords: ["sig="],
      source: "[?&;]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})",
      edge: false,
      group: 1,
      check: (s) => s.includes("%") || s.length >= 43,
    }),
    token({
      id: "alibaba-access-key-id",
      description: "Alibaba Cloud access key id (LTAI…)",
      keywords: ["ltai"],
      source: `LTAI[A-Za-z0-9]{20}${END}`,
      gitleaks: ["alibaba-access-key-id"],
    }),
    token({
      id: "digitalocean",
      description: "DigitalOcean personal access, OAuth and refresh tokens (dop_v1_/doo_v1_/dor_v1_)",
      keywords: ["dop_v1_", "doo_v1_", "dor_v1_"],
      source: `do[por]_v1_[a-f0-9]{64}${END}`,
      flags: "i",
      gitleaks: ["digitalocean-pat", "digitalocean-access-token", "digitalocean-refresh-token"],
    }),
    token({
      id: "cloudflare-origin-ca",
      description: "Cloudflare Origin CA key (v1.0-…)",
      keywords: ["v1.0-"],
      source: `v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}${END}`,
      gitleaks: ["cloudflare-origin-ca-key"],
    }),
    token({
      id: "heroku",
      description: "Heroku API key v2 (HRKU-AA…)",
      keywords: ["hrku-"],
      source: `HRKU-AA[A-Za-z0-9_-]{58}${END_URL}`,
      gitleaks: ["heroku-api-key-v2"],
    }),
    token({
      id: "flyio",
      description: "Fly.io tokens (fo1_, fm1a_/fm1r_, fm2_)",
      keywords: ["fo1_", "fm1", "fm2_"],
      source: "(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})",
      gitleaks: ["flyio-access-token"],
    }),
    token({
      id: "vercel",
      description: "Vercel tokens (vcp_/vci_/vca_/vcr_/vck_)",
      keywords: ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
      source: `vc[pciark]_[A-Za-z0-9]{24,64}${END}`,
      check: mixedAlnum,
    }),
    token({
      id: "supabase",
      description: "Supabase personal access token (sbp_) and secret key (sb_secret_)",
      keywords: ["sbp_", "sb_secret_"],
      source: `(?:sbp_[a-z0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})${END_URL}`,
    }),
    token({
      id: "render",
      description: "Render API key (rnd_…)",
      keywords: ["rnd_"],
      source: `rnd_[A-Za-z0-9]{32}${END}`,
      check: mixedAlnum,
    }),
    token({
      id: "tailscale",
      description: "Tailscale auth/API/OAuth keys (tskey-…)",
      keywords: ["tskey-"],
      source: `tskey-[a-z]+-[A-Za-z0-9_]{6,}-[A-Za-z0-9_]{16,}${END}`,
    }),
    token({
      id: "scaleway",
      description: "Scaleway access key (SCW…)",
      keywords: ["scw"],
      source: `SCW[A-Z0-9]{17}${END}`,
      check: (s) => /[0-9]/.test(s.slice(3)),
    }),
    token({
      id: "planetscale",
      description:
        "PlanetScale service token, OAuth token and password (pscale_tkn_/pscale_oauth_/pscale_pw_)",
      keywords: ["pscale_"],
      source: "pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}(?![A-Za-z0-9_=.-])",
      gitleaks: ["planetscale-api-token", "planetscale-oauth-token", "planetscale-password"],
    }),
    token({
      id: "neon",
      description: "Neon database password and API key (npg_…, napi_…)",
      keywords: ["npg_", "napi_"],
      source: `(?:npg_[A-Za-z0-9]{12,}|napi_[a-z0-9]{64})${END}`,
      check: (s) =>
        s.startsWith("napi_") ||
        /[0-9]/.test(s.slice(4)) ||
        /[A-Z][^_]*[a-z]|[a-z][^_]*[A-Z]/.test(s.slice(4)),
    }),
    token({
      id: "clickhouse",
      description: "ClickHouse Cloud API secret key (4b1d…)",
      keywords: ["4b1d"],
      source: `4b1d[A-Za-z0-9]{38}${END}`,
      entropy: 3,
      gitleaks: ["clickhouse-cloud-api-secret-key"],
    }),
    token({
      id: "databricks",
      description: "Databricks access token (dapi…)",
      keywords: ["dapi"],
      source: `dapi[a-f0-9]{32}(?:-\\d)?${END}`,
      gitleaks: ["databricks-api-token"],
    }),
    token({
      id: "dynatrace",
      description: "Dynatrace API token (dt0c01.…)",
      keywords: ["dt0c01."],
      source: `dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}${END}`,
      gitleaks: ["dynatrace-api-token"],
    }),
    token({
      id: "new-relic",
      description: "New Relic user API key, insert key and browser key (NRAK-/NRII-/NRJS-)",
      keywords: ["nrak-", "nrii-", "nrjs-"],
      source: `(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19})${END}`,
      gitleaks: ["new-relic-user-api-key", "new-relic-insert-key", "new-relic-browser-api-token"],
    }),
    token({
      id: "grafana",
      description: "Grafana API key (eyJrIjoi…), cloud token (glc_) and service account token (glsa_)",
      keywords: ["eyjrijoi", "glc_", "glsa_"],
      source:
        "(?:eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?![A-Za-z0-9+/=])",
      gitleaks: ["grafana-api-key", "grafana-cloud-api-token", "grafana-service-account-token"],
    }),
    token({
      id: "sentry",
      description: "Sentry user and organisation auth tokens (sntryu_/sntrys_)",
      keywords: ["sntryu_", "sntrys_"],
      source:
        "sntryu_[a-f0-9]{64}(?![A-Za-z0-9])|sntrys_eyJ[A-Za-z0-9+/=]{20,400}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])",
      gitleaks: ["sentry-user-token", "sentry-org-token"],
    }),
    token({
      id: "openshift",
      description: "OpenShift user token (sha256~…)",
      keywords: ["sha256~"],
      source: `sha256~[A-Za-z0-9_-]{43}${END_URL}`,
      gitleaks: ["openshift-user-token"],
    }),
    token({
      id: "yandex",
      description:
        "Yandex Cloud IAM token (t1.…), API key (AQVN…) and static access key (YC…) under a yandex name",
      keywords: ["yandex", "aqvn", "t1."],
      source: String.raw`t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}|AQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])|yandex[\w.-]{0,24}["'\\]{0,4}\s*[=:]\s*["'\\]{0,6}(YC[A-Za-z0-9_-]{38})`,
      group: 1,
      flags: "i",
      check: mixedAlnum,
      gitleaks: ["yandex-access-token", "yandex-api-key", "yandex-aws-access-token"],
    }),
    token({
      id: "kubernetes-secret",
      description: "values under data: of a Kubernetes Secret manifest",
      keywords: ["kind: secret", 'kind: "secret"', "kind: 'secret'"],
      source: String.raw`\bdata:[ \t]*(?:\r?\n|\\n)((?:[ \t]+[\w.-]+:[ \t]*["']?[A-Za-z0-9+/]{8,}={0,3}["']?[ \t]*(?:\r?\n|\\n|$))+)`,
      edge: false,
      group: 1,
      gitleaks: ["kubernetes-secret-yaml"],
    }),
    token({
      id: "database-password-param",
      description: "passwords in key=value connection strings (Password=…; Pwd=…;)",
      keywords: ["password=", "pwd="],
      source: String.raw`(?:^|[;,\s"'])(?:Password|Pwd)\s*=\s*([^;,\s"'\\]{4,})(?=[;,\s"'\\]|$)`,
      edge: false,
      flags: "i",
      group: 1,
      check: (s) => !/^[{$<%/~.]/.test(s) && !/^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(s),
    }),
  ];
}
