/**
 * `funes index`: transcripts to the local memory, text first. Every owed unit is parsed, elided, redacted,
 * chunked and stored without a vector, so it is keyword-searchable as soon as the run ends; vectors are
 * filled in later. Incremental by construction: units whose signature is unchanged are not read, and chunk
 * ids already stored are not written again. A unit is recorded in state.json only after its chunks are in
 * the table, so a run killed at any point leaves a valid memory and the next run finishes the job.
 */
import { existsSync } from "node:fs";
import { ALL_TIERS, type Chunk, chunkTurns, elideDataUris } from "../chunk/index.js";
import { LocalStore } from "../local/index.js";
import {
  forgottenPath,
  funesPaths,
  isUnitCurrent,
  loadIndexState,
  readForgotten,
  saveIndexState,
  type UnitState,
} from "../memory/index.js";
import { type Embedder, loadEmbedder, ModelLoadError } from "../models/index.js";
import { redactTexts } from "../redact/index.js";
import {
  type Harness,
  KNOWN_ROOTS,
  knownSources,
  mergeSkips,
  RepoFacets,
  type Session,
  type SkipCounts,
  sourceForPath,
  type TraceSource,
  type Unit,
} from "../traces/index.js";
import { backfillVectors } from "./backfill.js";
import { FunesError } from "./errors.js";
import { HubTraceSource } from "./hub-traces.js";
import { locateEmbedder, type ModelsConfig } from "./models-config.js";
import { withWriterLock } from "./writer.js";

/** What to index and how. */
export interface IndexOptions {
  /** `$FUNES_HOME`. */
  funesHome: string;
  /** The user's home, for the known agent directories. */
  home: string;
  /**
   * A transcript file, directory, `state.db` or `.parquet`, or a Hub agent-traces dataset (`owner/name`);
   * absent → every known agent directory.
   */
  path?: string | undefined;
  harness?: Harness | undefined;
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
}

/** Progress, as it happens. */
export type IndexEvent =
  | { kind: "source"; description: string; units: number; owed: number }
  | { kind: "source-failed"; description: string; reason: string }
  | { kind: "unit"; done: number; total: number; label: string; added: number; present: number }
  | { kind: "unit-failed"; done: number; total: number; key: string; reason: string }
  | { kind: "redacted"; sessionId: string; counts: Record<string, number> }
  | { kind: "state-discarded"; path: string }
  | { kind: "text-index"; action: "built" | "rebuilt" }
  | { kind: "keyword-only"; reason: string }
  | { kind: "embedding"; done: number; total: number; rate: number };

/** What a run did. */
export interface IndexSummary {
  memory: string;
  /** Units read this run and units skipped as unchanged. */
  unitsRead: number;
  unitsUnchanged: number;
  sessions: number;
  turns: number;
  chunksAdded: number;
  chunksPresent: number;
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

/** Runs an index pass. Throws FunesError when nothing could be read or another writer holds the lock. */
export async function indexSessions(opts: IndexOptions): Promise<IndexSummary> {
  const paths = funesPaths(opts.funesHome);
  const sources = resolveSources(opts);
  return withWriterLock(opts.funesHome, () => runLocked(opts, sources, paths));
}

/** `owner/name` or `hf://datasets/owner/name` that is not a local path: a Hub agent-traces dataset. */
function hubTraceRepo(path: string): string | null {
  if (existsSync(path)) return null;
  const m = /^(?:hf:\/\/datasets\/)?([\w.-]+\/[\w.-]+)\/?$/.exec(path);
  return m === null || /\.(jsonl|json|parquet|db)$/i.test(path) ? null : (m[1] ?? null);
}

function resolveSources(opts: IndexOptions): TraceSource[] {
  const repo = opts.path === undefined ? null : hubTraceRepo(opts.path);
  if (repo !== null) {
    if (opts.models === undefined) throw new FunesError("bad_input", `can't reach the Hub to index ${repo}`);
    const client = { hubUrl: opts.models.hubUrl, token: opts.models.token };
    return [new HubTraceSource({ client, hubCache: opts.models.hubCache, repo })];
  }
  if (opts.path !== undefined) return [sourceForPath(opts.path, opts.harness)];
  const sources = knownSources(opts.home, opts.harness);
  if (sources.length > 0) return sources;
  if (opts.harness !== undefined)
    throw new FunesError("no_sessions", `no ${opts.harness} session dir found on this machine`);
  const looked = KNOWN_ROOTS.map((r) => `~/${r.rel}`).join(", ");
  throw new FunesError("no_sessions", `no local sessions found — looked in ${looked}`);
}

async function runLocked(
  opts: IndexOptions,
  sources: TraceSource[],
  paths: ReturnType<typeof funesPaths>,
): Promise<IndexSummary> {
  const emit = opts.onEvent ?? (() => {});
  const existed = await LocalStore.open(paths.memory);
  const store = existed ?? (await LocalStore.openOrCreate(paths.memory));
  // A memory that was deleted must be rebuilt whole, whatever state.json remembers.
  const loaded =
    existed === null ? { units: new Map<string, UnitState>(), discarded: null } : loadIndexState(paths.state);
  if (loaded.discarded !== null) emit({ kind: "state-discarded", path: paths.state });
  const state = loaded.units;
  const stored = await store.ids();
  // Chunks `funes forget` took out count as stored: a re-index never brings them back.
  for (const id of forgottenIds(opts.funesHome)) stored.add(id);
  const summary: IndexSummary = {
    memory: paths.memory,
    unitsRead: 0,
    unitsUnchanged: 0,
    sessions: 0,
    turns: 0,
    chunksAdded: 0,
    chunksPresent: 0,
    skipped: {},
    failed: [],
    redacted: {},
    vectors: { model: null, embedded: 0, remaining: 0, seconds: 0 },
  };
  const work: { source: TraceSource; unit: Unit }[] = [];
  const sourceErrors: string[] = [];
  for (const source of sources) {
    let units: Unit[];
    try {
      units = await source.listUnits(opts.limit);
    } catch (err) {
      const reason = errorText(err);
      if (sources.length === 1)
        throw new FunesError("unreadable_source", `${source.description}: ${reason}`, err);
      sourceErrors.push(reason);
      emit({ kind: "source-failed", description: source.description, reason });
      continue;
    }
    const owed = units.filter((u) => !isUnitCurrent(state, u.key, u.signature));
    summary.unitsUnchanged += units.length - owed.length;
    emit({ kind: "source", description: source.description, units: units.length, owed: owed.length });
    for (const unit of owed) work.push({ source, unit });
  }
  if (sourceErrors.length === sources.length)
    throw new FunesError("unreadable_source", `no session source could be read: ${sourceErrors.join("; ")}`);

  const facets = new RepoFacets();
  let buffer: Chunk[] = [];
  let recordAfterFlush: { key: string; sig: string }[] = [];
  const flush = async () => {
    await store.append(buffer);
    summary.chunksAdded += buffer.length;
    buffer = [];
    for (const { key, sig } of recordAfterFlush) state.set(key, { sig, level: "ToolResult" });
    recordAfterFlush = [];
    await saveIndexState(paths.state, state);
  };

  let done = 0;
  for (const { source, unit } of work) {
    done++;
    let read: Awaited<ReturnType<TraceSource["readUnit"]>>;
    try {
      read = await source.readUnit(unit);
    } catch (err) {
      const reason = errorText(err);
      summary.failed.push({ key: unit.key, reason });
      emit({ kind: "unit-failed", done, total: work.length, key: unit.key, reason });
      continue;
    }
    summary.unitsRead++;
    mergeSkips(summary.skipped, read.skipped);
    let added = 0;
    let present = 0;
    for (const session of read.sessions) {
      summary.sessions++;
      summary.turns += session.turns.length;
      const redacted = await cleanSession(session);
      if (Object.keys(redacted).length > 0) {
        emit({ kind: "redacted", sessionId: session.sessionId, counts: redacted });
        for (const [rule, n] of Object.entries(redacted))
          summary.redacted[rule] = (summary.redacted[rule] ?? 0) + n;
      }
      const repo = await facets.of(session.cwd);
      for (const c of chunkTurns(session.turns, { tiers: ALL_TIERS, thinking: opts.thinking, repo })) {
        if (stored.has(c.id)) {
          present++;
          continue;
        }
        stored.add(c.id);
        buffer.push(c);
        added++;
      }
    }
    summary.chunksPresent += present;
    if (unit.signature !== null) recordAfterFlush.push({ key: unit.key, sig: unit.signature });
    emit({ kind: "unit", done, total: work.length, label: unitLabel(unit, read.sessions), added, present });
    if (buffer.length >= FLUSH_CHUNKS) await flush();
  }
  await flush();
  if (work.length > 0 && summary.unitsRead === 0)
    throw new FunesError(
      "unreadable_source",
      `none of ${work.length} session(s) could be read: ${summary.failed[0]?.reason ?? ""}`,
    );
  const action = await store.maintainTextIndex();
  if (action !== "current") emit({ kind: "text-index", action });
  try {
    summary.vectors = await embedPending(store, opts, emit);
  } finally {
    store.close();
  }
  return summary;
}

/** The vector backfill after the text pass; without a usable embedder, says so once and stays keyword-only. */
async function embedPending(
  store: LocalStore,
  opts: IndexOptions,
  emit: (e: IndexEvent) => void,
): Promise<VectorSummary> {
  const waiting = async () => store.table.countRows("vector IS NULL");
  if (opts.models === undefined) return { model: null, embedded: 0, remaining: await waiting(), seconds: 0 };
  const remaining = await waiting();
  if (remaining === 0) return { model: null, embedded: 0, remaining: 0, seconds: 0 };
  const where = locateEmbedder(opts.models);
  if (where.kind === "missing") {
    emit({ kind: "keyword-only", reason: where.reason });
    return { model: null, embedded: 0, remaining, seconds: 0 };
  }
  let embedder: Embedder;
  try {
    embedder = await loadEmbedder(where.dir, where.spec, { threads: opts.models.threads });
  } catch (err) {
    if (!(err instanceof ModelLoadError)) throw err;
    emit({ kind: "keyword-only", reason: err.message });
    return { model: null, embedded: 0, remaining, seconds: 0 };
  }
  try {
    const r = await backfillVectors(store, embedder, {
      budgetMs: opts.vectorBudgetMs === undefined ? DEFAULT_VECTOR_BUDGET_MS : opts.vectorBudgetMs,
      now: opts.now ?? (() => performance.now()),
      onProgress: (p) => emit({ kind: "embedding", ...p }),
    });
    await store.compactIfFragmented();
    // Vector writes rewrite rows, which leaves them outside the text index until it is rebuilt.
    const action = await store.maintainTextIndex();
    if (action !== "current") emit({ kind: "text-index", action });
    return {
      model: `${where.spec.repo}@${where.revision}`,
      embedded: r.embedded,
      remaining: r.remaining,
      seconds: r.seconds,
    };
  } catch (err) {
    // A model that loads but fails on some input (say, a tokenizer from another model) must not fail the
    // run: the text is stored, vectors already written stay, the rest wait for a working model.
    const msg = err instanceof Error ? err.message.split("\n")[0] : String(err);
    emit({
      kind: "keyword-only",
      reason: `embedding failed in "${where.dir}": ${msg} — replace the folder (\`funes models pull\`)`,
    });
    return { model: null, embedded: 0, remaining: await waiting(), seconds: 0 };
  } finally {
    await embedder.close();
  }
}

function forgottenIds(funesHome: string): Iterable<string> {
  try {
    return readForgotten(funesHome).keys();
  } catch {
    throw new FunesError(
      "bad_input",
      `${forgottenPath(funesHome)} is damaged — fix or remove it (it lists chunks \`funes forget\` took out), then index again`,
    );
  }
}

/** Elides `data:` payloads and redacts secrets in every block of a session, in place. */
async function cleanSession(session: Session): Promise<Record<string, number>> {
  const blocks = session.turns.flatMap((t) => t.blocks);
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
