/**
 * pi: its entry in the registry (agent.ts says what a descriptor holds). Everything else about it is in
 * this folder and loads through `load()`.
 */
import type { AgentInfo } from "../agent.js";

export const pi = {
  name: "pi",
  harness: "pi",
  ask: false,
  // No first index and push from `funes add`: the extension indexes and pushes when a pi session shuts down.
  firstRun: false,
  load: async () => (await import("./agent.js")).piAgent,
} as const satisfies AgentInfo;
