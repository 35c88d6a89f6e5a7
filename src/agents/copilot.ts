/**
 * GitHub Copilot CLI (`~/.copilot`, moved by `$COPILOT_HOME`): the MCP server as `mcpServers.funes` in
 * `mcp-config.json` (Copilot runs a tool annotated `readOnlyHint` headless without asking, which funes's
 * tools are, and hands a local server its whole environment), and a hooks file of funes's own,
 * `hooks/funes.json`, whose `agentStop` hook (once per turn, also in `copilot -p`) runs the index hook script
 * naming the agent; with a memory bound the script publishes after its last pass. The scripts and their log
 * live in `~/.funes/integrations/copilot`. `remove` restores `mcp-config.json`'s exact bytes when nothing
 * else in it changed, and deletes funes's hooks file.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeIfChanged } from "./files.js";
import { hookCommand, INDEX_SCRIPT, removeHookScripts, writeHookScripts } from "./hook-scripts.js";
import { loadJsonConfig, readJsonEntry, removeJsonEntry, setJsonEntry } from "./json-config.js";
import { runCli } from "./run-cli.js";
import {
  AgentSetupError,
  type InstallOptions,
  integrationsRoot,
  pruneIntegrations,
  type RemoveOptions,
  type SetupReport,
} from "./setup.js";

/** Copilot CLI's folder: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(o: { home: string; env: Record<string, string | undefined> }): string {
  const set = o.env.COPILOT_HOME;
  return set !== undefined && set.trim() !== "" ? set : join(o.home, ".copilot");
}

/** Where funes keeps the hook scripts Copilot runs, and their log. */
export function copilotScriptsDir(home: string): string {
  return join(integrationsRoot(home), "copilot");
}

const paths = (o: { home: string; env: Record<string, string | undefined> }) => {
  const dir = copilotHome(o);
  return {
    entry: {
      path: join(dir, "mcp-config.json"),
      container: "mcpServers",
      name: "funes",
      record: join(integrationsRoot(o.home), "copilot-mcp-config.orig.json"),
    },
    hooks: join(dir, "hooks"),
    hooksFile: join(dir, "hooks", "funes.json"),
  };
};

/** Adds the MCP server and the hooks file, and writes the hook scripts. */
export async function installCopilot(o: InstallOptions): Promise<SetupReport> {
  if ((await runCli("copilot", ["--version"], o)).kind === "missing")
    throw new AgentSetupError(
      "`copilot` isn't on PATH — install GitHub Copilot CLI, then run `funes add copilot` again",
    );
  const p = paths(o);
  loadJsonConfig(p.entry.path, p.entry.container);
  const scripts = copilotScriptsDir(o.home);
  writeHookScripts(scripts, o.funes);
  const [command = "funes", ...args] = o.funes;
  setJsonEntry(p.entry, {
    type: "local",
    command,
    args: [...args, "mcp", ...(o.memory === null ? [] : [o.memory])],
    tools: ["*"],
  });
  const bash = hookCommand(join(scripts, INDEX_SCRIPT), "copilot", ...(o.memory === null ? [] : [o.memory]));
  const hooks = { version: 1, hooks: { agentStop: [{ type: "command", bash, timeoutSec: 30 }] } };
  writeIfChanged(p.hooksFile, `${JSON.stringify(hooks, null, 2)}\n`);
  return [
    `registered funes recall with Copilot CLI in ${p.entry.path} — \`recall\` and \`get\` are available`,
    `installed the funes hook (${p.hooksFile}): each finished turn is indexed${o.memory === null ? "" : ` and published to ${o.memory}`}`,
  ];
}

/** Takes the MCP server and the hooks file out, and deletes the scripts. */
export async function removeCopilot(o: RemoveOptions): Promise<SetupReport> {
  const p = paths(o);
  const report: SetupReport = [];
  if (removeJsonEntry(p.entry)) report.push(`removed funes from ${p.entry.path}`);
  if (existsSync(p.hooksFile)) {
    rmSync(p.hooksFile, { force: true });
    report.push(`removed the funes hook (${p.hooksFile})`);
  }
  if (existsSync(p.hooks) && readdirSync(p.hooks).length === 0) rmSync(p.hooks, { recursive: true });
  const scripts = copilotScriptsDir(o.home);
  if (removeHookScripts(scripts)) report.push(`removed the hook scripts from ${scripts}`);
  if (existsSync(scripts) && readdirSync(scripts).length === 0) rmSync(scripts, { recursive: true });
  pruneIntegrations(o.home);
  report.push("removed funes from Copilot CLI — recall registration and hook");
  return report;
}

/** Whether funes is wired into Copilot, and the funes command its MCP entry and scripts name. */
export function copilotWiring(o: { home: string; env: Record<string, string | undefined> }): {
  installed: boolean;
  mcp: string[] | null;
  script: string;
  hook: boolean;
} {
  const p = paths(o);
  const entry = readJsonEntry(p.entry);
  const mcp =
    typeof entry?.command === "string"
      ? [entry.command, ...(Array.isArray(entry.args) ? entry.args.map(String) : [])]
      : null;
  const script = join(copilotScriptsDir(o.home), INDEX_SCRIPT);
  const hook = existsSync(p.hooksFile);
  return { installed: mcp !== null || hook || existsSync(script), mcp, script, hook };
}
