/**
 * Is funes still wired into each agent, and would the wiring run? Each agent's folder says how to tell
 * (its module's `inspect`: what `funes add` left, and that the funes command it names still exists,
 * wiring-check.ts); this asks every agent in the registry. Reads files only; never runs an agent.
 */
import type { Env } from "./agent.js";
import { AGENTS, type AgentName } from "./registry.js";

/** What was found for one agent. */
export interface AgentWiring {
  agent: AgentName;
  /** Whether funes left anything in this agent. */
  installed: boolean;
  /** Problems, each a sentence; empty when the wiring would run. */
  problems: string[];
}

/** The wiring of every agent funes integrates with, in the registry's order. */
export async function inspectAgents(home: string, env: Env): Promise<AgentWiring[]> {
  return Promise.all(
    AGENTS.map(async (a) => ({ agent: a.name, ...(await a.load()).inspect({ home, env }) })),
  );
}
