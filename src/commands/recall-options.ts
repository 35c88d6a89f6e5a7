/**
 * What a recall is asked: its options and their defaults, checked once (an empty query, an unknown block
 * type or agent, a time window that cannot match), and the filter the search legs apply.
 */
import { AGENT_NAMES, orList } from "../agents/index.js";
import type { RowFilter } from "../local/index.js";
import type { MemoryReader } from "../memory/index.js";
import { parseTimeBound } from "../search/index.js";
import { type Harness, parseHarness, UnknownHarnessError } from "../traces/index.js";
import { BadArgumentError, FunesError } from "./errors.js";

/** Block types `--type` accepts. */
export const BLOCK_TYPES = ["text", "thinking", "tool_use", "tool_result"] as const;

/** Default time for reranking one recall, ms: 30 MiniLM-int8 pairs take ≈ 0.3 s on 2 cores. */
export const DEFAULT_RERANK_BUDGET_MS = 500;

/** What to recall and how. */
export interface RecallOptions {
  query: string;
  k: number;
  candidates: number;
  blockType?: string | undefined;
  harness?: string | undefined;
  /** `--since` / `--until`: dates, timestamps or spans like `7d`. */
  since?: string | undefined;
  until?: string | undefined;
  /** Days; 0 turns recency off. */
  halfLifeDays: number;
  neighbors: number;
  /** ms; 0 turns rerank off. */
  rerankBudgetMs: number;
  now: number;
  /**
   * Show funes's own outputs read back (recall results, calls, `ask` prompts) as hits of their own; by
   * default they are left out and counted on the passages they quote (search/echoes.ts).
   */
  echoes?: boolean | undefined;
}

/** Recall options with the defaults (k 8, 30 candidates, 30-day half-life, 1 neighbour, default budget). */
export function recallOptions(query: string, now: number, more: Partial<RecallOptions> = {}): RecallOptions {
  return {
    query,
    k: 8,
    candidates: 30,
    halfLifeDays: 30,
    neighbors: 1,
    rerankBudgetMs: DEFAULT_RERANK_BUDGET_MS,
    now,
    ...more,
  };
}

/** What a recall keeps: the filter the legs apply, and the exact time bounds (ms, UTC) applied after. */
export interface Filters {
  filter: RowFilter;
  since: number | null;
  until: number | null;
}

/** The legs' filter and the exact time bounds of `opts`; a bound that is not a time is bad input. */
export function buildFilters(opts: RecallOptions, harness: Harness | null): Filters {
  const bound = (v: string | undefined, arg: "since" | "until"): number | null => {
    if (v === undefined) return null;
    const t = parseTimeBound(v, opts.now);
    if (t === null)
      throw new BadArgumentError({
        arg,
        flag: `--${arg}`,
        value: v,
        problem:
          "is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)",
      });
    return t;
  };
  const since = bound(opts.since, "since");
  const until = bound(opts.until, "until");
  // An empty window is a mistake (the two swapped), not a question whose answer is "no results".
  if (since !== null && until !== null && since > until)
    throw new BadArgumentError({
      arg: "since",
      flag: "--since",
      value: opts.since ?? "",
      problem: `is later than until "${opts.until ?? ""}", so nothing can match — swap the two`,
      message: `--since "${opts.since ?? ""}" is later than --until "${opts.until ?? ""}", so nothing can match — swap the two`,
    });
  const filter: RowFilter = { since, until };
  if (opts.blockType !== undefined) filter.blockType = opts.blockType;
  if (harness !== null) filter.harness = harness;
  return { filter, since, until };
}

/** Checks the query, the block type and the agent; returns the agent to filter on, if any. */
export function checkOptions(opts: RecallOptions): Harness | null {
  if (opts.query.trim() === "")
    throw new BadArgumentError({
      arg: "query",
      flag: "query",
      value: opts.query,
      problem: 'is empty: say what to recall, e.g. "why did we pick lance"',
      message: 'recall needs a query, e.g. funes recall "why did we pick lance"',
    });
  if (opts.blockType !== undefined && !(BLOCK_TYPES as readonly string[]).includes(opts.blockType))
    throw new BadArgumentError({
      arg: "block_type",
      flag: "--type",
      value: opts.blockType,
      problem: `is not a block type (expected ${BLOCK_TYPES.join(", ")})`,
    });
  if (opts.harness === undefined) return null;
  try {
    return parseHarness(opts.harness);
  } catch (err) {
    if (err instanceof UnknownHarnessError)
      throw new BadArgumentError({
        arg: "harness",
        flag: "--harness",
        value: opts.harness,
        problem: `is not a harness (expected ${orList(AGENT_NAMES)})`,
      });
    throw err;
  }
}

/** A `--harness` filter needs every memory to carry the agent of its rows. */
export async function checkHarnessFacet(open: MemoryReader[], harness: Harness | null): Promise<void> {
  if (harness === null) return;
  for (const m of open)
    if (!(await m.hasHarnessFacet()))
      throw new FunesError(
        "bad_input",
        `${open.length > 1 ? `${m.memory.label}: ` : ""}this memory predates the harness facet — reindex it, or drop --harness`,
      );
}
