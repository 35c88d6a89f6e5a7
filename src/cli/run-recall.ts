/**
 * `funes recall <query…>`.
 */
import {
  DEFAULT_RERANK_BUDGET_MS,
  FunesError,
  formatRecallAgent,
  listValues,
  recallMemories,
} from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { nonNegativeInt, nonNegativeNumber, positiveInt } from "./parse-args.js";
import { recallModels } from "./run-server.js";

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
  /** Words after `--` (a query starting with `-`). */
  "--"?: unknown[];
}

const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

/** Recalls and prints in the agent format (or JSON). */
export async function runRecall(words: unknown[], flags: RecallFlags, cfg: CliConfig): Promise<void> {
  const query = [...words, ...(flags["--"] ?? [])].map(String).join(" ").trim();
  if (query === "")
    throw new FunesError("bad_input", 'recall needs a query, e.g. funes recall "why did we pick lance"');
  const specs = listValues(flags.memory);
  const models = recallModels(cfg, flags.reranker);
  try {
    const result = await recallMemories(
      specs,
      {
        query,
        k: flags.k === undefined ? 8 : positiveInt(flags.k, "-k"),
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
      },
      cfg,
      models,
    );
    process.stdout.write(
      flags.json === true ? `${JSON.stringify(result, null, 2)}\n` : formatRecallAgent(result),
    );
  } finally {
    await models.close();
  }
}
