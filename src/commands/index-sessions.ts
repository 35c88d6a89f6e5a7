/**
 * `funes index`: transcripts to the local memory, text first. Every owed unit is parsed, elided, redacted,
 * chunked and stored without a vector, so it is keyword-searchable as soon as the run ends; vectors are
 * filled in later. Incremental by construction: units whose signature is unchanged are not read, and chunk
 * ids already stored are not written again. A unit is recorded in state.json only after its chunks are in
 * the table, so a run killed at any point leaves a valid memory and the next run finishes the job.
 */
import { ALL_TIERS, type Chunk, chunkTurns, elideDataUris, injectedChunkIds } from "../chunk/index.js";
import { countRows, diskFullOf, LocalStore, replaceChunks, type VectorIndexRules } from "../local/index.js";
import {
  type AfterWrite,
  backfillVectors,
  funesPaths,
  isUnitCurrent,
  loadIndexState,
  readForgotten,
  resolveSources,
  saveIndexState,
  type UnitState,
  withWriterLock,
} from "../memory/index.js";
import { type ModelsConfig, openEmbedder } from "../models/index.js";
import { redactTexts } from "../redact/index.js";
import {
  type AgentDirs,
  type Harness,
  mergeSkips,
  RepoFacets,
  type Session,
  type SkipCounts,
  type TraceSource,
  type Turn,
  type Unit,
} from "../traces/index.js";
import { FunesError, withoutSourcePaths } from "./errors.js";

/** What to index and how. */
export interface IndexOptions {
  /** `$FUNES_HOME`. */
  funesHome: string;
  /** The user's home, for the known agent directories. */
  home: string;
  /** Agent folders their own variables moved (`CODEX_HOME`, …). */
  agentDirs?: AgentDirs | undefined;
  /**
   * A transcript file, directory, `state.db` or `.parquet`, or a Hub agent-traces dataset (`owner/name`);
   * absent → every known agent directory.
   */
  path?: string | undefined;
  harness?: Harness | undefined;
  /** Re-read every unit whatever state.json says (stored ids keep the memory free of duplicates). */
  force?: boolean | undefined;
  /** Newest N units per source. */
  limit?: number | undefined;
  /** False drops thinking blocks. */
  thinking: boolean;
  onEvent?: ((e: IndexEvent) => void) | undefined;
  /** Where the embedder is; absent → text only. */
  models?: ModelsConfig | undefined;
  /** Time for the vector backfill, ms; null finishes it (`--yes`). */
  vectorBudgetMs?: number | null | undefined;
  now?: (() => number) | undefined;
  /** Runs the backfill of a large memory in fresh processes (absent: in this one). */
  isolate?: Isolation | undefined;
}

/**
 * A step of an index run on a large memory, in a fresh process: the text pass, an embedding run, a vector
 * index step, the closing indexes. Lance's index upkeep on a large memory (training, folding, compacting
 * with index remaps) takes ≈ 0.7 KB of transient memory per indexed row, and the allocator keeps what it
 * freed for the process's life: in one process a 1M-chunk backfill ratchets past 2 GB. Each step here runs
 * in its own short-lived process, which gives it all back on exit.
 */
export type IsolatedStep =
  | { kind: "text"; funesHome: string; text: TextPassOptions }
  | {
      kind: "embed";
      funesHome: string;
      models: ModelsConfig;
      /** ms; null: until done or a step of index upkeep is due. */
      budgetMs: number | null;
      indexRules?: IndexRules | undefined;
    }
  | {
      kind: "maintain";
      funesHome: string;
      /** After the last embedding: compaction and the text index too. */
      final: boolean;
      indexRules?: IndexRules | undefined;
    };

/** The vector index's rules at another scale (tests); absent, the product's. */
export type IndexRules = Partial<VectorIndexRules> & { minRows?: number };

/** What an isolated step did. */
export type IsolatedResult =
  | { kind: "text"; summary: IndexSummary; finish: boolean; waiting: number }
  | { kind: "embedded"; model: string; embedded: number; due: boolean }
  | { kind: "keyword-only"; reason: string }
  | { kind: "maintained" };

/** How the caller runs isolated steps (cli/index-worker.ts), and from what size. */
export interface Isolation {
  /** Rows of the table from which the backfill is isolated. */
  fromRows: number;
  run: (step: IsolatedStep, emit: (e: IndexEvent) => void) => Promise<IsolatedResult>;
}

/** Progress, as it happens. */
export type IndexEvent =
  | { kind: "source"; description: string; units: number; owed: number }
  | { kind: "source-failed"; description: string; reason: string }
  | {
      kind: "unit";
      done: number;
      total: number;
      /** Bytes of the units read so far and of all owed units (files; 0 when a source has no sizes). */
      bytesDone: number;
      bytesTotal: number;
      label: string;
      added: number;
      present: number;
    }
  | { kind: "note"; text: string }
  | { kind: "unit-failed"; done: number; total: number; key: string; reason: string }
  | { kind: "redacted"; sessionId: string; counts: Record<string, number> }
  | { kind: "state-discarded"; path: string }
  | { kind: "text-index"; action: "built" | "rebuilt" }
  | { kind: "vector-index"; action: "built" | "rebuilt" | "folded"; seconds: number }
  | { kind: "keyword-only"; reason: string }
  | { kind: "embedding"; done: number; total: number; rate: number };

/** What a run did. */
export interface IndexSummary {
  memory: string;
  /** Units read this run and units skipped as unchanged. */
  unitsRead: number;
  unitsUnchanged: number;
  /** Distinct sessions (agent and id) that yielded at least one chunk. */
  sessions: number;
  /** Sessions by agent (`claude_code`, `codex`, …). */
  sessionsByHarness: Record<string, number>;
  turns: number;
  chunksAdded: number;
  /** Chunks already in the memory before this run. */
  chunksPresent: number;
  /** Chunks whose id came up again within this run (a transcript repeating itself), stored once. */
  chunksRepeated: number;
  /** Rows of agent-injected text an older run stored, removed now that it is recognised. */
  boilerplateRemoved: number;
  /** Bytes of transcript read. */
  bytesRead: number;
  /** Things a person should know that are not failures (an empty file given). */
  notes: string[];
  /** Lines or records passed over, by reason. */
  skipped: SkipCounts;
  failed: { key: string; reason: string }[];
  redacted: Record<string, number>;
  vectors: VectorSummary;
}

/** What the backfill did. */
export interface VectorSummary {
  /** `repo@revision` of the embedder used, or null when none was available. */
  model: string | null;
  embedded: number;
  /** Rows still without a vector. */
  remaining: number;
  seconds: number;
}

/** Default time for the vector backfill (the reference's budget), ms. */
export const DEFAULT_VECTOR_BUDGET_MS = 60_000;

/** Chunks buffered before one append (one Lance fragment). */
const FLUSH_CHUNKS = 16_384;

/** Turns cleaned and chunked at a time (bounds the memory a single huge transcript takes). */
const TURN_SLICE = 500;

/** Chunks buffered within one large unit before an append: smaller, since the unit's text is held too. */
const UNIT_FLUSH_CHUNKS = 2_048;

/** Runs an index pass. Throws FunesError when nothing could be read or another writer holds the lock. */
export async function indexSessions(opts: IndexOptions): Promise<IndexSummary> {
  const paths = funesPaths(opts.funesHome);
  const resolved = resolveSources(opts);
  if (resolved.kind === "note") return noteOnly(paths.memory, resolved.text, opts.onEvent);
  return withWriterLock(opts.funesHome, async () => {
    const iso = await isolationOfMemory(paths.memory, opts);
    return iso === undefined ? runLocked(opts, resolved, paths) : runIsolated(iso, opts);
  });
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
    agentDirs: opts.agentDirs,
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

/** What a text pass in a worker is given (IndexOptions as plain data). */
export type TextPassOptions = Pick<
  IndexOptions,
  "home" | "agentDirs" | "path" | "harness" | "force" | "limit" | "thinking" | "models"
>;

/** A text pass in this process, for a worker: its summary, and whether the indexes are owed upkeep. */
async function textPassStep(
  funesHome: string,
  text: TextPassOptions,
  emit: (e: IndexEvent) => void,
): Promise<IsolatedResult> {
  const opts: IndexOptions = { ...text, funesHome, onEvent: emit };
  const paths = funesPaths(funesHome);
  const resolved = resolveSources(opts);
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

function emptySummary(memory: string): IndexSummary {
  return {
    memory,
    unitsRead: 0,
    unitsUnchanged: 0,
    sessions: 0,
    sessionsByHarness: {},
    turns: 0,
    chunksAdded: 0,
    chunksPresent: 0,
    chunksRepeated: 0,
    boilerplateRemoved: 0,
    bytesRead: 0,
    skipped: {},
    failed: [],
    redacted: {},
    notes: [],
    vectors: { model: null, embedded: 0, remaining: 0, seconds: 0 },
  };
}

/** A run with nothing to read (an empty file): a note, no lock, no memory touched. */
function noteOnly(memory: string, text: string, onEvent: IndexOptions["onEvent"]): IndexSummary {
  onEvent?.({ kind: "note", text });
  const summary = emptySummary(memory);
  summary.notes.push(text);
  return summary;
}

/** What one index run carries from unit to unit. */
interface IndexRun {
  opts: IndexOptions;
  store: LocalStore;
  statePath: string;
  /** Units recorded as indexed. */
  state: Map<string, UnitState>;
  /** Ids stored (and forgotten): never appended again. */
  stored: Set<string>;
  summary: IndexSummary;
  emit: (e: IndexEvent) => void;
  facets: RepoFacets;
  sessionKeys: Set<string>;
  /** Ids chunked by this run (a chunk met twice is counted as repeated). */
  ranThisRun: Set<string>;
  buffer: Chunk[];
  /** The append under way, if any: one at a time, while the next units are read and cleaned. */
  appending: Promise<void>;
  /** Units whose chunks are all buffered: recorded once the buffer is in the table. */
  recordAfterFlush: { key: string; entry: UnitState }[];
}

/** A unit to read, and the source that reads it. */
interface Work {
  source: TraceSource;
  unit: Unit;
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

/** Reads every owed unit into the memory (the text pass); the memory is left open in the run. */
async function textPass(
  opts: IndexOptions,
  resolved: { sources: TraceSource[]; hubGuess: string | null },
  paths: ReturnType<typeof funesPaths>,
): Promise<IndexRun> {
  try {
    return await readSources(opts, resolved, paths);
  } finally {
    // A database source holds a private copy of the database until closed.
    for (const source of resolved.sources) source.close?.();
  }
}

async function readSources(
  opts: IndexOptions,
  resolved: { sources: TraceSource[]; hubGuess: string | null },
  paths: ReturnType<typeof funesPaths>,
): Promise<IndexRun> {
  const run = await openRun(opts, paths);
  const work = await listWork(run, resolved);
  const bytesTotal = work.reduce((n, w) => n + (w.unit.bytes ?? 0), 0);
  let bytesDone = 0;
  for (const [i, w] of work.entries()) {
    bytesDone += w.unit.bytes ?? 0;
    await indexUnit(run, w, { done: i + 1, total: work.length, bytesDone, bytesTotal });
    if (run.buffer.length >= FLUSH_CHUNKS) await flush(run);
  }
  const { summary } = run;
  summary.sessions = run.sessionKeys.size;
  await flush(run);
  if (work.length > 0 && summary.unitsRead === 0) {
    run.store.close();
    throw new FunesError(
      "unreadable_source",
      `none of ${work.length} session(s) could be read: ${summary.failed[0]?.reason ?? ""} — fix what it names, then run \`funes index\` again`,
    );
  }
  return run;
}

/** Opens (or creates) the memory and the state of what is indexed already. */
async function openRun(opts: IndexOptions, paths: ReturnType<typeof funesPaths>): Promise<IndexRun> {
  const emit = opts.onEvent ?? (() => {});
  const existed = await LocalStore.open(paths.memory, { writer: true });
  const store = existed ?? (await LocalStore.openOrCreate(paths.memory, { writer: true }));
  // A memory that was deleted must be rebuilt whole, whatever state.json remembers.
  const loaded =
    existed === null ? { units: new Map<string, UnitState>(), discarded: null } : loadIndexState(paths.state);
  if (loaded.discarded !== null) emit({ kind: "state-discarded", path: paths.state });
  const stored = await store.ids();
  // Chunks `funes forget` took out count as stored: a re-index never brings them back.
  for (const id of readForgotten(opts.funesHome).keys()) stored.add(id);
  return {
    opts,
    store,
    statePath: paths.state,
    state: loaded.units,
    stored,
    summary: emptySummary(paths.memory),
    emit,
    facets: new RepoFacets(),
    sessionKeys: new Set(),
    ranThisRun: new Set(),
    buffer: [],
    appending: Promise.resolve(),
    recordAfterFlush: [],
  };
}

/**
 * The units to read: every source's units not indexed as they are now (all of them with --force). A source
 * that cannot be listed is the run's failure when it is the only one, else a warning.
 */
async function listWork(
  run: IndexRun,
  resolved: { sources: TraceSource[]; hubGuess: string | null },
): Promise<Work[]> {
  const { sources } = resolved;
  const { opts, emit, summary } = run;
  const work: Work[] = [];
  const sourceErrors: string[] = [];
  for (const source of sources) {
    let units: Unit[];
    try {
      units = await source.listUnits(opts.limit);
    } catch (err) {
      const reason = errorText(err);
      if (sources.length === 1) {
        const what =
          resolved.hubGuess !== null
            ? `no local file or folder "${opts.path}", and as a Hub dataset: ${reason}`
            : `${source.description}: ${reason}`;
        throw new FunesError("unreadable_source", what, err);
      }
      sourceErrors.push(reason);
      emit({ kind: "source-failed", description: source.description, reason });
      continue;
    }
    const reader = { harness: source.kind, parser: source.parserVersion ?? 1 };
    const owed =
      opts.force === true
        ? units
        : units.filter((u) => !isUnitCurrent(run.state, u.key, u.signature, reader));
    summary.unitsUnchanged += units.length - owed.length;
    emit({ kind: "source", description: source.description, units: units.length, owed: owed.length });
    for (const unit of owed) work.push({ source, unit });
  }
  if (sourceErrors.length === sources.length)
    throw new FunesError(
      "unreadable_source",
      `no session source could be read: ${sourceErrors.join("; ")} — fix what it names, then run \`funes index\` again`,
    );
  return work;
}

/**
 * Starts appending the buffered chunks once the append before it is done. Lance writes on its own threads,
 * so the run reads and cleans the next units meanwhile (on real transcripts the main thread otherwise
 * waits on Lance for a fifth of the pass). A failed append fails the run at the next wait.
 */
async function appendBuffer(run: IndexRun): Promise<void> {
  await run.appending;
  const batch = run.buffer;
  run.buffer = [];
  const appending = run.store.append(batch).then(() => {
    run.summary.chunksAdded += batch.length;
  });
  // Awaited later; until then a rejection must not count as unhandled (it would end the process).
  appending.catch(() => {});
  run.appending = appending;
}

/** Appends the buffered chunks and waits for every append, then records the units they complete. */
async function flush(run: IndexRun): Promise<void> {
  await appendBuffer(run);
  await run.appending;
  for (const { key, entry } of run.recordAfterFlush) run.state.set(key, entry);
  run.recordAfterFlush = [];
  await saveIndexState(run.statePath, run.state);
}

/** Reads one unit and buffers its new chunks; a unit that cannot be read is counted as failed. */
async function indexUnit(
  run: IndexRun,
  { source, unit }: Work,
  progress: { done: number; total: number; bytesDone: number; bytesTotal: number },
): Promise<void> {
  const { summary, emit } = run;
  let read: Awaited<ReturnType<TraceSource["readUnit"]>>;
  try {
    read = await source.readUnit(unit);
  } catch (err) {
    const reason = errorText(err);
    summary.failed.push({ key: unit.key, reason });
    emit({ kind: "unit-failed", done: progress.done, total: progress.total, key: unit.key, reason });
    return;
  }
  summary.unitsRead++;
  summary.bytesRead += unit.bytes ?? 0;
  mergeSkips(summary.skipped, read.skipped);
  let added = 0;
  let present = 0;
  const stale: string[] = [];
  for (const session of read.sessions) {
    const counts = await chunkSession(run, session, source, stale);
    added += counts.added;
    present += counts.present;
  }
  summary.chunksPresent += present;
  if (stale.length > 0) {
    await run.appending;
    await replaceChunks(run.store, stale, []);
    for (const id of stale) run.stored.delete(id);
    summary.boilerplateRemoved += stale.length;
  }
  if (unit.signature !== null)
    run.recordAfterFlush.push({
      key: unit.key,
      entry: {
        sig: unit.signature,
        level: "ToolResult",
        harness: source.kind,
        parser: source.parserVersion ?? 1,
        chunks: added + present,
      },
    });
  emit({
    kind: "unit",
    ...progress,
    label: unitLabel(unit, read.sessions),
    added,
    present,
  });
}

/**
 * Cleans and chunks one session a slice of turns at a time, buffering chunks not stored yet; ids of rows an
 * older funes stored for agent-injected text go to `stale`. Counts the session once per agent.
 */
async function chunkSession(
  run: IndexRun,
  session: Session,
  source: TraceSource,
  stale: string[],
): Promise<{ added: number; present: number }> {
  const { summary, stored } = run;
  let added = 0;
  let present = 0;
  summary.turns += session.turns.length;
  const repo = await run.facets.of(session.cwd);
  const redacted: Record<string, number> = {};
  let yielded = 0;
  // A slice of turns at a time: a 50 MB transcript is never held as text, redacted text and chunks at
  // once, and its chunks go to the table in bounded appends (state is recorded only once all are in).
  for (let i = 0; i < session.turns.length; i += TURN_SLICE) {
    const slice = session.turns.slice(i, i + TURN_SLICE);
    for (const [rule, n] of Object.entries(await cleanTurns(slice)))
      redacted[rule] = (redacted[rule] ?? 0) + n;
    // Rows an older funes stored for agent-injected text go, now that it is recognised.
    for (const id of injectedChunkIds(slice)) if (stored.has(id)) stale.push(id);
    for (const c of chunkTurns(slice, { tiers: ALL_TIERS, thinking: run.opts.thinking, repo })) {
      yielded++;
      if (run.ranThisRun.has(c.id)) {
        summary.chunksRepeated++;
        continue;
      }
      run.ranThisRun.add(c.id);
      if (stored.has(c.id)) {
        present++;
        continue;
      }
      stored.add(c.id);
      run.buffer.push(c);
      added++;
    }
    // The slice's text now lives in its chunks.
    for (const t of slice) t.blocks = [];
    if (run.buffer.length >= UNIT_FLUSH_CHUNKS) await appendBuffer(run);
  }
  if (Object.keys(redacted).length > 0) {
    run.emit({ kind: "redacted", sessionId: session.sessionId, counts: redacted });
    for (const [rule, n] of Object.entries(redacted))
      summary.redacted[rule] = (summary.redacted[rule] ?? 0) + n;
  }
  // Sessions are keyed by agent and id: two agents' sessions with one file stem are two sessions.
  const harness = session.turns[0]?.harness ?? source.kind;
  const key = `${harness}\u0000${session.sessionId}`;
  if (yielded > 0 && !run.sessionKeys.has(key)) {
    run.sessionKeys.add(key);
    summary.sessionsByHarness[harness] = (summary.sessionsByHarness[harness] ?? 0) + 1;
  }
  return { added, present };
}

/** The vector backfill after the text pass; without a usable embedder, says so once and stays keyword-only. */
async function embedPending(
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
async function finishIndexes(
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
async function maintainVectorIndexStep(
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
async function upkeepOwed(summary: IndexSummary, store: LocalStore): Promise<boolean> {
  return summary.chunksAdded > 0 || summary.boilerplateRemoved > 0 || (await store.textIndexDue());
}

/** The isolation to run this memory's backfill under, if it is large enough for one. */
async function isolationFor(
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
async function embedIsolated(
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
        // Stops where upkeep is due: it runs in a process of its own, before the next step embeds again.
        afterWrite: async (n) => {
          const rules = step.indexRules ?? {};
          const plan = await store.planVectorIndex(rules.minRows, { ...rules, vectors: before + n });
          return plan.step === "build" || plan.step === "rebuild" || plan.step === "fold"
            ? "stop"
            : "continue";
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
  } finally {
    store.close();
  }
}

/** Elides `data:` payloads and redacts secrets in every block of these turns, in place. */
async function cleanTurns(turns: Turn[]): Promise<Record<string, number>> {
  const blocks = turns.flatMap((t) => t.blocks);
  for (const b of blocks) b.text = elideDataUris(b.text);
  const r = await redactTexts(blocks.map((b) => b.text));
  if (Object.keys(r.counts).length > 0)
    blocks.forEach((b, i) => {
      b.text = r.texts[i] ?? b.text;
    });
  return r.counts;
}

function unitLabel(unit: Unit, sessions: Session[]): string {
  const only = sessions.length === 1 ? sessions[0] : undefined;
  if (only !== undefined) return `${only.sessionId} (${only.workdir})`;
  return sessions.length === 0 ? unit.key : `${sessions.length} sessions`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
