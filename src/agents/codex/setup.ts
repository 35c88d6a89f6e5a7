/**
 * Codex: hook groups merged into `$CODEX_HOME/hooks.json` (Stop → index, then publish when a memory is
 * bound; SessionStart → push), the scripts in `$CODEX_HOME/hooks/`, trust entries for exactly those hooks in `config.toml`
 * (Codex runs no untrusted hook, and says nothing about it in `codex exec`), and `codex mcp add funes` with
 * the variables funes reads named in its `env_vars` (Codex passes MCP servers only HOME, PATH, LANG…).
 * Every file is edited in place (the rest of its bytes kept), and a second `add` changes nothing; `remove`
 * restores hooks.json and config.toml byte for byte when nothing changed them since funes's last edit.
 */
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import {
  canonicalJson,
  editKept,
  type KeptFile,
  keepAfter,
  keepBefore,
  readTextOrNull,
  removeKept,
  restoreKept,
  untouchedSince,
  writeIfChanged,
} from "../files.js";
import { removeHookFolder, writeHookScripts } from "../hook-scripts.js";
import {
  funesPositions,
  type HookSpec,
  mergeFunesHooks,
  parseHooksFile,
  stopHookSpecs,
  stripFunesHooks,
} from "../json-hooks.js";
import { editJsonText, jsonTextIsEmpty } from "../json-text.js";
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
import { codexMcpEntry, withoutTomlTable } from "./config-toml.js";
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

/** config.toml, kept to be put back byte for byte: Codex's own `mcp add`/`mcp remove` rewrite it. */
function configFile(home: string, path: string): KeptFile {
  return { path, record: join(integrationsRoot(home), "codex-config.orig.json") };
}

/** config.toml's text without funes's trust tables (`keys`) and its MCP table. */
const stripConfig = (keys: Set<string>) => (text: string) =>
  withoutTomlTable(editTrust(text, keys, []), "mcp_servers.funes");

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
  const current = readHooks(hooksPath);
  const foreign = Object.keys(current).filter((k) => !CODEX_KEYS.has(k));
  if (foreign.length > 0)
    throw new AgentSetupError(
      `${hooksPath} has top-level key(s) ${foreign.map((k) => `"${k}"`).join(", ")} that Codex rejects (it then skips the whole file, so no hook in it runs) — remove them, then run \`funes add codex\` again`,
    );
  const configPath = join(dir, "config.toml");
  const config = configFile(o.home, configPath);
  const oldKeys = new Set(trustEntries(hooksPath, funesPositions(current)).map((e) => e.key));
  keepBefore(config, stripConfig(oldKeys));
  writeHookScripts(join(dir, "hooks"), o.funes);
  editKept(
    { path: hooksPath, record: originalRecord(o.home) },
    {
      strip: (t) => editJsonText(t, stripFunesHooks),
      edit: (t) => editJsonText(t, (root) => mergeFunesHooks(root, hookSpecs(dir, o.memory))),
    },
  );
  const next = readHooks(hooksPath);
  writeIfChanged(
    configPath,
    editTrust(readTextOrNull(configPath), oldKeys, trustEntries(hooksPath, funesPositions(next))),
  );
  const events = hookSpecs(dir, o.memory).map((s) => s.event);
  const report: SetupReport = [
    `installed funes hooks into ${hooksPath} (${events.join(", ")}) and trusted them in ${configPath} — indexes each turn${o.memory === null ? "" : ` and publishes it to ${o.memory} right after`}`,
  ];
  const mcpArgs = [...o.funes.slice(1), "mcp", ...(o.memory === null ? [] : [o.memory])];
  // `codex mcp add` rewrites the table (and moves it to the end) even when it holds the same: run it only
  // when the registration differs.
  const entry = codexMcpEntry(readTextOrNull(configPath) ?? "", "funes");
  if (entry?.command !== o.funes[0] || canonicalJson(entry?.args) !== canonicalJson(mcpArgs)) {
    const add = await codex(["mcp", "add", "funes", "--", o.funes[0] as string, ...mcpArgs]);
    if (add.kind !== "ran" || add.code !== 0)
      throw new AgentSetupError(
        `\`codex mcp add funes\` failed (${lastLine(add)}) — the hooks are installed; run \`codex mcp add funes -- ${[...o.funes, "mcp"].join(" ")}\` yourself to see why`,
      );
  }
  // Codex hands MCP servers only a few variables: name the ones funes reads (HF_TOKEN, HF_ENDPOINT, …).
  writeIfChanged(configPath, withCodexEnvVars(readTextOrNull(configPath) ?? "", "funes"));
  keepAfter(config);
  report.push(
    "registered funes recall with Codex — `recall` and `get` are available (restart Codex if it's running)",
  );
  return report;
}

/** Unregisters the MCP server, removes funes's hooks, their trust entries and scripts. */
export async function removeCodex(o: RemoveOptions): Promise<SetupReport> {
  const dir = codexHome(o);
  const report: SetupReport = [];
  const configPath = join(dir, "config.toml");
  const config = configFile(o.home, configPath);
  // Asked before Codex's own command rewrites the file.
  const untouched = untouchedSince(config);
  const mcp = await runCli("codex", ["mcp", "remove", "funes"], o);
  const hooksPath = join(dir, "hooks.json");
  const current = readHooks(hooksPath);
  const positions = funesPositions(current);
  const keys = new Set(trustEntries(hooksPath, positions).map((e) => e.key));
  const text = readTextOrNull(configPath);
  if (mcp.kind === "ran" && mcp.code === 0)
    restoreKept(config, { untouched, strip: stripConfig(keys), empty: (t) => t.trim() === "" });
  else if (text !== null && keys.size > 0) writeIfChanged(configPath, editTrust(text, keys, []));
  if (positions.length > 0) {
    removeKept(
      { path: hooksPath, record: originalRecord(o.home) },
      { strip: (t) => editJsonText(t, stripFunesHooks), empty: jsonTextIsEmpty },
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
