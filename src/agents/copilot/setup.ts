/**
 * GitHub Copilot CLI (`~/.copilot`, moved by `$COPILOT_HOME`): the MCP server as `mcpServers.funes` in
 * `mcp-config.json` (Copilot runs a tool annotated `readOnlyHint` headless without asking, which funes's
 * tools are, and hands a local server its whole environment), and a hooks file of funes's own,
 * `hooks/funes.json`, whose `agentStop` hook (once per turn, also in `copilot -p`) runs the index hook script
 * naming the agent; with a memory bound the script publishes after its last pass. The scripts and their log
 * live in `~/.funes/integrations/copilot`. `remove` restores `mcp-config.json`'s exact bytes when nothing
 * else in it changed, and deletes funes's hooks file.
 */
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import { hookCommand, INDEX_SCRIPT } from "../hook-scripts.js";
import { installJsonWiring, jsonEntryNames, jsonWiring, removeJsonWiring } from "../json-config.js";
import {
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";

/** Copilot CLI's folder: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(o: { home: string; env: Record<string, string | undefined> }): string {
  return agentFolder("copilot", o.home, o.env);
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
    hookFile: join(dir, "hooks", "funes.json"),
    scripts: copilotScriptsDir(o.home),
  };
};

/** Adds the MCP server and the hooks file, and writes the hook scripts. */
export async function installCopilot(o: InstallOptions): Promise<SetupReport> {
  await requireCli("copilot", "GitHub Copilot CLI", o);
  const p = paths(o);
  const [command = "funes", ...args] = o.funes;
  const memory = o.memory === null ? [] : [o.memory];
  const bash = hookCommand(join(p.scripts, INDEX_SCRIPT), "copilot", ...memory);
  const hooks = { version: 1, hooks: { agentStop: [{ type: "command", bash, timeoutSec: 30 }] } };
  return installJsonWiring(o, p, {
    entry: { type: "local", command, args: [...args, "mcp", ...memory], tools: ["*"] },
    hookText: `${JSON.stringify(hooks, null, 2)}\n`,
    agent: "Copilot CLI",
    tools: "`recall` and `get`",
    hook: "hook",
  });
}

/** Takes the MCP server and the hooks file out, and deletes the scripts. */
export async function removeCopilot(o: RemoveOptions): Promise<SetupReport> {
  const report = removeJsonWiring(o.home, paths(o));
  report.push("removed funes from Copilot CLI — recall registration and hook");
  return report;
}

/** Whether funes is wired into Copilot, and the funes command its MCP entry and scripts name. */
export function copilotWiring(o: { home: string; env: Record<string, string | undefined> }) {
  return jsonWiring(paths(o), (entry) =>
    typeof entry.command === "string"
      ? [entry.command, ...(Array.isArray(entry.args) ? entry.args.map(String) : [])]
      : null,
  );
}

/** The MCP servers in Copilot's `mcp-config.json` (`funes ask` switches each off). */
export function copilotMcpServers(o: { home: string; env: Record<string, string | undefined> }): string[] {
  const { entry } = paths(o);
  return jsonEntryNames(entry.path, entry.container);
}
