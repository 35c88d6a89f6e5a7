/**
 * `funes status`.
 */
import { formatStatus, localMemoryFor, memoryStatus } from "../commands/index.js";
import type { CliConfig } from "./config.js";

/** Prints a memory's status. */
export async function runStatus(flags: { memory?: string; json?: boolean }, cfg: CliConfig): Promise<void> {
  const memory = localMemoryFor(flags.memory === undefined ? undefined : String(flags.memory), cfg);
  const report = await memoryStatus(memory, cfg);
  process.stdout.write(
    flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report, cfg.now()),
  );
}
