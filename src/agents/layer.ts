/**
 * The agents layer's modules, loaded when a command wires or inspects an agent (`agentsLayer()` in
 * index.ts): the wiring checks and hook logs over every agent, the one-shot runs `ask` makes. Each agent's
 * own module loads through its registry entry. No recall and no MCP tool call loads them.
 */
export { type AskOutcome, runAsk } from "./ask-run.js";
export { type HookLock, readHookLocks } from "./hook-locks.js";
export {
  type HookPushOutcome,
  type HookPushState,
  hookLogPaths,
  lastPushOutcomes,
  readHookPushes,
} from "./hook-log.js";
export { type FunesCommand, INDEX_SCRIPT, PUSH_SCRIPT, SYNC_LOG } from "./hook-scripts.js";
export { type AgentWiring, inspectAgents } from "./inspect.js";
export {
  AgentSetupError,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  type SetupReport,
} from "./setup.js";
