/**
 * agents: wiring funes into Claude Code, Codex, Hermes, pi, Gemini CLI, Qwen Code, OpenCode and Copilot CLI —
 * their configuration files, the hook scripts they run, their CLIs (registrations, and the one-shot runs
 * `ask` makes). Knows nothing of memories, Lance or the Hub: it is told which memory to bind and how to run
 * funes.
 *
 * This index is what every run loads: the registry of agents (registry.ts) and running an agent's CLI.
 * The rest (Hermes's YAML parser alone ≈ 45 ms of CPU) loads through `agentsLayer()`, and an agent's
 * install and removal through its registry entry's `setup()`.
 */
export type {
  AgentWiring,
  AskOutcome,
  FunesCommand,
  HookPushOutcome,
  HookPushState,
  InstallOptions,
  RemoveOptions,
  SetupReport,
} from "./layer.js";
export {
  AGENT_NAMES,
  AGENTS,
  type AgentInfo,
  type AgentName,
  type AgentSetup,
  ASK_AGENTS,
  type AskAgent,
  agentNamed,
  agentOfHarness,
  orList,
} from "./registry.js";
export { type AgentEnv, type CliOutcome, runCli } from "./run-cli.js";

/** The agents layer's modules (layer.ts), loaded on first use. */
export const agentsLayer = () => import("./layer.js");
