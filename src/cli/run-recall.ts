/**
 * `funes recall <query…>`.
 */
import { join } from "node:path";
import { DEFAULT_RERANK_BUDGET_MS, FunesError, listValues, recallMemories } from "../commands/index.js";
import { formatRecallAgent, terminalSafeRecall } from "../format/index.js";
import type { CliConfig } from "./config.js";
import { writePaged } from "./pager.js";
import { nonNegativeInt, nonNegativeNumber, outputFormat, positiveInt } from "./parse-args.js";
import { formatRecallHuman } from "./render-recall.js";
import { recallModels } from "./run-server.js";
import { fitText, layoutWidth, terminalRows } from "./terminal-text.js";

/** Flags of `funes recall`. */
export interface RecallFlags {
  k?: unknown;
  candidates?: unknown;
  type?: unknown;
  harness?: unknown;
  since?: unknown;
  until?: unknown;
  halfLife?: unknown;
  neighbors?: unknown;
  rerankBudget?: unknown;
  reranker?: unknown;
  memory?: unknown;
  json?: boolean;
  format?: unknown;
  fallbackLocal?: boolean;
  echoes?: boolean;
  full?: boolean;
  /** Words after `--` (a query starting with `-`). */
  "--"?: unknown[];
}

const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

/**
 * Recalls and prints: for people on a terminal a readable view, else the agent format (the reference's
 * bytes for the hits, ended by a newline), or JSON (notes in it). Notes go to stderr whatever the output.
 */
/** `typed`: the words as typed, to name -k as the user spelled it. */
export async function runRecall(
  words: unknown[],
  flags: RecallFlags,
  cfg: CliConfig,
  typed: readonly string[],
): Promise<void> {
  const query = [...words, ...(flags["--"] ?? [])].map(String).join(" ").trim();
  if (query === "")
    throw new FunesError("bad_input", 'recall needs a query, e.g. funes recall "why did we pick lance"');
  if (flags.json === true && flags.format !== undefined)
    throw new FunesError("bad_input", "--json and --format both choose the output — give one of them");
  const format = outputFormat(flags.format, cfg.stdinTty && cfg.stdoutTty);
  const specs = listValues(flags.memory);
  // The first recall of the day answers with models loaded here, and leaves the shared server starting.
  const models = recallModels(cfg, flags.reranker, { startAfter: true });
  try {
    const result = await recallMemories(
      specs,
      {
        query,
        // Named as typed in an error: `--limit` is `-k` under gh's name.
        k:
          flags.k === undefined
            ? 8
            : positiveInt(flags.k, typed.some((a) => a.startsWith("--limit")) ? "--limit" : "-k"),
        candidates: flags.candidates === undefined ? 30 : positiveInt(flags.candidates, "--candidates"),
        blockType: str(flags.type),
        harness: str(flags.harness),
        since: str(flags.since),
        until: str(flags.until),
        halfLifeDays: flags.halfLife === undefined ? 30 : nonNegativeNumber(flags.halfLife, "--half-life"),
        neighbors: flags.neighbors === undefined ? 1 : nonNegativeInt(flags.neighbors, "--neighbors"),
        rerankBudgetMs:
          flags.rerankBudget === undefined
            ? DEFAULT_RERANK_BUDGET_MS
            : nonNegativeInt(flags.rerankBudget, "--rerank-budget"),
        now: cfg.now(),
        echoes: flags.echoes === true,
      },
      { ...cfg, fallbackLocal: flags.fallbackLocal === true },
      models,
    );
    // Notes are for the person: on stderr whatever the output (a pipe's reader gets passages only),
    // wrapped at spaces on a terminal.
    const noteWidth = cfg.stderrTty ? layoutWidth(cfg.columns) : null;
    const noteText = (notes: string[]) => fitText(notes.map((n) => `${n}\n`).join(""), noteWidth);
    if (flags.json === true) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (format === "agent") {
      process.stderr.write(noteText(result.notes));
      const text = formatRecallAgent({ ...result, notes: [] });
      process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    } else {
      // A stranger's texts lose their control characters (shown as control pictures, `␛[33m`) before
      // any colour of ours is added.
      const safe = terminalSafeRecall(result, "people");
      const hidden = result.hiddenEchoes ?? 0;
      const notes = noteText([
        ...safe.notes,
        ...(hidden > 0
          ? [
              `note: ${hidden} ${hidden === 1 ? "copy" : "copies"} of recalled passages (earlier recalls read back) left out — add --echoes to see them`,
            ]
          : []),
      ]);
      process.stderr.write(notes);
      const width = layoutWidth(cfg.columns);
      const text = formatRecallHuman(safe, {
        width,
        color: cfg.color,
        defaultMemory: join(cfg.funesHome, "memory"),
        full: flags.full === true,
        rows: cfg.rows,
        // Notes on the same screen take its rows too.
        taken: cfg.stderrTty && notes !== "" ? terminalRows(notes, width) : 0,
      });
      // The compact view fits the screen; the full one may not, and goes through the pager.
      if (flags.full === true) await writePaged(text, { tty: cfg.stdoutTty, rows: cfg.rows, env: cfg.env });
      else process.stdout.write(text);
    }
  } finally {
    await models.close();
  }
}
