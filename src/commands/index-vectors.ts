/**
 * The vector backfill after an index run's text pass: rows waiting for a vector embedded under a time
 * budget, newest first, the vector index trained or folded as they come, the text index rebuilt after them.
 * A large memory's backfill runs as a series of steps in worker processes (`Isolation`), each in a fresh
 * process so that what Lance's index upkeep holds goes back on exit.
 */
import { countRows, diskFullOf, type LocalStore } from "../local/index.js";
import { type AfterWrite, backfillVectors } from "../memory/index.js";
import { openEmbedder } from "../models/index.js";
import { withoutSourcePaths } from "./errors.js";
import {
  DEFAULT_VECTOR_BUDGET_MS,
  type IndexEvent,
  type IndexOptions,
  type IndexRules,
  type IndexSummary,
  type IsolatedResult,
  type IsolatedStep,
  type Isolation,
  type VectorSummary,
} from "./index-types.js";

/** The vector backfill after the text pass; without a usable embedder, says so once and stays keyword-only. */
export async function embedPending(
  store: LocalStore,
  opts: Pick<IndexOptions, "funesHome" | "models" | "vectorBudgetMs" | "now" | "isolate">,
  emit: (e: IndexEvent) => void,
): Promise<VectorSummary> {
  const waiting = async () => countRows(store, { waitingForVectors: true });
  if (opts.models === undefined) return { model: null, embedded: 0, remaining: await waiting(), seconds: 0 };
  const remaining = await waiting();
  if (remaining === 0) return { model: null, embedded: 0, remaining: 0, seconds: 0 };
  const isolated = await isolationFor(store, opts);
  if (isolated !== undefined) return embedIsolated(isolated, remaining, opts, emit, false);
  const opened = await openEmbedder(opts.models);
  if (opened.kind === "missing") {
    emit({ kind: "keyword-only", reason: opened.reason });
    return { model: null, embedded: 0, remaining, seconds: 0 };
  }
  const { embedder } = opened;
  // Closed once the vectors are written: a real model's session is not held through the indexes.
  let closed: Promise<void> | null = null;
  const close = () => {
    closed ??= embedder.close();
    return closed;
  };
  // Rows with a vector so far: the vector index's rules count them, and the backfill knows how many it adds.
  const before = (await countRows(store)) - remaining;
  try {
    // A large memory's vector index is trained as soon as enough rows have vectors (on those rows: a
    // bounded build), then folded as the backfill goes on, so no step of a run holds every vector
    // (local/store.ts). A fold compacts the table, after which the backfill lists its rows again.
    const r = await backfillVectors(store, embedder, {
      budgetMs: opts.vectorBudgetMs === undefined ? DEFAULT_VECTOR_BUDGET_MS : opts.vectorBudgetMs,
      now: opts.now ?? (() => performance.now()),
      onProgress: (p) => emit({ kind: "embedding", ...p }),
      afterWrite: async (embedded): Promise<AfterWrite> =>
        (await maintainVectorIndexStep(store, emit, { vectors: before + embedded })) === "folded"
          ? "relist"
          : "continue",
    });
    await close();
    await finishIndexes(store, emit);
    return {
      model: opened.label,
      embedded: r.embedded,
      remaining: r.remaining,
      seconds: r.seconds,
    };
  } catch (err) {
    // A full disk is no fault of the embedder: the run fails with its own meaning.
    if (diskFullOf(err) !== null) throw err;
    emit({ kind: "keyword-only", reason: embeddingFailed(opened.dir, err) });
    return { model: null, embedded: 0, remaining: await waiting(), seconds: 0 };
  } finally {
    await close();
  }
}

/**
 * After the vectors: small fragments merged, the text index rebuilt (vector writes rewrite rows, which
 * leaves them outside it), the vector index trained or folded as due.
 */
export async function finishIndexes(
  store: LocalStore,
  emit: (e: IndexEvent) => void,
  rules: IndexRules = {},
): Promise<void> {
  await store.compactIfFragmented();
  const action = await store.maintainTextIndex();
  if (action !== "current") emit({ kind: "text-index", action });
  await maintainVectorIndexStep(store, emit, rules);
}

/** One vector index step as due (see `LocalStore.maintainVectorIndex`), reported; returns what it did. */
export async function maintainVectorIndexStep(
  store: LocalStore,
  emit: (e: IndexEvent) => void,
  rules: IndexRules = {},
): Promise<Awaited<ReturnType<LocalStore["maintainVectorIndex"]>>> {
  const t0 = performance.now();
  const action = await store.maintainVectorIndex(rules.minRows, rules);
  if (action === "built" || action === "rebuilt" || action === "folded")
    emit({ kind: "vector-index", action, seconds: (performance.now() - t0) / 1000 });
  return action;
}

/**
 * A model that loads but fails on some input (say, a tokenizer from another model) must not fail the run:
 * the text is stored, vectors already written stay, the rest wait for a working model.
 */
function embeddingFailed(dir: string, err: unknown): string {
  const msg = withoutSourcePaths(err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err));
  return `embedding failed in "${dir}": ${msg} — replace the folder (\`funes models pull\`)`;
}

/** Whether the closing index step is owed after a text pass that left the text index to it. */
export async function upkeepOwed(summary: IndexSummary, store: LocalStore): Promise<boolean> {
  return summary.chunksAdded > 0 || summary.boilerplateRemoved > 0 || (await store.textIndexDue());
}

/** The isolation to run this memory's backfill under, if it is large enough for one. */
export async function isolationFor(
  store: LocalStore,
  opts: Pick<IndexOptions, "isolate">,
): Promise<Isolation | undefined> {
  if (opts.isolate === undefined) return undefined;
  return (await countRows(store)) >= opts.isolate.fromRows ? opts.isolate : undefined;
}

/**
 * The backfill of a large memory as a series of isolated steps: embed until a step of vector index upkeep
 * is due (or the budget ends), run that step, embed again; the closing upkeep last (always when
 * `finish`: the caller left the text index to it). This process only waits, so its own memory stays what
 * the text pass left.
 */
export async function embedIsolated(
  iso: Isolation,
  total: number,
  opts: Pick<IndexOptions, "funesHome" | "models" | "vectorBudgetMs" | "now">,
  emit: (e: IndexEvent) => void,
  finish: boolean,
): Promise<VectorSummary> {
  const now = opts.now ?? (() => performance.now());
  const start = now();
  const budget = opts.vectorBudgetMs === undefined ? DEFAULT_VECTOR_BUDGET_MS : opts.vectorBudgetMs;
  let embedded = 0;
  let model: string | null = null;
  const progress = (e: IndexEvent) => {
    if (e.kind !== "embedding") return emit(e);
    const secs = (now() - start) / 1000;
    emit({
      kind: "embedding",
      done: embedded + e.done,
      total,
      rate: secs > 0 ? (embedded + e.done) / secs : 0,
    });
  };
  try {
    const models = opts.models;
    while (models !== undefined && total > embedded) {
      const left = budget === null ? null : budget - (now() - start);
      if (left !== null && left <= 0) break;
      const step = { kind: "embed", funesHome: opts.funesHome, models, budgetMs: left } as const;
      const r = await iso.run(step, progress);
      if (r.kind === "keyword-only") {
        emit({ kind: "keyword-only", reason: r.reason });
        break;
      }
      if (r.kind !== "embedded") break;
      embedded += r.embedded;
      model = r.model;
      if (!r.due) break;
      await iso.run({ kind: "maintain", funesHome: opts.funesHome, final: false }, emit);
    }
    if (embedded > 0 || finish)
      await iso.run({ kind: "maintain", funesHome: opts.funesHome, final: true }, emit);
  } catch (err) {
    // The text is stored and every vector written stays: the next run carries on from there.
    const msg = err instanceof Error ? err.message : String(err);
    emit({ kind: "keyword-only", reason: `${msg} — run \`funes index\` again to carry on` });
  }
  // One writer (the lock): what waits now is what waited less what was embedded.
  return { model, embedded, remaining: total - embedded, seconds: (now() - start) / 1000 };
}

/**
 * An embedding step of a large memory's backfill, in a worker: embeds until a step of vector index upkeep
 * is due (which runs in a process of its own, before the next step embeds again) or the budget ends.
 */
export async function embedStep(
  store: LocalStore,
  step: Extract<IsolatedStep, { kind: "embed" }>,
  emit: (e: IndexEvent) => void,
): Promise<IsolatedResult> {
  const opened = await openEmbedder(step.models);
  if (opened.kind === "missing") return { kind: "keyword-only", reason: opened.reason };
  const { embedder } = opened;
  try {
    const remaining = await countRows(store, { waitingForVectors: true });
    const before = (await countRows(store)) - remaining;
    const r = await backfillVectors(store, embedder, {
      budgetMs: step.budgetMs,
      now: () => performance.now(),
      onProgress: (p) => emit({ kind: "embedding", ...p }),
      afterWrite: async (n) => {
        const rules = step.indexRules ?? {};
        const plan = await store.planVectorIndex(rules.minRows, { ...rules, vectors: before + n });
        return plan.step === "build" || plan.step === "rebuild" || plan.step === "fold" ? "stop" : "continue";
      },
    });
    return {
      kind: "embedded",
      model: opened.label,
      embedded: r.embedded,
      due: r.stopped,
    };
  } catch (err) {
    if (diskFullOf(err) !== null) throw err;
    return { kind: "keyword-only", reason: embeddingFailed(opened.dir, err) };
  } finally {
    await embedder.close();
  }
}
