/**
 * The agents layer's modules, loaded when a command wires or inspects an agent (`agentsLayer()` in
 * index.ts): their configuration files, hook logs, the one-shot runs `ask` makes. No recall and no MCP tool
 * call loads them.
 */
export { type AskOutcome, askArgs, parseAskLine, runAsk } from "./ask-run.js";
export { claudePluginRoot } from "./claude.js";
export { claudeToolsAllowed } from "./claude-permissions.js";
export { codexHome } from "./codex.js";
export { geminiDir } from "./gemini.js";
export {
  type HookPushOutcome,
  type HookPushState,
  hookLogPaths,
  lastPushOutcomes,
  readHookPushes,
} from "./hook-log.js";
export { type FunesCommand, INDEX_SCRIPT, PUSH_SCRIPT, SYNC_LOG } from "./hook-scripts.js";
export { type AgentWiring, inspectAgents } from "./inspect.js";
export { piExtensionDir } from "./pi.js";
export { qwenDir } from "./qwen.js";
export {
  AgentSetupError,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  type SetupReport,
} from "./setup.js";
