/**
 * The checks an agent's wiring inspection is made of: the funes command a piece of wiring names still
 * exists (a moved checkout or an uninstalled funes leaves entries pointing at nothing, which agents report
 * silently or not at all), and the two shapes several agents share (a settings.json with hook scripts;
 * a JSON entry with a hook file of funes's own). Reads files only; never runs an agent.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Wiring } from "./agent.js";
import { COMMON_SCRIPT, INDEX_SCRIPT } from "./hook-scripts.js";
import type { jsonWiring } from "./json-config.js";
import { readJsonText } from "./json-text.js";
import { onPath as runnable } from "./run-cli.js";

/**
 * The FUNES=(…) words of a hook script funes wrote (in what it sources beside it, or, as earlier releases
 * wrote it, in the script itself), or null.
 */
export function scriptCommand(script: string): string[] | null {
  if (!existsSync(script)) return null;
  const line = /^FUNES=\((.*)\)$/m;
  const common = join(dirname(script), COMMON_SCRIPT);
  const m =
    line.exec(readFileSync(script, "utf8")) ??
    (existsSync(common) ? line.exec(readFileSync(common, "utf8")) : null);
  if (m === null) return null;
  return [...(m[1] ?? "").matchAll(/'((?:[^']|'\\'')*)'/g)].map((x) => (x[1] ?? "").replaceAll("'\\''", "'"));
}

/** Checks the funes command a piece of wiring names: its program, and (run by Node) its script. */
export function checkCommand(
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

/** A JSON (or JSONC) file's object, or null when it is missing or not a JSON object. */
export function readJson(path: string): Record<string, unknown> | null {
  return existsSync(path) ? readJsonText(readFileSync(path, "utf8")) : null;
}

/**
 * An agent of Gemini CLI's shape (Gemini CLI, Qwen Code): the hook scripts in its folder, and the MCP entry
 * in its settings.json (the command each runs); `more` adds the agent's own checks once something is
 * installed.
 */
export function settingsWiring(
  name: string,
  dir: string,
  path: string | undefined,
  more: (problems: string[]) => void,
): Wiring {
  const problems: string[] = [];
  const script = join(dir, "hooks", INDEX_SCRIPT);
  const servers = (readJson(join(dir, "settings.json"))?.mcpServers ?? {}) as Record<
    string,
    { command?: string; args?: string[] }
  >;
  const mcp = servers.funes;
  const installed = existsSync(script) || mcp !== undefined;
  if (!installed) return { installed, problems };
  if (mcp === undefined) problems.push(`the funes MCP server is not in ${name}'s settings.json`);
  else checkCommand(`${name}'s funes MCP entry`, [mcp.command ?? "", ...(mcp.args ?? [])], path, problems);
  if (!existsSync(script)) problems.push(`the index hook script is missing (${script})`);
  else checkCommand(`the ${name} hooks`, scriptCommand(script), path, problems);
  more(problems);
  return { installed, problems };
}

/** An agent wired by a JSON entry and a hook file of funes's own (OpenCode, Copilot CLI). */
export function jsonFileWiring(
  w: ReturnType<typeof jsonWiring>,
  names: { agent: string; config: string; hook: string },
  path: string | undefined,
): Wiring {
  const problems: string[] = [];
  if (!w.installed) return { installed: false, problems };
  if (w.mcp === null) problems.push(`the funes MCP server is not in ${names.agent}'s ${names.config}`);
  else checkCommand(`${names.agent}'s funes MCP entry`, w.mcp, path, problems);
  if (!w.hook) problems.push(`${names.agent}'s ${names.hook} is missing, so no turn is indexed`);
  if (!existsSync(w.script)) problems.push(`the index hook script is missing (${w.script})`);
  else checkCommand(`the ${names.agent} hook script`, scriptCommand(w.script), path, problems);
  return { installed: true, problems };
}
