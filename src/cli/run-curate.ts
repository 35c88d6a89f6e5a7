/**
 * `funes curate <memory> [owner/name]`.
 */
import { type CurateSummary, curate, FunesError, listValues, type ReviewAnswer } from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { askChoice, askYesNo } from "./prompt.js";

/** Flags of `funes curate`. */
export interface CurateFlags {
  include?: unknown;
  exclude?: unknown;
  create?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** One question of the interactive review, on stderr. */
async function reviewOne(
  s: { sessionId: string; chunks: number; lastTs: string; repos: string[] },
  prompts: string[],
  n: number,
  of: number,
): Promise<ReviewAnswer> {
  const out = process.stderr;
  out.write(
    `\n[${n}/${of}] ${s.sessionId} — ${s.lastTs.slice(0, 10)}, ${s.chunks} chunks${s.repos.length > 0 ? `, ${s.repos.join(" ")}` : ""}\n`,
  );
  for (const p of prompts) out.write(`  > ${p}\n`);
  // An answer it does not know is asked again, saying what it takes.
  return askChoice("include, exclude, skip or quit? [i/e/s/q] ", ["include", "exclude", "skip", "quit"], {
    empty: "skip",
    ended: "quit",
  });
}

function render(s: CurateSummary): string {
  const lines = [
    s.named === "named"
      ? `${s.memory} is now the project memory of ${s.project}`
      : `project memory of ${s.project}`,
  ];
  if (s.recorded.include + s.recorded.exclude > 0)
    lines.push(`recorded ${s.recorded.include} include, ${s.recorded.exclude} exclude`);
  for (const u of s.unrecognized) lines.push(`note: skipped an unrecognized curation line: ${u}`);
  if (s.pending.length === 0) lines.push("nothing pending review");
  else {
    lines.push(`${s.pending.length} session(s) pending review:`);
    for (const p of s.pending)
      lines.push(
        `  ${p.sessionId}  ${p.lastTs.slice(0, 10)}  ${p.chunks} chunks  ${Array.from(p.firstPrompt).slice(0, 80).join("")}`,
      );
    lines.push(`decide with --include <session> / --exclude <session>, then \`funes push ${s.memory}\``);
  }
  return `${lines.join("\n")}\n`;
}

/** Names a project memory, records decisions, or reviews pending sessions. */
export async function runCurate(
  memory: unknown,
  project: unknown,
  flags: CurateFlags,
  cfg: CliConfig,
): Promise<void> {
  const include = listValues(flags.include);
  const exclude = listValues(flags.exclude);
  const both = include.find((s) => exclude.includes(s));
  if (both !== undefined)
    throw new FunesError(
      "bad_input",
      `session "${both}" is given to both --include and --exclude — drop it from one of them`,
    );
  const interactive =
    cfg.stdinTty && cfg.stderrTty && flags.json !== true && include.length + exclude.length === 0;
  const s = await curate(
    {
      spec: String(memory),
      project: project === undefined ? undefined : String(project),
      include,
      exclude,
      create: flags.create === true,
      yes: flags.yes === true,
      confirm: cfg.stdinTty && cfg.stderrTty ? (q) => askYesNo(q) : undefined,
      review: interactive ? reviewOne : undefined,
      now: cfg.now,
    },
    cfg,
  );
  process.stdout.write(flags.json === true ? `${JSON.stringify(s, null, 2)}\n` : render(s));
}
