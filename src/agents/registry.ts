/**
 * Every agent funes wires into, in one list: what the CLI, the MCP tool descriptions, `add`/`remove`,
 * `ask`, `doctor`'s and `status`'s wiring checks, the hook logs, the recall view and the completion words
 * derive their agent lists from. Each entry is an agent folder's descriptor (agent.ts says what it holds):
 * data and a lazy loader, so the CLI reads it on every run and an agent's own modules load when needed.
 */
import type { AgentInfo } from "./agent.js";
import { claude } from "./claude/index.js";
import { codex } from "./codex/index.js";
import { copilot } from "./copilot/index.js";
import { gemini } from "./gemini/index.js";
import { hermes } from "./hermes/index.js";
import { opencode } from "./opencode/index.js";
import { pi } from "./pi/index.js";
import { qwen } from "./qwen/index.js";

/** The agents, in the order help and lists name them: each one's folder, `agents/<name>/`. */
export const AGENTS = [
  claude,
  codex,
  hermes,
  pi,
  gemini,
  qwen,
  opencode,
  copilot,
] as const satisfies readonly AgentInfo[];

type Agent = (typeof AGENTS)[number];

/** An agent's name on the command line. */
export type AgentName = Agent["name"];

/** An agent `funes ask` runs. */
export type AskAgent = Extract<Agent, { ask: true }>["name"];

/** Every agent's name, in order. */
export const AGENT_NAMES: readonly AgentName[] = AGENTS.map((a) => a.name);

/** The agents `funes ask` runs, in order. */
export const ASK_AGENTS: readonly AskAgent[] = AGENTS.filter(
  (a): a is Extract<Agent, { ask: true }> => a.ask,
).map((a) => a.name);

/** The agent of a name, or null when there is none (matched without case or surrounding spaces). */
export function agentNamed(name: string): Agent | null {
  const n = name.trim().toLowerCase();
  return AGENTS.find((a) => a.name === n) ?? null;
}

/** The agent whose sessions a harness facet holds, or null for one no agent has. */
export function agentOfHarness(harness: string): AgentName | null {
  return AGENTS.find((a) => a.harness === harness)?.name ?? null;
}

/** Names as a sentence lists them: `a, b or c`. */
export function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
