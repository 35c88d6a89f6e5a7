/**
 * `funes status`.
 */
import {
  FunesError,
  memoryStatus,
  openReadTarget,
  settledTarget,
  type WiredAgent,
  wiredAgents,
} from "../commands/index.js";
import { formatStatus } from "../format/index.js";
import { noIndexMessage } from "../memory/index.js";
import type { CliConfig } from "./config.js";

/** The agents line: which agents funes is set up in on this machine, and any whose wiring would not run. */
export function agentsLine(agents: WiredAgent[]): string {
  if (agents.length === 0) return "agents: none set up — `funes add <agent>` sets one up\n";
  const broken = agents.filter((a) => !a.ok).map((a) => a.agent);
  return `agents: ${agents.map((a) => a.agent).join(", ")}${broken.length === 0 ? "" : ` (${broken.join(", ")} would not run — see \`funes doctor\`)`}\n`;
}

/**
 * Prints a memory's status, and which agents funes is set up in; a named memory without an index fails
 * (no_memory), as for the commands that read it.
 */
export async function runStatus(
  flags: { memory?: string; json?: boolean; fallbackLocal?: boolean },
  cfg: CliConfig,
): Promise<void> {
  const { memory, notes } = await settledTarget(
    await openReadTarget(flags.memory === undefined ? undefined : String(flags.memory), {
      ...cfg,
      fallbackLocal: flags.fallbackLocal === true,
    }),
  );
  const report = await memoryStatus(memory, cfg);
  // A memory named with --memory that holds no index is the failure recall, get and sessions say, with
  // their line and exit code (docs/exit-codes.md: no memory or index is 1). The default memory before the
  // first index is a state status reports, exit 0: nothing failed, and the report says what to run.
  if (report.kind === "no-index" && report.empty !== true && !memory.isDefault)
    throw new FunesError("no_memory", noIndexMessage(memory));
  const agents = await wiredAgents(cfg);
  process.stdout.write(
    flags.json === true
      ? `${JSON.stringify({ ...report, agents, notes }, null, 2)}\n`
      : `${notes.map((n) => `${n}\n`).join("")}${formatStatus(report, cfg.now())}${agentsLine(agents)}`,
  );
}
