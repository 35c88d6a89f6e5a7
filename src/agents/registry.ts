/**
 * Every agent funes wires into, in one list: what the CLI, the MCP tool descriptions, `add`/`remove`,
 * `ask`, the recall view and the completion words derive their agent lists from. Data and lazy loaders
 * only: the CLI reads it on every run, and an agent's own modules load when its setup is asked for.
 */
import type { Harness } from "../traces/index.js";
import type { InstallOptions, RemoveOptions, SetupReport } from "./setup.js";

/** How funes is put into one agent and taken out again, exactly. */
export interface AgentSetup {
  install(o: InstallOptions): Promise<SetupReport>;
  remove(o: RemoveOptions): Promise<SetupReport>;
}

/** One agent funes integrates with. */
export interface AgentInfo {
  /** Its word on the command line (`funes add <name>`, `--harness <name>`), which is also its CLI's name. */
  name: string;
  /** The trace harness its sessions are stored under (the recall facet; `traces/` parses it). */
  harness: Harness;
  /** Whether `funes ask` can run it (a one-shot run with a JSON event stream and tools off). */
  ask: boolean;
  /**
   * Whether `funes add` indexes its sessions first and pushes once: not for pi, whose extension indexes
   * and pushes when a pi session shuts down.
   */
  firstRun: boolean;
  /** Its install and removal, loaded on first use. */
  setup: () => Promise<AgentSetup>;
}

/** The agents, in the order help and lists name them. */
export const AGENTS = [
  {
    name: "claude",
    harness: "claude_code",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./claude.js");
      return { install: m.installClaude, remove: m.removeClaude };
    },
  },
  {
    name: "codex",
    harness: "codex",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./codex.js");
      return { install: m.installCodex, remove: m.removeCodex };
    },
  },
  {
    name: "hermes",
    harness: "hermes",
    ask: false,
    firstRun: true,
    setup: async () => {
      // Its YAML library costs ~30 ms to import: only `add hermes` and `remove hermes` pay it here.
      const m = await import("./hermes.js");
      return { install: m.installHermes, remove: m.removeHermes };
    },
  },
  {
    name: "pi",
    harness: "pi",
    ask: false,
    firstRun: false,
    setup: async () => {
      const m = await import("./pi.js");
      return { install: m.installPi, remove: m.removePi };
    },
  },
  {
    name: "gemini",
    harness: "gemini",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./gemini.js");
      return { install: m.installGemini, remove: m.removeGemini };
    },
  },
  {
    name: "qwen",
    harness: "qwen",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./qwen.js");
      return { install: m.installQwen, remove: m.removeQwen };
    },
  },
  {
    name: "opencode",
    harness: "opencode",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./opencode.js");
      return { install: m.installOpenCode, remove: m.removeOpenCode };
    },
  },
  {
    name: "copilot",
    harness: "copilot",
    ask: true,
    firstRun: true,
    setup: async () => {
      const m = await import("./copilot.js");
      return { install: m.installCopilot, remove: m.removeCopilot };
    },
  },
] as const satisfies readonly AgentInfo[];

type Agent = (typeof AGENTS)[number];

/** An agent's name on the command line. */
export type AgentName = Agent["name"];

/** An agent `funes ask` runs. */
export type AskAgent = Extract<Agent, { ask: true }>["name"];

/** Every agent's name, in order. */
export const AGENT_NAMES: readonly AgentName[] = AGENTS.map((a) => a.name);

/** The agents `funes ask` runs, in order. */
export const ASK_AGENTS: readonly AskAgent[] = AGENTS.filter(
  (a): a is Extract<Agent, { ask: true }> => a.ask,
).map((a) => a.name);

/** The agent of a name, or null when there is none (matched without case or surrounding spaces). */
export function agentNamed(name: string): Agent | null {
  const n = name.trim().toLowerCase();
  return AGENTS.find((a) => a.name === n) ?? null;
}

/** The agent whose sessions a harness facet holds, or null for one no agent has. */
export function agentOfHarness(harness: string): AgentName | null {
  return AGENTS.find((a) => a.harness === harness)?.name ?? null;
}

/** Names as a sentence lists them: `a, b or c`. */
export function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
