/**
 * OpenCode: the MCP server in its global config (`~/.config/opencode/opencode.json`, `$XDG_CONFIG_HOME`
 * moves it) as `mcp.funes` (OpenCode runs MCP tools headless without asking, and hands a local server its
 * whole environment, so nothing else is needed), and a plugin (`plugins/funes.js` beside it) that runs the
 * index hook script, naming the agent, when a session goes idle: OpenCode has no shell hooks, and
 * `session.idle` is its end of a turn. With a memory bound, the index script publishes after its last pass
 * (OpenCode has no session-end event). The scripts and their log live in `~/.funes/integrations/opencode`.
 * `remove` restores the config's exact bytes when nothing else in it changed.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "./codex-trust.js";
import { readTextOrNull, rememberOriginal, restoreOriginal, writeIfChanged } from "./files.js";
import { INDEX_SCRIPT, removeHookScripts, writeHookScripts } from "./hook-scripts.js";
import { runCli } from "./run-cli.js";
import {
  AgentSetupError,
  type InstallOptions,
  integrationsRoot,
  pruneIntegrations,
  type RemoveOptions,
  type SetupReport,
} from "./setup.js";

type Json = Record<string, unknown>;

/** OpenCode's global config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function openCodeConfigDir(o: { home: string; env: Record<string, string | undefined> }): string {
  const xdg = o.env.XDG_CONFIG_HOME;
  return join(xdg !== undefined && xdg.trim() !== "" ? xdg : join(o.home, ".config"), "opencode");
}

/** Where funes keeps the hook scripts OpenCode's plugin runs, and their log. */
export function openCodeScriptsDir(home: string): string {
  return join(integrationsRoot(home), "opencode");
}

const paths = (o: { home: string; env: Record<string, string | undefined> }) => {
  const dir = openCodeConfigDir(o);
  return {
    config: join(dir, "opencode.json"),
    plugins: join(dir, "plugins"),
    plugin: join(dir, "plugins", "funes.js"),
    record: join(integrationsRoot(o.home), "opencode-config.orig.json"),
  };
};

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function loadConfig(path: string): Json {
  const text = readTextOrNull(path);
  if (text === null || text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new AgentSetupError(
      `${path} isn't plain JSON (comments?) — funes edits only plain JSON; add the funes MCP entry by hand or remove the comments, then run this again`,
    );
  }
  if (!isObject(v)) throw new AgentSetupError(`${path} isn't a JSON object — fix it, then run this again`);
  if (v.mcp !== undefined && !isObject(v.mcp))
    throw new AgentSetupError(`${path}: "mcp" isn't an object — fix it, then run this again`);
  return v;
}

function withoutFunes(config: Json): Json {
  if (!isObject(config.mcp) || !("funes" in config.mcp)) return config;
  const { funes: _dropped, ...others } = config.mcp;
  if (Object.keys(others).length > 0) return { ...config, mcp: others };
  const { mcp: _empty, ...rest } = config;
  return rest;
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** The plugin OpenCode loads: on `session.idle`, the index script, detached (it returns at once anyway). */
export function openCodePlugin(script: string, memory: string | null): string {
  const args = ["opencode", ...(memory === null ? [] : [memory])];
  return `// funes: indexes each finished OpenCode turn into the funes memory${memory === null ? "" : ` and publishes it to ${memory}`}.
// Written by \`funes add opencode\`; \`funes remove opencode\` deletes it.
import { spawn } from "node:child_process";

const SCRIPT = ${JSON.stringify(script)};
const ARGS = ${JSON.stringify(args)};

export const FunesPlugin = async () => ({
  event: async ({ event }) => {
    if (event?.type !== "session.idle") return;
    try {
      const child = spawn("bash", [SCRIPT, ...ARGS], { detached: true, stdio: "ignore" });
      child.on("error", () => {});
      child.unref();
    } catch {}
  },
});
`;
}

/** Adds the MCP server and the plugin, and writes the hook scripts. */
export async function installOpenCode(o: InstallOptions): Promise<SetupReport> {
  if ((await runCli("opencode", ["--version"], o)).kind === "missing")
    throw new AgentSetupError(
      "`opencode` isn't on PATH — install OpenCode, then run `funes add opencode` again",
    );
  const p = paths(o);
  const config = loadConfig(p.config);
  rememberOriginal(p.record, readTextOrNull(p.config));
  const scripts = openCodeScriptsDir(o.home);
  writeHookScripts(scripts, o.funes);
  const base = withoutFunes(config);
  const mcp = isObject(base.mcp) ? base.mcp : {};
  const entry = {
    type: "local",
    command: [...o.funes, "mcp", ...(o.memory === null ? [] : [o.memory])],
    enabled: true,
  };
  writeIfChanged(p.config, json({ ...base, mcp: { ...mcp, funes: entry } }));
  writeIfChanged(p.plugin, openCodePlugin(join(scripts, INDEX_SCRIPT), o.memory));
  return [
    `registered funes recall with OpenCode in ${p.config} — \`funes_recall\` and \`funes_get\` are available`,
    `installed the funes plugin (${p.plugin}): each finished turn is indexed${o.memory === null ? "" : ` and published to ${o.memory}`}`,
  ];
}

/** Takes the MCP server and the plugin out, and deletes the scripts. */
export async function removeOpenCode(o: RemoveOptions): Promise<SetupReport> {
  const p = paths(o);
  const report: SetupReport = [];
  if (existsSync(p.config)) {
    const stripped = withoutFunes(loadConfig(p.config));
    restoreOriginal(
      p.config,
      p.record,
      (before) =>
        canonicalJson(before === null || before.trim() === "" ? {} : JSON.parse(before)) ===
        canonicalJson(stripped),
      json(stripped),
    );
    report.push(`removed funes from ${p.config}`);
  }
  rmSync(p.record, { force: true });
  if (existsSync(p.plugin)) {
    rmSync(p.plugin, { force: true });
    report.push(`removed the funes plugin (${p.plugin})`);
  }
  if (existsSync(p.plugins) && readdirSync(p.plugins).length === 0) rmSync(p.plugins, { recursive: true });
  const scripts = openCodeScriptsDir(o.home);
  if (removeHookScripts(scripts)) report.push(`removed the hook scripts from ${scripts}`);
  if (existsSync(scripts) && readdirSync(scripts).length === 0) rmSync(scripts, { recursive: true });
  pruneIntegrations(o.home);
  report.push("removed funes from OpenCode — recall registration and plugin");
  return report;
}

/** Whether funes is wired into OpenCode, and the funes command its MCP entry and scripts name. */
export function openCodeWiring(o: { home: string; env: Record<string, string | undefined> }): {
  installed: boolean;
  mcp: string[] | null;
  script: string;
  plugin: boolean;
} {
  const p = paths(o);
  let mcp: string[] | null = null;
  try {
    const entry = (loadConfig(p.config).mcp as Json | undefined)?.funes;
    if (isObject(entry) && Array.isArray(entry.command)) mcp = entry.command.map(String);
  } catch {}
  const script = join(openCodeScriptsDir(o.home), INDEX_SCRIPT);
  const plugin = existsSync(p.plugin);
  return { installed: mcp !== null || plugin || existsSync(script), mcp, script, plugin };
}
