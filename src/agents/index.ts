/**
 * agents: wiring funes into Claude Code, Codex, Hermes, pi, Gemini CLI, Qwen Code, OpenCode and Copilot CLI —
 * their configuration files, the hook scripts they run, their CLIs (registrations, and the one-shot runs
 * `ask` makes). Knows nothing of memories, Lance or the Hub: it is told which memory to bind and how to run
 * funes.
 */
export { type AskAgent, type AskOutcome, askArgs, parseAskLine, runAsk } from "./ask-run.js";
export { claudePluginRoot, installClaude, removeClaude } from "./claude.js";
export { claudeToolsAllowed } from "./claude-permissions.js";
export { codexHome, installCodex, removeCodex } from "./codex.js";
export { installCopilot, removeCopilot } from "./copilot.js";
export { geminiDir, installGemini, removeGemini } from "./gemini.js";
export { installHermes, removeHermes } from "./hermes-entry.js";
export {
  type HookPushOutcome,
  type HookPushState,
  hookLogPaths,
  lastPushOutcomes,
  readHookPushes,
} from "./hook-log.js";
export { type FunesCommand, INDEX_SCRIPT, PUSH_SCRIPT, SYNC_LOG } from "./hook-scripts.js";
export { type AgentWiring, inspectAgents } from "./inspect.js";
export { installOpenCode, removeOpenCode } from "./opencode.js";
export { installPi, piExtensionDir, removePi } from "./pi.js";
export { installQwen, qwenDir, removeQwen } from "./qwen.js";
export { type AgentEnv, type CliOutcome, runCli } from "./run-cli.js";
export {
  AgentSetupError,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  type SetupReport,
} from "./setup.js";
