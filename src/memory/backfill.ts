/**
 * Vector backfill: rows stored text-first get their embeddings, newest sessions first and the text tier
 * before tool calls before tool output, in bounded steps. Each write is atomic, so a killed run leaves
 * every row either fully embedded or still waiting, and the next run carries on.
 */
import {
  type LocalStore,
  type PendingRow,
  rowsPendingVectors,
  storePendingVectors,
  textsOfPending,
} from "../local/index.js";
import type { Embedder } from "../models/index.js";

/** Progress of a backfill. */
export interface BackfillProgress {
  done: number;
  total: number;
  /** Chunks per second so far. */
  rate: number;
}

/** Options of one backfill run. */
export interface BackfillOptions {
  /** Stop starting new steps after this many ms; null runs to the end. */
  budgetMs: number | null;
  now: () => number;
  onProgress?: ((p: BackfillProgress) => void) | undefined;
  /**
   * Called after each vector write with the rows written so far (index upkeep as the backfill goes).
   * Resolves "relist" when it moved rows (a compaction): the waiting rows are listed again; "stop" ends
   * the run there (index upkeep due that the caller runs elsewhere).
   */
  afterWrite?: ((embedded: number) => Promise<AfterWrite>) | undefined;
}

/** What a backfill does after one of its writes. */
export type AfterWrite = "continue" | "relist" | "stop";

/** What a backfill did. */
export interface BackfillResult {
  embedded: number;
  remaining: number;
  seconds: number;
  /** True when `afterWrite` stopped it. */
  stopped: boolean;
}

/** Texts embedded per step (one embedder call, batched by length inside it; the budget is checked between steps). */
const STEP = 128;
/** Vectors written per commit: few commits (fragments), and little lost work if killed. */
const WRITE_EVERY = 1024;

const TIER: Record<string, number> = { tool_use: 1, tool_result: 2 };

/** The order rows are embedded in: newest session first, then text before tool_use before tool_result. */
export function backfillOrder(rows: PendingRow[]): PendingRow[] {
  const newest = new Map<string, string>();
  for (const r of rows) if ((newest.get(r.sessionId) ?? "") < r.ts) newest.set(r.sessionId, r.ts);
  const key = (r: PendingRow) => newest.get(r.sessionId) ?? "";
  return [...rows].sort(
    (a, b) =>
      (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0) ||
      (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0) ||
      (TIER[a.blockType] ?? 0) - (TIER[b.blockType] ?? 0),
  );
}

/** Embeds waiting rows until done or out of budget. */
export async function backfillVectors(
  store: LocalStore,
  embedder: Embedder,
  opts: BackfillOptions,
): Promise<BackfillResult> {
  const start = opts.now();
  let order = backfillOrder(await rowsPendingVectors(store));
  const total = order.length;
  let pending = new Map<string, Float32Array>();
  let embedded = 0;
  let i = 0;
  // Rows before `written` are written (or were absent): a flush writes order[written, i).
  let written = 0;
  // Texts are read a write-batch at a time (one Lance call each, taken by row location).
  let texts = new Map<string, string>();
  let stopped = false;
  const flush = async () => {
    embedded += await storePendingVectors(store, order.slice(written, i), pending);
    written = i;
    pending = new Map();
    const next = opts.afterWrite === undefined ? "continue" : await opts.afterWrite(embedded);
    if (next === "stop") stopped = true;
    if (next !== "relist") return;
    // Rows moved: the rest are listed again where they are now (in the same order), the old list dropped
    // first (at 1M rows it is ≈ 150 MB).
    order = [];
    texts = new Map();
    order = backfillOrder(await rowsPendingVectors(store));
    i = 0;
    written = 0;
  };
  while (i < order.length && !stopped) {
    if (opts.budgetMs !== null && opts.now() - start >= opts.budgetMs) break;
    const ids = order.slice(i, i + STEP).map((r) => r.id);
    if (ids.some((id) => !texts.has(id)))
      texts = await textsOfPending(store, order.slice(i, i + WRITE_EVERY));
    i += ids.length;
    const present = ids.filter((id) => texts.has(id));
    const vecs = await embedder.embed(present.map((id) => texts.get(id) as string));
    present.forEach((id, k) => {
      pending.set(id, vecs[k] as Float32Array);
    });
    if (pending.size >= WRITE_EVERY) await flush();
    const secs = (opts.now() - start) / 1000;
    opts.onProgress?.({
      done: embedded + pending.size,
      total,
      rate: secs > 0 ? (embedded + pending.size) / secs : 0,
    });
  }
  if (pending.size > 0) await flush();
  return { embedded, remaining: total - embedded, seconds: (opts.now() - start) / 1000, stopped };
}
