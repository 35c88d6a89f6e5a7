/**
 * agents: wiring funes into Claude Code, Codex, Hermes, pi, Gemini CLI, Qwen Code, OpenCode and Copilot CLI —
 * their configuration files, the hook scripts they run, their CLIs (registrations, and the one-shot runs
 * `ask` makes). Knows nothing of memories, Lance or the Hub: it is told which memory to bind and how to run
 * funes.
 *
 * One folder per agent (`agents/<name>/`) holds everything about it; its `index.ts` is its entry in the
 * registry, reached only through registry.ts. This index is what every run loads: the registry of agents
 * (their descriptors) and running an agent's CLI. The rest loads through `agentsLayer()`, and an agent's
 * own module through its registry entry's `load()` (Hermes's YAML parser, ≈ 45 ms of CPU, only for its
 * install and removal).
 */

export type { AgentInfo, AgentModule, Env, ToolConsent, Where } from "./agent.js";
export type {
  AgentWiring,
  AskOutcome,
  FunesCommand,
  HookLock,
  HookPushOutcome,
  HookPushState,
  InstallOptions,
  RemoveOptions,
  SetupReport,
} from "./layer.js";
export {
  AGENT_NAMES,
  AGENTS,
  type AgentName,
  ASK_AGENTS,
  type AskAgent,
  agentNamed,
  agentOfHarness,
  orList,
} from "./registry.js";
export { type AgentEnv, type CliOutcome, onPath, runCli } from "./run-cli.js";

/** The agents layer's modules (layer.ts), loaded on first use. */
export const agentsLayer = () => import("./layer.js");
