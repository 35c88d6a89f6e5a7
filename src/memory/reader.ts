/**
 * Reading a memory: its table opened (a memory of another embedding model refused, by name), the two search
 * legs, the turns around hits and whole sessions, over the named queries of local/. A Hub memory read with
 * others (a federated recall) is searched through a side vector index built once per commit: only this
 * layer knows which memories are remote.
 */
import { existsSync } from "node:fs";
import {
  annDir,
  EMBEDDING_MODEL,
  ensureSideIndex,
  type HitRow,
  IncompatibleMemoryError,
  type KeywordHit,
  LocalStore,
  ReadView,
  type RowFilter,
  rowFilterSql,
  type SessionSummary,
  sessionIds,
  sessionSummaries,
  sideIndexLeg,
  type UserText,
  userTextsOf,
  type VectorHit,
} from "../local/index.js";
import { FunesError } from "./errors.js";
import { noIndexMessage, type SingleMemory } from "./memory.js";
import type { ReadTarget } from "./open-memory.js";

/** Runs an open; a memory from another embedding model is a FunesError naming it. */
async function opening<T>(memory: SingleMemory, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (err instanceof IncompatibleMemoryError)
      throw new FunesError("incompatible_memory", `${memory.label}: ${err.message}`);
    throw err;
  }
}

/** Opens a memory's table (null when there is none); a memory from another embedding model is a FunesError. */
export function openStore(memory: SingleMemory): Promise<LocalStore | null> {
  return opening(memory, () => LocalStore.open(memory.dir));
}

/**
 * An open memory, read through named queries, at the version it had when opened (a recall's reads agree
 * with each other). Close it when done.
 */
export interface MemoryReader {
  readonly memory: SingleMemory;
  /** Rows in the memory (0: a table without rows). */
  rows(): Promise<number>;
  /** True when at least one row has a vector. */
  hasVectors(): Promise<boolean>;
  /** True when rows carry their agent (memories from before the facet do not). */
  hasHarnessFacet(): Promise<boolean>;
  /** The keyword leg: BM25, filtered before ranking; `vectors` also reads each hit's vector. */
  keyword(q: { query: string; limit: number; filter: RowFilter; vectors: boolean }): Promise<KeywordHit[]>;
  /** The vector leg: nearest rows by cosine, filtered before ranking. */
  vector(q: { vector: Float32Array; limit: number; filter: RowFilter }): Promise<VectorHit[]>;
  /** Every chunk of these sessions within these seq ranges. */
  around(ranges: { sessionId: string; from: number; to: number }[]): Promise<HitRow[]>;
  /** Every chunk of one session. */
  session(sessionId: string): Promise<HitRow[]>;
  /** The distinct session ids (what `get` resolves a short id against). */
  sessionIds(): Promise<Set<string>>;
  /** Every session, keyed by agent and id: its repo, folder, first and last time, turns (no text). */
  sessionList(): Promise<SessionSummary[]>;
  /** The first split of every user text block of these sessions, in no order (`sessions`' opening prompts). */
  userTexts(sessionIds: string[]): Promise<UserText[]>;
  close(): void;
}

/**
 * A reader over a memory's table, or null when the memory has none. The table stays open for the next read
 * of the same folder (local/read-view.ts: what one version answers is kept for that version only).
 */
export async function openReader(memory: SingleMemory): Promise<MemoryReader | null> {
  const view = await opening(memory, () => ReadView.open(memory.dir));
  return view === null ? null : readerOf(memory, view, false);
}

/**
 * Readies a reader for a federated read: a Hub memory gets its side vector index (built once per commit,
 * so searching a large one costs a fraction of an exact scan). Returns the reader to use, and a note when
 * the index was built just now (`now`: a monotonic clock, ms).
 */
export async function forFederatedRead(
  reader: MemoryReader,
  now: () => number,
): Promise<{ reader: MemoryReader; note: string | null }> {
  const { memory } = reader;
  if (memory.kind !== "hub" || !(reader instanceof StoreReader)) return { reader, note: null };
  const t0 = now();
  const existed = existsSync(annDir(memory.dir));
  const ann = await ensureSideIndex(reader.view.store);
  const note =
    ann && !existed
      ? `note: indexed the vectors of ${memory.label} for searching several memories at once (${((now() - t0) / 1000).toFixed(1)} s, once per commit)`
      : null;
  return { reader: readerOf(memory, reader.view, ann), note };
}

function readerOf(memory: SingleMemory, view: ReadView, sideIndex: boolean): MemoryReader {
  return new StoreReader(memory, view, sideIndex);
}

class StoreReader implements MemoryReader {
  constructor(
    readonly memory: SingleMemory,
    readonly view: ReadView,
    private readonly sideIndex: boolean,
  ) {}

  rows(): Promise<number> {
    return this.view.rows();
  }

  hasVectors(): Promise<boolean> {
    return this.view.hasVectors();
  }

  hasHarnessFacet(): Promise<boolean> {
    return this.view.hasHarnessFacet();
  }

  keyword(q: { query: string; limit: number; filter: RowFilter; vectors: boolean }): Promise<KeywordHit[]> {
    return this.view.keyword(q);
  }

  async vector(q: { vector: Float32Array; limit: number; filter: RowFilter }): Promise<VectorHit[]> {
    // The side index holds vectors only: a filtered search scans the table.
    if (this.sideIndex && rowFilterSql(q.filter) === undefined) {
      const hits = await sideIndexLeg(this.view.store, q.vector, q.limit);
      if (hits !== null) return hits;
    }
    return this.view.vector(q);
  }

  around(ranges: { sessionId: string; from: number; to: number }[]): Promise<HitRow[]> {
    return this.view.around(ranges);
  }

  session(sessionId: string): Promise<HitRow[]> {
    return this.view.session(sessionId);
  }

  sessionIds(): Promise<Set<string>> {
    return sessionIds(this.view.store);
  }

  sessionList(): Promise<SessionSummary[]> {
    return sessionSummaries(this.view.store);
  }

  userTexts(ids: string[]): Promise<UserText[]> {
    return userTextsOf(this.view.store, ids);
  }

  /** The table stays open for the next read (it is released when no longer kept). */
  close(): void {}
}

/**
 * Opens a reader on every target of one read (a recall): a single memory's failure is the read's; with
 * several, a memory that cannot be read or holds nothing is a warning, and only none readable is a failure.
 * Memories of another embedding model cannot be read together. `now`: a monotonic clock, ms.
 */
export async function openReaders(
  targets: ReadTarget[],
  now: () => number,
): Promise<{ open: MemoryReader[]; warnings: string[] }> {
  const open: MemoryReader[] = [];
  const warnings: string[] = [];
  try {
    for (const { memory } of targets) {
      let reader: MemoryReader | null;
      try {
        reader = await openReader(memory);
        if (reader !== null && (await reader.rows()) === 0) {
          reader.close();
          reader = null;
        }
      } catch (err) {
        if (targets.length === 1) throw err;
        if (err instanceof FunesError && err.code === "incompatible_memory")
          throw new FunesError(
            "incompatible_memory",
            `can't recall across memories embedded with different models — ${err.message}; the others use ${EMBEDDING_MODEL}. Recall them separately`,
          );
        warnings.push(
          `warning: ${memory.label} could not be read (${err instanceof Error ? err.message : String(err)}) — answering from the others`,
        );
        continue;
      }
      if (reader === null) {
        if (targets.length === 1) throw new FunesError("no_memory", noIndexMessage(memory));
        warnings.push(`warning: ${memory.label} holds no index yet — answering from the others`);
        continue;
      }
      open.push(reader);
      if (targets.length > 1) {
        const ready = await forFederatedRead(reader, now);
        open[open.length - 1] = ready.reader;
        if (ready.note !== null) warnings.push(ready.note);
      }
    }
  } catch (err) {
    for (const m of open) m.close();
    throw err;
  }
  if (open.length === 0)
    throw new FunesError(
      "no_memory",
      `none of the memories could be read: ${warnings.join("; ")} — check each name, or recall them one at a time`,
    );
  return { open, warnings };
}
