/**
 * OpenCode: the MCP server in its global config (`~/.config/opencode/opencode.json`, `$XDG_CONFIG_HOME`
 * moves it) as `mcp.funes` (OpenCode runs MCP tools headless without asking, and hands a local server its
 * whole environment, so nothing else is needed), and a plugin (`plugins/funes.js` beside it) that runs the
 * index hook script, naming the agent, when a session goes idle: OpenCode has no shell hooks, and
 * `session.idle` is its end of a turn. With a memory bound, the index script publishes after its last pass
 * (OpenCode has no session-end event). The scripts and their log live in `~/.funes/integrations/opencode`.
 * `remove` restores the config's exact bytes when nothing else in it changed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { INDEX_SCRIPT } from "../hook-scripts.js";
import { installJsonWiring, jsonEntryNames, jsonWiring, removeJsonWiring } from "../json-config.js";
import {
  envDir,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";
import { shippedModule } from "../shipped.js";

/** OpenCode's global config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function openCodeConfigDir(o: { home: string; env: Record<string, string | undefined> }): string {
  return join(envDir(o.env.XDG_CONFIG_HOME, join(o.home, ".config")), "opencode");
}

/** Where funes keeps the hook scripts OpenCode's plugin runs, and their log. */
export function openCodeScriptsDir(home: string): string {
  return join(integrationsRoot(home), "opencode");
}

/**
 * OpenCode's global config file: `opencode.json`, or `opencode.jsonc` when only that one is there (OpenCode
 * reads both, and writes a `.jsonc` of its own when it starts with neither).
 */
function configFile(dir: string): string {
  const json = join(dir, "opencode.json");
  const jsonc = join(dir, "opencode.jsonc");
  return !existsSync(json) && existsSync(jsonc) ? jsonc : json;
}

const paths = (o: { home: string; env: Record<string, string | undefined> }) => {
  const dir = openCodeConfigDir(o);
  return {
    entry: {
      path: configFile(dir),
      container: "mcp",
      name: "funes",
      record: join(integrationsRoot(o.home), "opencode-config.orig.json"),
    },
    hookFile: join(dir, "plugins", "funes.js"),
    scripts: openCodeScriptsDir(o.home),
  };
};

/** The plugin OpenCode loads (agents/opencode/plugin.ts as built): on `session.idle`, the index script. */
export function openCodePlugin(script: string, memory: string | null): string {
  return shippedModule("agents/opencode/plugin.js", {
    SCRIPT: script,
    ARGS: ["opencode", ...(memory === null ? [] : [memory])],
  });
}

/** Adds the MCP server and the plugin, and writes the hook scripts. */
export async function installOpenCode(o: InstallOptions): Promise<SetupReport> {
  await requireCli("opencode", "OpenCode", o);
  const p = paths(o);
  return installJsonWiring(o, p, {
    entry: {
      type: "local",
      command: [...o.funes, "mcp", ...(o.memory === null ? [] : [o.memory])],
      enabled: true,
    },
    hookText: openCodePlugin(join(p.scripts, INDEX_SCRIPT), o.memory),
    agent: "OpenCode",
    tools: "`funes_recall` and `funes_get`",
    hook: "plugin",
  });
}

/** Takes the MCP server and the plugin out, and deletes the scripts. */
export async function removeOpenCode(o: RemoveOptions): Promise<SetupReport> {
  const report = removeJsonWiring(o.home, paths(o));
  report.push("removed funes from OpenCode — recall registration and plugin");
  return report;
}

/** Whether funes is wired into OpenCode, and the funes command its MCP entry and scripts name. */
export function openCodeWiring(o: { home: string; env: Record<string, string | undefined> }) {
  return jsonWiring(paths(o), (entry) => (Array.isArray(entry.command) ? entry.command.map(String) : null));
}

/** The MCP servers in OpenCode's global `opencode.json` (`funes ask` switches each off). */
export function openCodeMcpServers(o: { home: string; env: Record<string, string | undefined> }): string[] {
  const { entry } = paths(o);
  return jsonEntryNames(entry.path, entry.container);
}
