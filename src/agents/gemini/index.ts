/**
 * Gemini CLI: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 */
import type { AgentInfo } from "../agent.js";

export const gemini = {
  name: "gemini",
  harness: "gemini",
  ask: true,
  firstRun: true,
  load: async () => (await import("./agent.js")).geminiAgent,
} as const satisfies AgentInfo;
