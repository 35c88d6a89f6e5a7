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
import { layoutWidth } from "./terminal-text.js";

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
 * Recalls and prints: for people on a terminal a readable view (notes on stderr), else the agent format
 * (the reference's bytes, notes first, ended by a newline), or JSON.
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
    if (flags.json === true) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (format === "agent") {
      const text = formatRecallAgent(result);
      process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    } else {
      // A stranger's texts lose their control characters (shown as control pictures, `␛[33m`) before
      // any colour of ours is added.
      const safe = terminalSafeRecall(result, "people");
      for (const n of safe.notes) process.stderr.write(`${n}\n`);
      const hidden = result.hiddenEchoes ?? 0;
      if (hidden > 0)
        process.stderr.write(
          `note: ${hidden} ${hidden === 1 ? "copy" : "copies"} of recalled passages (earlier recalls read back) left out — add --echoes to see them\n`,
        );
      const text = formatRecallHuman(safe, {
        width: layoutWidth(cfg.columns),
        color: cfg.color,
        defaultMemory: join(cfg.funesHome, "memory"),
        full: flags.full === true,
        rows: cfg.rows,
      });
      // The compact view fits the screen; the full one may not, and goes through the pager.
      if (flags.full === true) await writePaged(text, { tty: cfg.stdoutTty, rows: cfg.rows, env: cfg.env });
      else process.stdout.write(text);
    }
  } finally {
    await models.close();
  }
}
