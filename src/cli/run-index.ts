/**
 * `funes index [path]`.
 */
import { DEFAULT_VECTOR_BUDGET_MS, FunesError, indexSessions } from "../commands/index.js";
import { parseHarness } from "../traces/index.js";
import type { CliConfig } from "./config.js";
import { indexIsolation } from "./index-worker.js";
import { positiveInt } from "./parse-args.js";
import { formatIndexSummary, indexReporter, nothingIndexed } from "./render-index.js";
import { fitText, layoutWidth } from "./terminal-text.js";

/** Flags of `funes index`. */
export interface IndexFlags {
  harness?: string;
  limit?: unknown;
  thinking?: boolean;
  yes?: boolean;
  json?: boolean;
  force?: boolean;
  verbose?: boolean;
}

/** Runs the index command and prints its summary. */
export async function runIndex(path: unknown, flags: IndexFlags, cfg: CliConfig): Promise<void> {
  const reporter = indexReporter(process.stderr, cfg.stderrTty && flags.json !== true, cfg.now, cfg.quiet);
  try {
    const summary = await indexSessions({
      funesHome: cfg.funesHome,
      home: cfg.home,
      agentEnv: cfg.agentEnv,
      path: path === undefined ? undefined : String(path),
      harness: flags.harness === undefined ? undefined : parseHarness(String(flags.harness)),
      force: flags.force === true,
      limit: flags.limit === undefined ? undefined : positiveInt(flags.limit, "--limit"),
      thinking: flags.thinking !== false,
      onEvent: reporter.onEvent,
      models: cfg.models,
      vectorBudgetMs: flags.yes === true ? null : DEFAULT_VECTOR_BUDGET_MS,
      isolate: indexIsolation(cfg),
    });
    reporter.end();
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify(summary, null, 2)}\n`
        : // On a terminal its lines wrap at spaces, continued under their text.
          fitText(
            formatIndexSummary(summary, flags.verbose === true),
            cfg.stdoutTty ? layoutWidth(cfg.columns) : null,
          ),
    );
    // A file named on the command line that yielded nothing is a failed run, not an empty success.
    const nothing = path === undefined ? null : nothingIndexed(summary, String(path));
    if (nothing !== null) throw new FunesError("unreadable_source", nothing);
  } finally {
    reporter.end();
  }
}
