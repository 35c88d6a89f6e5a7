/**
 * What the agents layer does with Codex (agent.ts): its install and removal (setup.ts), its wiring check,
 * its hook log and its one-shot run (ask.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { INDEX_SCRIPT, SYNC_LOG } from "../hook-scripts.js";
import { checkCommand, scriptCommand } from "../wiring-check.js";
import { codexAsk } from "./ask.js";
import { codexHome, installCodex, removeCodex } from "./setup.js";

/** The MCP section of `config.toml`, the hook scripts, and whether Codex trusts funes's hooks. */
function inspect({ home, env }: Where): Wiring {
  const problems: string[] = [];
  const dir = codexHome({ home, env });
  const script = join(dir, "hooks", INDEX_SCRIPT);
  const config = existsSync(join(dir, "config.toml")) ? readFileSync(join(dir, "config.toml"), "utf8") : "";
  const section = /^\[mcp_servers\.funes\]\n([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(config)?.[1] ?? null;
  const installed = existsSync(script) || section !== null;
  if (!installed) return { installed, problems };
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
  return { installed, problems };
}

export const codexAgent: AgentModule = {
  install: installCodex,
  remove: removeCodex,
  inspect,
  hookLog: (o) => join(codexHome(o), "hooks", SYNC_LOG),
  ask: codexAsk,
};
