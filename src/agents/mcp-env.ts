/**
 * The environment funes's MCP server reads, by name, for agents that hand MCP servers only a short list
 * of variables (Codex passes HOME, PATH, LANG, SHELL, TERM, USER, TMPDIR, TZ… and nothing else): without
 * these, a token kept in `HF_TOKEN`, a Hub mirror in `HF_ENDPOINT`, a moved cache, a proxy or a moved
 * memory never reach the agent's recall, while the same recall from the shell works.
 */

/** Variables funes reads (a name passes only when it is set; none holds a value here). */
export const FUNES_ENV_VARS: readonly string[] = [
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "HUGGINGFACE_TOKEN",
  "HF_ENDPOINT",
  "HF_HOME",
  "HF_HUB_CACHE",
  "HF_HUB_OFFLINE",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "FUNES_HOME",
  "FUNES_EMBED_MODEL_DIR",
  "FUNES_RERANK_MODEL_DIR",
  "FUNES_RERANKER",
  "FUNES_EMBED_PRECISION",
  "FUNES_MAX_DOWNLOAD_MB",
  "FUNES_SERVER",
  "FUNES_THREADS",
  "FUNES_DEBUG",
];

/**
 * `config.toml` with `env_vars = [...]` (Codex's list of variables it forwards to a stdio MCP server) set
 * in the `[mcp_servers.<name>]` table `codex mcp add` wrote: replaced where it stands when there (left as it
 * is when it already names these), else after the table's last line. Text without that table comes back
 * unchanged.
 */
export function withCodexEnvVars(config: string, name: string): string {
  const header = `[mcp_servers.${name}]`;
  const lines = config.split("\n");
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) return config;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
  // The table ends at the next header; blank lines before it stay after our line.
  while (end > start + 1 && (lines[end - 1] ?? "").trim() === "") end--;
  const line = `env_vars = [${FUNES_ENV_VARS.map((v) => JSON.stringify(v)).join(", ")}]`;
  const at = lines.findIndex((l, i) => i > start && i < end && /^\s*env_vars\s*=/.test(l));
  if (at < 0) return [...lines.slice(0, end), line, ...lines.slice(end)].join("\n");
  // A list written over several lines ends at its closing bracket.
  let last = at;
  while (last < end - 1 && !(lines[last] ?? "").includes("]")) last++;
  if (last === at && lines[at] === line) return config;
  return [...lines.slice(0, at), line, ...lines.slice(last + 1)].join("\n");
}
