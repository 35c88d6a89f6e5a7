/**
 * What the agents layer does with Claude Code (agent.ts): its install and removal (setup.ts), its wiring
 * check, its hook log, its one-shot run (ask.ts), and its consent to funes's read-only tools.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { INDEX_SCRIPT, SYNC_LOG } from "../hook-scripts.js";
import { checkCommand, readJson, scriptCommand } from "../wiring-check.js";
import { claudeAsk } from "./ask.js";
import { claudeSettingsPath, claudeStatePath, claudeToolsAllowed } from "./permissions.js";
import { claudePluginRoot, installClaude, removeClaude } from "./setup.js";

/** The MCP entry in Claude's state file, the hooks plugin's scripts, and whether Claude enabled the plugin. */
function inspect({ home, env }: Where): Wiring {
  const path = env.PATH;
  const problems: string[] = [];
  const root = claudePluginRoot(home);
  const servers = (readJson(claudeStatePath({ home, env }))?.mcpServers ?? {}) as Record<
    string,
    { command?: string; args?: string[] }
  >;
  const mcp = servers.funes;
  const installed = existsSync(root) || mcp !== undefined;
  if (!installed) return { installed, problems };
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
  return { installed, problems };
}

export const claudeAgent: AgentModule = {
  install: installClaude,
  remove: removeClaude,
  inspect,
  hookLog: (o) => join(claudePluginRoot(o.home), "funes", "scripts", SYNC_LOG),
  ask: claudeAsk,
  toolConsent: {
    allowed: claudeToolsAllowed,
    question:
      "Let Claude Code run funes's read-only tools (recall, get, sessions, scan, status) without asking? Headless `claude -p` runs need it.",
    unasked:
      "Claude Code will ask before each funes tool call, and headless `claude -p` runs can't use them — `funes add claude --yes` allows its read-only tools",
  },
};
