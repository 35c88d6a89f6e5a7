/**
 * `funes status`.
 */
import { memoryStatus, openReadTarget, settledTarget } from "../commands/index.js";
import { formatStatus } from "../format/index.js";
import type { CliConfig } from "./config.js";

/** Prints a memory's status. */
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
  process.stdout.write(
    flags.json === true
      ? `${JSON.stringify({ ...report, notes }, null, 2)}\n`
      : `${notes.map((n) => `${n}\n`).join("")}${formatStatus(report, cfg.now())}`,
  );
}
