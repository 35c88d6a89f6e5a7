/**
 * Qwen Code (a fork of Gemini CLI): funes's MCP server in `~/.qwen/settings.json` marked `trust: true`, its
 * read-only tools in `tools.visible`, and hooks in Claude Code's shape there (Stop → index, and with
 * a memory publish right after; SessionStart → publish what is left), the scripts in `~/.qwen/hooks/`.
 * `QWEN_HOME` moves `~/.qwen`. Headless, Qwen hides MCP tools behind `tool_search` until they are listed in
 * `tools.visible`, and declines a call it would have to ask about unless the server is trusted. Its
 * SessionEnd never fired in a headless run, so the Stop hook publishes, as Codex's does. Qwen hands MCP
 * servers its whole environment (less its own internal tokens), so funes reads `HF_TOKEN` and the rest.
 */
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import { removeHookFolder, writeHookScripts } from "../hook-scripts.js";
import { stopHookSpecs } from "../json-hooks.js";
import { funesServer, installSettings, removeSettings, type SettingsPlan } from "../settings-json.js";
import {
  type InstallOptions,
  integrationsRoot,
  pruneIntegrations,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";

/** Qwen Code's folder: `$QWEN_HOME`, else `~/.qwen`. */
export function qwenDir(o: { home: string; env: Record<string, string | undefined> }): string {
  return agentFolder("qwen", o.home, o.env);
}

/** funes's read-only tools as Qwen names them. */
const TOOLS = [
  "mcp__funes__recall",
  "mcp__funes__get",
  "mcp__funes__sessions",
  "mcp__funes__scan",
  "mcp__funes__status",
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** `tools.visible` with funes's tools added (after the user's), or taken out (the containers once empty). */
const visibleTools = {
  add(root: Json): Json {
    const tools = isObject(root.tools) ? root.tools : {};
    const visible = Array.isArray(tools.visible) ? tools.visible : [];
    return {
      ...root,
      tools: { ...tools, visible: [...visible, ...TOOLS.filter((t) => !visible.includes(t))] },
    };
  },
  strip(root: Json): Json {
    if (!isObject(root.tools) || !Array.isArray(root.tools.visible)) return root;
    const { visible, ...rest } = root.tools;
    const kept = (visible as unknown[]).filter((t) => !TOOLS.includes(t as string));
    const tools = kept.length > 0 ? { ...rest, visible: kept } : rest;
    if (Object.keys(tools).length > 0) return { ...root, tools };
    const { tools: _empty, ...out } = root;
    return out;
  },
};

function plan(
  o: { home: string; env: Record<string, string | undefined> },
  memory: string | null,
  funes: readonly string[],
): SettingsPlan {
  const dir = qwenDir(o);
  return {
    path: join(dir, "settings.json"),
    record: join(integrationsRoot(o.home), "qwen-settings.orig.json"),
    server: { ...funesServer(funes, memory), trust: true },
    // The hooks name their agent: Qwen also exports CLAUDE_PROJECT_DIR to them.
    hooks: stopHookSpecs(join(dir, "hooks"), "qwen", memory),
    handler: (s) => ({
      type: "command",
      command: s.command,
      timeout: s.timeout,
      statusMessage: s.statusMessage,
    }),
    extra: visibleTools,
  };
}

/** Installs the MCP server (trusted, its tools visible) and the hooks. */
export async function installQwen(o: InstallOptions): Promise<SetupReport> {
  await requireCli("qwen", "Qwen Code (npm i -g @qwen-code/qwen-code)", o);
  const dir = qwenDir(o);
  const p = plan(o, o.memory, o.funes);
  installSettings(p);
  writeHookScripts(join(dir, "hooks"), o.funes);
  return [
    `installed funes's MCP server and hooks into ${p.path} (${p.hooks.map((h) => h.event).join(", ")}) — indexes each turn${o.memory === null ? "" : ` and publishes it to ${o.memory} right after`}`,
    "trusted funes's MCP server and made recall, get and status visible in Qwen Code — they run without asking, headless too",
  ];
}

/** Takes out the MCP server, its tools, the hooks and their scripts. */
export async function removeQwen(o: RemoveOptions): Promise<SetupReport> {
  const dir = qwenDir(o);
  const p = plan(o, null, []);
  const report: SetupReport = [];
  removeHookFolder(join(dir, "hooks"), report);
  // The settings last: a folder funes created for them goes with them once nothing else is in it.
  if (removeSettings(p)) report.unshift(`removed funes's MCP server, tools and hooks from ${p.path}`);
  pruneIntegrations(o.home);
  report.push("removed funes from Qwen Code — recall tools and hooks");
  return report;
}
