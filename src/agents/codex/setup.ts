/**
 * Codex: hook groups merged into `$CODEX_HOME/hooks.json` (Stop → index, then publish when a memory is
 * bound; SessionStart → push), the scripts in `$CODEX_HOME/hooks/`, trust entries for exactly those hooks in `config.toml`
 * (Codex runs no untrusted hook, and says nothing about it in `codex exec`), and `codex mcp add funes` with
 * the variables funes reads named in its `env_vars` (Codex passes MCP servers only HOME, PATH, LANG…).
 * The user's hooks are kept; `remove` restores the file byte for byte when nothing else changed in it.
 */
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import {
  canonicalJson,
  readTextOrNull,
  rememberOriginal,
  restoreOriginal,
  writeIfChanged,
} from "../files.js";
import { removeHookFolder, writeHookScripts } from "../hook-scripts.js";
import {
  formatHooksFile,
  funesPositions,
  type HookSpec,
  mergeFunesHooks,
  parseHooksFile,
  stopHookSpecs,
  stripFunesHooks,
} from "../json-hooks.js";
import { withCodexEnvVars } from "../mcp-env.js";
import { lastLine, runCli } from "../run-cli.js";
import {
  AgentSetupError,
  cliMissingOnRemove,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";
import { editTrust, trustEntries } from "./trust.js";

/** Where Codex keeps its configuration: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(o: { home: string; env: Record<string, string | undefined> }): string {
  return agentFolder("codex", o.home, o.env);
}

/** Top-level keys Codex accepts in hooks.json (it skips the whole file on any other). */
const CODEX_KEYS = new Set(["hooks", "description"]);

/** Stop → index (and publish, with a memory), SessionStart → push: Codex has no session-end event. */
function hookSpecs(dir: string, memory: string | null): HookSpec[] {
  return stopHookSpecs(join(dir, "hooks"), "codex", memory);
}

/** The user's hooks.json as it was before funes first wrote to it (for an exact restore). */
function originalRecord(home: string): string {
  return join(integrationsRoot(home), "codex-hooks.orig.json");
}

function readHooks(path: string): Record<string, unknown> {
  const root = parseHooksFile(readTextOrNull(path));
  if (root === null)
    throw new AgentSetupError(
      `${path} isn't plain JSON (a comment or a syntax error?) — Codex can't read it either, so none of its hooks run; fix it, then run this again`,
    );
  return root;
}

/** Installs the hooks (trusted) and the MCP registration. */
export async function installCodex(o: InstallOptions): Promise<SetupReport> {
  const codex = (args: string[]) => runCli("codex", args, o);
  await requireCli("codex", "Codex (npm i -g @openai/codex)", o);
  const dir = codexHome(o);
  const hooksPath = join(dir, "hooks.json");
  const text = readTextOrNull(hooksPath);
  const current = readHooks(hooksPath);
  const foreign = Object.keys(current).filter((k) => !CODEX_KEYS.has(k));
  if (foreign.length > 0)
    throw new AgentSetupError(
      `${hooksPath} has top-level key(s) ${foreign.map((k) => `"${k}"`).join(", ")} that Codex rejects (it then skips the whole file, so no hook in it runs) — remove them, then run \`funes add codex\` again`,
    );
  if (funesPositions(current).length === 0) rememberOriginal(originalRecord(o.home), text);
  const next = mergeFunesHooks(current, hookSpecs(dir, o.memory));
  const oldKeys = trustEntries(hooksPath, funesPositions(current)).map((e) => e.key);
  writeHookScripts(join(dir, "hooks"), o.funes);
  writeIfChanged(hooksPath, formatHooksFile(next));
  const configPath = join(dir, "config.toml");
  writeIfChanged(
    configPath,
    editTrust(readTextOrNull(configPath), new Set(oldKeys), trustEntries(hooksPath, funesPositions(next))),
  );
  const events = hookSpecs(dir, o.memory).map((s) => s.event);
  const report: SetupReport = [
    `installed funes hooks into ${hooksPath} (${events.join(", ")}) and trusted them in ${configPath} — indexes each turn${o.memory === null ? "" : ` and publishes it to ${o.memory} right after`}`,
  ];
  const add = await codex([
    "mcp",
    "add",
    "funes",
    "--",
    ...o.funes,
    "mcp",
    ...(o.memory === null ? [] : [o.memory]),
  ]);
  if (add.kind !== "ran" || add.code !== 0)
    throw new AgentSetupError(
      `\`codex mcp add funes\` failed (${lastLine(add)}) — the hooks are installed; run \`codex mcp add funes -- ${[...o.funes, "mcp"].join(" ")}\` yourself to see why`,
    );
  // Codex hands MCP servers only a few variables: name the ones funes reads (HF_TOKEN, HF_ENDPOINT, …).
  writeIfChanged(configPath, withCodexEnvVars(readTextOrNull(configPath) ?? "", "funes"));
  report.push(
    "registered funes recall with Codex — `recall` and `get` are available (restart Codex if it's running)",
  );
  return report;
}

/** Unregisters the MCP server, removes funes's hooks, their trust entries and scripts. */
export async function removeCodex(o: RemoveOptions): Promise<SetupReport> {
  const dir = codexHome(o);
  const report: SetupReport = [];
  const mcp = await runCli("codex", ["mcp", "remove", "funes"], o);
  const hooksPath = join(dir, "hooks.json");
  const current = readHooks(hooksPath);
  const positions = funesPositions(current);
  if (positions.length > 0) {
    const configPath = join(dir, "config.toml");
    const config = readTextOrNull(configPath);
    if (config !== null) {
      const keys = new Set(trustEntries(hooksPath, positions).map((e) => e.key));
      writeIfChanged(configPath, editTrust(config, keys, []));
    }
    const stripped = stripFunesHooks(current);
    restoreOriginal(
      hooksPath,
      originalRecord(o.home),
      (before) => canonicalJson(parseHooksFile(before)) === canonicalJson(stripped),
      formatHooksFile(stripped),
    );
    report.push(`removed funes's hooks from ${hooksPath} and their trust entries`);
  }
  removeHookFolder(join(dir, "hooks"), report);
  if (mcp.kind === "missing")
    throw cliMissingOnRemove(report, "codex", "MCP registration", "codex mcp remove funes");
  if (mcp.code !== 0) throw new AgentSetupError(`\`codex mcp remove funes\` failed (${lastLine(mcp)})`);
  report.push("removed funes from Codex — recall registration and hooks");
  return report;
}
