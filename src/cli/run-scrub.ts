/**
 * `funes scrub`.
 */
import { scrubMemory } from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { formatCounts } from "./render-index.js";

/** Scrubs the local memory and prints what changed. */
export async function runScrub(flags: { json?: boolean }, cfg: CliConfig): Promise<void> {
  if (cfg.stderrTty && flags.json !== true)
    process.stderr.write("scanning every block of the local memory…\n");
  const s = await scrubMemory({ funesHome: cfg.funesHome, models: cfg.models });
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  if (s === null) {
    process.stdout.write("no local memory to scrub\n");
    return;
  }
  if (s.total === 0) {
    process.stdout.write("memory is empty\n");
    return;
  }
  if (s.redactedBlocks === 0 && s.droppedBlocks === 0) {
    process.stdout.write(`memory is already clean (${s.total} chunks)\n`);
    return;
  }
  const secrets = Object.values(s.redacted).reduce((a, b) => a + b, 0);
  let line = `scrubbed ${s.total} rows: redacted ${secrets} secret(s) in ${s.redactedBlocks} block(s)`;
  if (s.redactedBlocks > 0) line += ` (${formatCounts(s.redacted)})`;
  if (s.droppedBlocks > 0)
    line += `; dropped ${s.droppedRows} row(s) in ${s.droppedBlocks} block(s) that couldn't be safely redacted (${formatCounts(s.dropped)})`;
  const lines = [line, `  the memory now holds ${s.rows} chunks`];
  if (s.waitingForVectors > 0)
    lines.push(
      `  ${s.waitingForVectors} rewritten chunk(s) wait for vectors${s.note === null ? "" : ` (${s.note})`} — \`funes index\` embeds them`,
    );
  lines.push("  note: scrub changes this machine's memory only; what was already published stays on the Hub");
  process.stdout.write(`${lines.join("\n")}\n`);
}
