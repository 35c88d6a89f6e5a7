/**
 * Hermes: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`; Hermes's YAML library loads with its install and removal alone
 * (setup.ts), for `funes add hermes` and `funes remove hermes`.
 */
import type { AgentInfo } from "../agent.js";

export const hermes = {
  name: "hermes",
  harness: "hermes",
  ask: false,
  firstRun: true,
  load: async () => (await import("./agent.js")).hermesAgent,
} as const satisfies AgentInfo;
