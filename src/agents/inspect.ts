/**
 * Is funes still wired into each agent, and would the wiring run? Reads what `funes add` left (hook scripts,
 * the pi extension, Claude's and Codex's MCP entries) and checks that the funes command each one names
 * still exists: a moved checkout or an uninstalled funes leaves entries pointing at nothing, which agents
 * report silently or not at all. Reads files only; never runs an agent.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { claudePluginRoot } from "./claude.js";
import { claudeSettingsPath, claudeStatePath } from "./claude-permissions.js";
import { codexHome } from "./codex.js";
import { copilotWiring } from "./copilot.js";
import { geminiDir } from "./gemini.js";
import { hermesHome } from "./hermes.js";
import { INDEX_SCRIPT } from "./hook-scripts.js";
import { openCodeWiring } from "./opencode.js";
import { piExtensionDir } from "./pi.js";
import { qwenDir } from "./qwen.js";
import type { AgentName } from "./registry.js";

/** What was found for one agent. */
export interface AgentWiring {
  agent: AgentName;
  /** Whether funes left anything in this agent. */
  installed: boolean;
  /** Problems, each a sentence; empty when the wiring would run. */
  problems: string[];
}

/** Whether `cmd` (an absolute path, or a name looked up on PATH) is an executable that exists. */
function runnable(cmd: string, path: string | undefined): boolean {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(cmd)) return ok(cmd);
  return (path ?? "").split(delimiter).some((d) => d !== "" && ok(join(d, cmd)));
}

/** The FUNES=(…) words of a hook script funes wrote, or null. */
function scriptCommand(script: string): string[] | null {
  if (!existsSync(script)) return null;
  const m = /^FUNES=\((.*)\)$/m.exec(readFileSync(script, "utf8"));
  if (m === null) return null;
  return [...(m[1] ?? "").matchAll(/'((?:[^']|'\\'')*)'/g)].map((x) => (x[1] ?? "").replaceAll("'\\''", "'"));
}

/** Checks the funes command a piece of wiring names: its program, and (run by Node) its script. */
function checkCommand(
  where: string,
  argv: string[] | null,
  path: string | undefined,
  problems: string[],
): void {
  if (argv === null || argv.length === 0) return;
  const [bin = "", script] = argv;
  if (!runnable(bin, path)) problems.push(`${where} runs "${bin}", which no longer exists`);
  else if (script !== undefined && /\.m?js$/.test(script) && !existsSync(script))
    problems.push(`${where} runs ${script}, which no longer exists (moved or removed?)`);
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function claude(home: string, env: Record<string, string | undefined>): AgentWiring {
  const path = env.PATH;
  const problems: string[] = [];
  const root = claudePluginRoot(home);
  const servers = (readJson(claudeStatePath({ home, env }))?.mcpServers ?? {}) as Record<
    string,
    { command?: string; args?: string[] }
  >;
  const mcp = servers.funes;
  const installed = existsSync(root) || mcp !== undefined;
  if (!installed) return { agent: "claude", installed, problems };
  if (mcp === undefined) problems.push("the funes MCP server is not registered with Claude Code");
  else checkCommand("Claude's funes MCP entry", [mcp.command ?? "", ...(mcp.args ?? [])], path, problems);
  const script = join(root, "funes", "scripts", INDEX_SCRIPT);
  if (!existsSync(script)) problems.push(`the hooks plugin is missing (${script})`);
  else {
    checkCommand("the Claude hooks plugin", scriptCommand(script), path, problems);
    // Claude records `claude plugin disable` as false here; a plugin it never installed is absent.
    const enabled = (readJson(claudeSettingsPath({ home, env }))?.enabledPlugins ?? {}) as Record<
      string,
      unknown
    >;
    if (enabled["funes@huggingface"] === false)
      problems.push(
        "the funes hooks plugin is disabled in Claude Code (`claude plugin enable funes@huggingface`)",
      );
    else if (enabled["funes@huggingface"] !== true)
      problems.push("the funes hooks plugin is not installed in Claude Code, so its hooks do not run");
  }
  return { agent: "claude", installed, problems };
}

function codex(home: string, env: Record<string, string | undefined>): AgentWiring {
  const problems: string[] = [];
  const dir = codexHome({ home, env });
  const script = join(dir, "hooks", INDEX_SCRIPT);
  const config = existsSync(join(dir, "config.toml")) ? readFileSync(join(dir, "config.toml"), "utf8") : "";
  const section = /^\[mcp_servers\.funes\]\n([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(config)?.[1] ?? null;
  const installed = existsSync(script) || section !== null;
  if (!installed) return { agent: "codex", installed, problems };
  if (section === null) problems.push("the funes MCP server is not registered with Codex");
  else {
    const command = /^command = "((?:[^"\\]|\\.)*)"/m.exec(section)?.[1];
    const args = [...(/^args = \[(.*)\]/m.exec(section)?.[1] ?? "").matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(
      (x) => x[1] ?? "",
    );
    checkCommand(
      "Codex's funes MCP entry",
      command === undefined ? null : [command, ...args],
      env.PATH,
      problems,
    );
  }
  if (!existsSync(script)) problems.push(`the index hook script is missing (${script})`);
  else {
    checkCommand("the Codex hooks", scriptCommand(script), env.PATH, problems);
    if (!config.includes(`[hooks.state."${join(dir, "hooks.json")}:stop:`))
      problems.push("the funes hooks are not trusted, so Codex skips them");
  }
  return { agent: "codex", installed, problems };
}

function hermes(home: string, env: Record<string, string | undefined>): AgentWiring {
  const path = env.PATH;
  const problems: string[] = [];
  const script = join(hermesHome({ home, env }), "hooks", INDEX_SCRIPT);
  const installed = existsSync(script);
  if (installed) {
    checkCommand("the Hermes hooks", scriptCommand(script), path, problems);
    const allow = join(hermesHome({ home, env }), "shell-hooks-allowlist.json");
    if (!existsSync(allow) || !readFileSync(allow, "utf8").includes(INDEX_SCRIPT))
      problems.push("the funes hooks are not in Hermes's shell-hooks allowlist, so Hermes skips them");
  }
  return { agent: "hermes", installed, problems };
}

function pi(home: string, path: string | undefined): AgentWiring {
  const problems: string[] = [];
  const ext = join(piExtensionDir(home), "index.ts");
  const installed = existsSync(ext);
  if (installed) {
    const m = /^const FUNES: string\[\] = (\[.*\]);$/m.exec(readFileSync(ext, "utf8"));
    checkCommand(
      "the pi extension",
      m === null ? null : (JSON.parse(m[1] ?? "[]") as string[]),
      path,
      problems,
    );
  }
  return { agent: "pi", installed, problems };
}

/**
 * Gemini CLI and Qwen Code: the hook scripts in their folder, and the MCP entry in its settings.json (the
 * command each runs); `more` adds the agent's own checks once something is installed.
 */
function settingsAgent(
  agent: "gemini" | "qwen",
  dir: string,
  env: Record<string, string | undefined>,
  more: (problems: string[]) => void,
): AgentWiring {
  const problems: string[] = [];
  const name = agent === "gemini" ? "Gemini CLI" : "Qwen Code";
  const script = join(dir, "hooks", INDEX_SCRIPT);
  const servers = (readJson(join(dir, "settings.json"))?.mcpServers ?? {}) as Record<
    string,
    { command?: string; args?: string[] }
  >;
  const mcp = servers.funes;
  const installed = existsSync(script) || mcp !== undefined;
  if (!installed) return { agent, installed, problems };
  if (mcp === undefined) problems.push(`the funes MCP server is not in ${name}'s settings.json`);
  else
    checkCommand(`${name}'s funes MCP entry`, [mcp.command ?? "", ...(mcp.args ?? [])], env.PATH, problems);
  if (!existsSync(script)) problems.push(`the index hook script is missing (${script})`);
  else checkCommand(`the ${name} hooks`, scriptCommand(script), env.PATH, problems);
  more(problems);
  return { agent, installed, problems };
}

/** An agent wired by a JSON entry and a hook file of funes's own (OpenCode, Copilot CLI). */
function jsonAgent(
  agent: "opencode" | "copilot",
  w: ReturnType<typeof openCodeWiring>,
  names: { agent: string; config: string; hook: string },
  path: string | undefined,
): AgentWiring {
  const problems: string[] = [];
  if (!w.installed) return { agent, installed: false, problems };
  if (w.mcp === null) problems.push(`the funes MCP server is not in ${names.agent}'s ${names.config}`);
  else checkCommand(`${names.agent}'s funes MCP entry`, w.mcp, path, problems);
  if (!w.hook) problems.push(`${names.agent}'s ${names.hook} is missing, so no turn is indexed`);
  if (!existsSync(w.script)) problems.push(`the index hook script is missing (${w.script})`);
  else checkCommand(`the ${names.agent} hook script`, scriptCommand(w.script), path, problems);
  return { agent, installed: true, problems };
}

/** The wiring of every agent funes integrates with, in the registry's order (registry.test.ts checks). */
export function inspectAgents(home: string, env: Record<string, string | undefined>): AgentWiring[] {
  const gemini = geminiDir({ home, env });
  const qwen = qwenDir({ home, env });
  return [
    claude(home, env),
    codex(home, env),
    hermes(home, env),
    pi(home, env.PATH),
    settingsAgent("gemini", gemini, env, (problems) => {
      if (!existsSync(join(gemini, "policies", "funes.toml")))
        problems.push(
          "funes's policy file is missing, so Gemini CLI asks before each funes tool (and headless runs can't use them)",
        );
    }),
    settingsAgent("qwen", qwen, env, (problems) => {
      const visible = (readJson(join(qwen, "settings.json"))?.tools as { visible?: unknown } | undefined)
        ?.visible;
      if (!Array.isArray(visible) || !visible.includes("mcp__funes__recall"))
        problems.push("funes's tools are not in tools.visible, so Qwen Code hides them behind tool_search");
    }),
    jsonAgent(
      "opencode",
      openCodeWiring({ home, env }),
      { agent: "OpenCode", config: "opencode.json", hook: "plugins/funes.js" },
      env.PATH,
    ),
    jsonAgent(
      "copilot",
      copilotWiring({ home, env }),
      { agent: "Copilot", config: "mcp-config.json", hook: "hooks/funes.json" },
      env.PATH,
    ),
  ];
}
