/**
 * `funes status`.
 */
import { memoryStatus } from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { resolveMemorySpec } from "./memory-spec.js";
import { formatStatus } from "./render-status.js";

/** Prints a memory's status. */
export async function runStatus(flags: { memory?: string; json?: boolean }, cfg: CliConfig): Promise<void> {
  const memory = resolveMemorySpec(flags.memory === undefined ? undefined : String(flags.memory), cfg);
  const report = await memoryStatus(memory, cfg);
  process.stdout.write(
    flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report, cfg.now()),
  );
}
