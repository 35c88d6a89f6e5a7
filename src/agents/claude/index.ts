/**
 * Claude Code: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 */
import type { AgentInfo } from "../agent.js";

export const claude = {
  name: "claude",
  harness: "claude_code",
  ask: true,
  firstRun: true,
  load: async () => (await import("./agent.js")).claudeAgent,
} as const satisfies AgentInfo;
