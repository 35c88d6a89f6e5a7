/**
 * `funes index`: transcripts to the local memory, text first. Every owed unit is parsed, elided, redacted,
 * chunked and stored without a vector, so it is keyword-searchable as soon as the run ends; vectors are
 * filled in later. Incremental by construction: units whose signature is unchanged are not read, and chunk
 * ids already stored are not written again. A unit is recorded in state.json only after its chunks are in
 * the table, so a run killed at any point leaves a valid memory and the next run finishes the job.
 */
import { countRows, LocalStore, storeExists } from "../local/index.js";
import { funesPaths, type Resolved, resolveSources, withWriterLock } from "../memory/index.js";
import type { TraceSource } from "../traces/index.js";
import { FunesError } from "./errors.js";
import { textPass } from "./index-text-pass.js";
import {
  type IndexEvent,
  type IndexOptions,
  type IndexSummary,
  type IsolatedResult,
  type IsolatedStep,
  type Isolation,
  noteOnly,
  type TextPassOptions,
  type VectorSummary,
} from "./index-types.js";
import {
  embedIsolated,
  embedPending,
  embedStep,
  finishIndexes,
  isolationFor,
  maintainVectorIndexStep,
  upkeepOwed,
} from "./index-vectors.js";

/** Runs an index pass. Throws FunesError when nothing could be read or another writer holds the lock. */
export async function indexSessions(opts: IndexOptions): Promise<IndexSummary> {
  const paths = funesPaths(opts.funesHome);
  const resolved = sourcesOrKept(opts, paths.memory);
  if (resolved.kind === "note") return noteOnly(paths.memory, resolved.text, opts.onEvent);
  return withWriterLock(opts.funesHome, async () => {
    const iso = await isolationOfMemory(paths.memory, opts);
    return iso === undefined ? runLocked(opts, resolved, paths) : runIsolated(iso, opts);
  });
}

/** The sources to read (a note when there is nothing new and the memory keeps what it has). */
function sourcesOrKept(opts: IndexOptions, memory: string): Resolved {
  return resolveSources({ ...opts, kept: opts.path === undefined && storeExists(memory) });
}

/** The isolation for a memory already large enough for one (read before the text pass). */
async function isolationOfMemory(
  memory: string,
  opts: Pick<IndexOptions, "isolate">,
): Promise<Isolation | undefined> {
  if (opts.isolate === undefined) return undefined;
  const store = await LocalStore.open(memory);
  if (store === null) return undefined;
  try {
    return await isolationFor(store, opts);
  } finally {
    store.close();
  }
}

/**
 * A run on a large memory: the text pass in a worker of its own too (what it held, the stored ids and
 * Lance's writes, goes back with it), then the backfill's steps. This process only waits and reports.
 */
async function runIsolated(iso: Isolation, opts: IndexOptions): Promise<IndexSummary> {
  const emit = opts.onEvent ?? (() => {});
  const text: TextPassOptions = {
    home: opts.home,
    agentEnv: opts.agentEnv,
    path: opts.path,
    harness: opts.harness,
    force: opts.force,
    limit: opts.limit,
    thinking: opts.thinking,
    models: opts.models,
  };
  const r = await iso.run({ kind: "text", funesHome: opts.funesHome, text }, emit);
  if (r.kind !== "text") throw new Error(`an index worker answered a text pass with ${r.kind}`);
  // Counts come from the workers: a count of rows waiting for a vector reads the vector column, and what
  // Lance takes for it would stay here.
  r.summary.vectors = await embedIsolated(iso, r.waiting, opts, emit, r.finish);
  return r.summary;
}

/** A text pass in this process, for a worker: its summary, and whether the indexes are owed upkeep. */
async function textPassStep(
  funesHome: string,
  text: TextPassOptions,
  emit: (e: IndexEvent) => void,
): Promise<IsolatedResult> {
  const opts: IndexOptions = { ...text, funesHome, onEvent: emit };
  const paths = funesPaths(funesHome);
  const resolved = sourcesOrKept(opts, paths.memory);
  if (resolved.kind === "note")
    return { kind: "text", summary: noteOnly(paths.memory, resolved.text, emit), finish: false, waiting: 0 };
  const run = await textPass(opts, resolved, paths);
  try {
    const { summary, store } = run;
    return {
      kind: "text",
      summary,
      finish: await upkeepOwed(summary, store),
      waiting: await countRows(store, { waitingForVectors: true }),
    };
  } finally {
    run.store.close();
  }
}

/**
 * Only the vector backfill (no transcripts read), under the writer lock: what a boundary push runs when it
 * does not know the agent. Null when there is no local memory yet.
 */
export async function embedWaiting(
  opts: Pick<IndexOptions, "funesHome" | "models" | "vectorBudgetMs" | "now" | "onEvent" | "isolate">,
): Promise<VectorSummary | null> {
  return withWriterLock(opts.funesHome, async () => {
    const store = await LocalStore.open(funesPaths(opts.funesHome).memory, { writer: true });
    if (store === null) return null;
    try {
      return await embedPending(store, opts, opts.onEvent ?? (() => {}));
    } finally {
      store.close();
    }
  });
}

async function runLocked(
  opts: IndexOptions,
  resolved: { sources: TraceSource[]; hubGuess: string | null },
  paths: ReturnType<typeof funesPaths>,
): Promise<IndexSummary> {
  const run = await textPass(opts, resolved, paths);
  const { summary, store } = run;
  // On a large memory the text index is rebuilt by the closing worker step (after the vectors, whose
  // writes it must cover anyway): rebuilt here, what Lance held for it would stay with this process while
  // the workers run.
  const isolated = await isolationFor(store, opts);
  if (isolated === undefined) {
    const action = await store.maintainTextIndex();
    if (action !== "current") run.emit({ kind: "text-index", action });
  }
  // The id sets only served the text pass (≈ 150 MB each at 1M chunks): the backfill and the indexes
  // after it must not carry them.
  run.stored.clear();
  run.ranThisRun.clear();
  try {
    summary.vectors =
      isolated === undefined
        ? await embedPending(store, opts, run.emit)
        : await embedIsolated(
            isolated,
            await countRows(store, { waitingForVectors: true }),
            opts,
            run.emit,
            await upkeepOwed(summary, store),
          );
  } finally {
    store.close();
  }
  return summary;
}

/**
 * Runs one isolated step in this process (the worker's side of `Isolation.run`). The caller holds the
 * writer lock for the whole run; the step writes under it.
 */
export async function runIsolatedStep(
  step: IsolatedStep,
  emit: (e: IndexEvent) => void,
): Promise<IsolatedResult> {
  if (step.kind === "text") return textPassStep(step.funesHome, step.text, emit);
  const store = await LocalStore.open(funesPaths(step.funesHome).memory, { writer: true });
  if (store === null)
    throw new FunesError(
      "no_memory",
      `no memory in ${funesPaths(step.funesHome).memory} — run \`funes index\` to build it`,
    );
  try {
    if (step.kind === "maintain") {
      if (step.final) await finishIndexes(store, emit, step.indexRules);
      else await maintainVectorIndexStep(store, emit, step.indexRules);
      return { kind: "maintained" };
    }
    return await embedStep(store, step, emit);
  } finally {
    store.close();
  }
}
