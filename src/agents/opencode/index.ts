/**
 * OpenCode: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 */
import type { AgentInfo } from "../agent.js";

export const opencode = {
  name: "opencode",
  harness: "opencode",
  ask: true,
  firstRun: true,
  load: async () => (await import("./agent.js")).openCodeAgent,
} as const satisfies AgentInfo;
