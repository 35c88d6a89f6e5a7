/**
 * Qwen Code: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 */
import type { AgentInfo } from "../agent.js";

export const qwen = {
  name: "qwen",
  harness: "qwen",
  ask: true,
  firstRun: true,
  load: async () => (await import("./agent.js")).qwenAgent,
} as const satisfies AgentInfo;
