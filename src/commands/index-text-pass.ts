/**
 * The text pass of an index run: every owed unit parsed, elided, redacted, chunked and appended without a
 * vector (keyword-searchable as soon as it is in), its state recorded only once its chunks are in the table.
 */
import { ALL_TIERS, type Chunk, chunkTurns, elideDataUris, injectedChunkIds } from "../chunk/index.js";
import { LocalStore, replaceChunks } from "../local/index.js";
import {
  type funesPaths,
  isUnitCurrent,
  loadIndexState,
  readForgotten,
  saveIndexState,
  type UnitState,
} from "../memory/index.js";
import { redactTexts } from "../redact/index.js";
import {
  mergeSkips,
  RepoFacets,
  type StreamedSession,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
} from "../traces/index.js";
import { FunesError } from "./errors.js";
import { FieldRedactor } from "./index-fields.js";
import { emptySummary, type IndexEvent, type IndexOptions, type IndexSummary } from "./index-types.js";

/** Chunks buffered before one append (one Lance fragment). */
const FLUSH_CHUNKS = 16_384;

/** Turns cleaned and chunked at a time (bounds the memory a single huge transcript takes). */
const TURN_SLICE = 500;

/**
 * Text (UTF-16 units) cleaned and chunked at a time, whatever the turn count: with a source that streams
 * its turns, what a unit holds is this much plus its largest turn, not the whole session.
 */
const SLICE_CHARS = 4 * 1024 * 1024;

/** Unreadable records named in a run's notes (each unit's first few); the rest are only counted. */
const NAMED_RECORDS = 20;

/** Chunks buffered within one large unit before an append: smaller, since the unit's text is held too. */
const UNIT_FLUSH_CHUNKS = 2_048;

/** What one index run carries from unit to unit. */
export interface IndexRun {
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

/** Reads every owed unit into the memory (the text pass); the memory is left open in the run. */
export async function textPass(
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
      `none of ${work.length} session(s) could be read: ${failureText(summary.failed[0])} — fix what it names, then run \`funes index\` again`,
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

/**
 * Reads one unit and buffers its new chunks; a unit that cannot be read is counted as failed. A source that
 * streams its units gives a turn at a time, so a unit's memory is bounded by its largest turn.
 */
async function indexUnit(
  run: IndexRun,
  { source, unit }: Work,
  progress: { done: number; total: number; bytesDone: number; bytesTotal: number },
): Promise<void> {
  const { summary, emit } = run;
  const failed = (err: unknown) => {
    const reason = errorText(err);
    summary.failed.push({ key: unit.key, reason });
    emit({ kind: "unit-failed", done: progress.done, total: progress.total, key: unit.key, reason });
  };
  let sessions: StreamedSession[];
  let info: Omit<UnitRead, "sessions">;
  try {
    const stream = (await source.streamUnit?.(unit)) ?? null;
    if (stream !== null) ({ sessions, read: info } = stream);
    else ({ sessions, ...info } = await source.readUnit(unit));
  } catch (err) {
    failed(err);
    return;
  }
  let added = 0;
  let present = 0;
  const stale: string[] = [];
  try {
    for (const session of sessions) {
      const counts = await chunkSession(run, session, source, stale);
      added += counts.added;
      present += counts.present;
    }
  } catch (err) {
    // A streamed unit failing part way (its file went away): what was buffered is stored, the unit is not
    // recorded, so the next run reads it again (stored ids keep that free of duplicates).
    failed(err);
    return;
  }
  summary.unitsRead++;
  summary.bytesRead += unit.bytes ?? 0;
  mergeSkips(summary.skipped, info.skipped);
  for (const r of info.unreadable ?? [])
    if (summary.notes.length < NAMED_RECORDS)
      summary.notes.push(`${r.at} of ${unit.key} passed over (${r.reason}); the rest of it was read`);
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
    label: unitLabel(unit, sessions),
    added,
    present,
  });
}

/**
 * Cleans and chunks one session a slice of turns at a time (at most {@link TURN_SLICE} turns or
 * {@link SLICE_CHARS} of text, and always whole turns), buffering chunks not stored yet; ids of rows an
 * older funes stored for agent-injected text go to `stale`. Counts the session once per agent.
 */
async function chunkSession(
  run: IndexRun,
  session: StreamedSession,
  source: TraceSource,
  stale: string[],
): Promise<{ added: number; present: number }> {
  const { summary, stored } = run;
  let added = 0;
  let present = 0;
  // The other columns are redacted as the text is: each is published with the row.
  const fields = new FieldRedactor();
  const repo = await fields.repo(await run.facets.of(session.cwd));
  const redacted: Record<string, number> = {};
  let yielded = 0;
  let harness: string | null = null;
  let slice: Turn[] = [];
  let chars = 0;
  // A slice of turns at a time: a large transcript is never held as text, redacted text and chunks at
  // once, and its chunks go to the table in bounded appends (state is recorded only once all are in).
  const chunkSlice = async () => {
    await fields.turns(slice);
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
    slice = [];
    chars = 0;
    if (run.buffer.length >= UNIT_FLUSH_CHUNKS) await appendBuffer(run);
  };
  for (const t of session.turns) {
    summary.turns++;
    harness ??= t.harness;
    slice.push(t);
    for (const b of t.blocks) chars += b.text.length;
    if (slice.length >= TURN_SLICE || chars >= SLICE_CHARS) await chunkSlice();
  }
  if (slice.length > 0) await chunkSlice();
  for (const [rule, n] of Object.entries(fields.counts)) redacted[rule] = (redacted[rule] ?? 0) + n;
  if (Object.keys(redacted).length > 0) {
    run.emit({ kind: "redacted", sessionId: session.sessionId, counts: redacted });
    for (const [rule, n] of Object.entries(redacted))
      summary.redacted[rule] = (summary.redacted[rule] ?? 0) + n;
  }
  // Sessions are keyed by agent and id: two agents' sessions with one file stem are two sessions.
  const key = `${harness ?? source.kind}\u0000${session.sessionId}`;
  if (yielded > 0 && !run.sessionKeys.has(key)) {
    run.sessionKeys.add(key);
    const h = harness ?? source.kind;
    summary.sessionsByHarness[h] = (summary.sessionsByHarness[h] ?? 0) + 1;
  }
  return { added, present };
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

function unitLabel(unit: Unit, sessions: { sessionId: string; workdir: string }[]): string {
  const only = sessions.length === 1 ? sessions[0] : undefined;
  if (only !== undefined) return `${only.sessionId} (${only.workdir})`;
  return sessions.length === 0 ? unit.key : `${sessions.length} sessions`;
}

/** A failed unit as the run's one-line failure names it: its file (or key), then why. */
function failureText(f: { key: string; reason: string } | undefined): string {
  return f === undefined ? "" : f.reason.includes(f.key) ? f.reason : `${f.key}: ${f.reason}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
