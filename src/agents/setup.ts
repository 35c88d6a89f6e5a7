/**
 * What every agent's add/remove takes and how it fails.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import type { FunesCommand } from "./hook-scripts.js";
import { type AgentEnv, onPath } from "./run-cli.js";

/** Options of installing funes into an agent. */
export interface InstallOptions extends AgentEnv {
  /** The user's home (agent configuration lives under it). */
  home: string;
  /** The Hub memory hooks publish to and MCP reads (as the user wrote it), or null for the local memory. */
  memory: string | null;
  /** How hooks and MCP registrations run funes. */
  funes: FunesCommand;
  /** Let the agent run funes's read-only tools without asking (the user agreed); Claude Code only. */
  allowTools?: boolean | undefined;
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

/** Removes `~/.funes/integrations` once nothing is left in it. */
export function pruneIntegrations(home: string): void {
  const root = integrationsRoot(home);
  if (existsSync(root) && readdirSync(root).length === 0) rmSync(root, { recursive: true, force: true });
}

/** The folder an agent's own variable names (its `…_HOME`), or `fallback` when it is unset or blank. */
export function envDir(set: string | undefined, fallback: string): string {
  return set !== undefined && set.trim() !== "" ? set : fallback;
}

/**
 * Checks that the agent's CLI is installed before `add` touches anything (`install`: what to install, as the
 * user reads it); otherwise the error that says so. It looks on PATH rather than running the CLI: a first
 * run of some agents lays out their folders (OpenCode's `--version` creates four), which `add` would then
 * leave behind.
 */
export async function requireCli(cli: string, install: string, o: AgentEnv): Promise<void> {
  if (!onPath(cli, o.env.PATH))
    throw new AgentSetupError(
      `\`${cli}\` isn't on PATH — install ${install}, then run \`funes add ${cli}\` again`,
    );
}

/** The error of a removal whose agent CLI is missing: what was done, and what to run once it is there. */
export function cliMissingOnRemove(
  report: SetupReport,
  cli: string,
  what: string,
  later: string,
): AgentSetupError {
  const done = report.length > 0 ? `${report.join("; ")}; ` : "";
  return new AgentSetupError(
    `${done}\`${cli}\` isn't on PATH, so its ${what} remain${what.endsWith("s") ? "" : "s"} — once it is, run: ${later}`,
  );
}
