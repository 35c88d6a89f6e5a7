/**
 * What every agent's add/remove takes and how it fails.
 */
import type { FunesCommand } from "./hook-scripts.js";
import type { AgentEnv } from "./run-cli.js";

/** Options of installing funes into an agent. */
export interface InstallOptions extends AgentEnv {
  /** The user's home (agent configuration lives under it). */
  home: string;
  /** The Hub memory hooks publish to and MCP reads (as the user wrote it), or null for the local memory. */
  memory: string | null;
  /** How hooks and MCP registrations run funes. */
  funes: FunesCommand;
}

/** Options of removing funes from an agent. */
export interface RemoveOptions extends AgentEnv {
  home: string;
}

/** Setting up or removing an integration failed; the message says what to do. */
export class AgentSetupError extends Error {}

/** What an add or remove did, line by line, for the user. */
export type SetupReport = string[];

/** Where funes keeps integration files it extracts (like the reference: under `~/.funes`, not FUNES_HOME). */
export function integrationsRoot(home: string): string {
  return `${home}/.funes/integrations`;
}
