/**
 * `funes compact <memory>`: fold a Hub memory's small fragments and drop the files its newest version no
 * longer needs, in one commit (or say what that would do, `--dry-run`).
 */
import { type CompactSummary, compactMemory } from "../commands/index.js";
import type { CliConfig } from "./config.js";

/** Flags of `funes compact`. */
export interface CompactFlags {
  dryRun?: boolean;
  json?: boolean;
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** What a compaction did (or would do), for people. */
export function compactText(s: CompactSummary): string {
  if (s.empty) return `${s.memory} holds no memory yet: nothing to compact\n`;
  const files = `${s.filesBefore} → ${s.filesAfter} files, ${s.fragmentsBefore} → ${s.fragmentsAfter} fragments`;
  const nothing = s.uploads === 0 && s.deletions === 0;
  const lines = [
    nothing
      ? `${s.memory} is compact already (${s.filesBefore} files, ${s.fragmentsBefore} fragments, ${s.rows} chunks)`
      : s.dryRun
        ? `dry run: nothing was changed on ${s.memory}; compacting would leave ${files}`
        : `compacted ${s.memory}: ${files} (commit ${(s.commit ?? "").slice(0, 8)})`,
  ];
  if (!nothing) {
    const verb = s.dryRun ? "would " : "";
    if (s.folded > 0)
      lines.push(`  ${verb}fold ${s.folded} fragments into one (${s.rowsRewritten} chunks written again)`);
    lines.push(`  ${verb}upload ${s.uploads} files (${kib(s.bytes)}) and delete ${s.deletions}`);
    if (s.textIndex === "built" || s.textIndex === "rebuilt")
      lines.push(
        `  ${verb}${s.textIndex === "built" ? "build" : "rebuild"} the text index over all ${s.rows} chunks`,
      );
    if (s.forgottenRemoved > 0)
      lines.push(`  ${verb}take out ${s.forgottenRemoved} chunks its forgotten list names`);
    if (!s.dryRun) lines.push("  older commits keep their files: readers still at one keep reading it");
  }
  return `${lines.join("\n")}\n`;
}

/** Runs `funes compact` and prints what it did. */
export async function runCompact(spec: unknown, flags: CompactFlags, cfg: CliConfig): Promise<void> {
  const s = await compactMemory({ spec: String(spec), dryRun: flags.dryRun === true, now: cfg.now }, cfg);
  process.stdout.write(flags.json === true ? `${JSON.stringify(s, null, 2)}\n` : compactText(s));
}
