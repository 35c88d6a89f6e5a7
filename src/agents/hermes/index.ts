/**
 * Hermes: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 * Its module leaves Hermes's YAML library to `add hermes` and `remove hermes` (setup.ts).
 */
import type { AgentInfo } from "../agent.js";

export const hermes = {
  name: "hermes",
  harness: "hermes",
  ask: false,
  firstRun: true,
  load: async () => (await import("./agent.js")).hermesAgent,
} as const satisfies AgentInfo;
