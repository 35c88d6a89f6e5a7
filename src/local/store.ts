/**
 * Lance mechanics of one memory directory: `<dir>/chunks.lance`, table `chunks`. Open, create, append,
 * the full-text index, scans and counts. Knows Lance; knows nothing of the Hub or of commands.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Connection, Table } from "@lancedb/lancedb";
import type { Chunk } from "../chunk/index.js";
import { lancedb } from "./arrow.js";
import { LOCAL_INDEX_MIN_ROWS } from "./queries.js";
import { chunksToArrow } from "./rows.js";
import {
  chunkSchema,
  EMBEDDING_MODEL,
  mistypedColumns,
  REQUIRED_COLUMNS,
  TABLE_NAME,
  VECTOR_DIM,
} from "./schema.js";
import { HAS_VECTOR, NEEDS_VECTOR } from "./sql.js";

/** The memory was built with another embedder, or has no usable vector column. */
export class IncompatibleMemoryError extends Error {}

/** Name of the full-text index on `text`. */
export const TEXT_INDEX = "text_idx";

/** Rebuild the text index once this many rows (or this share of the table) sit outside it. */
const TEXT_REINDEX_MIN_ROWS = 20_000;
const TEXT_REINDEX_SHARE = 0.25;
/** Rows up to which a memory is compacted as soon as it holds more than 8 fragments. */
const COMPACT_SMALL_ROWS = 300_000;
/** The btree on `session_id`, and the rows from which a memory keeps one (below, a scan is as fast). */
const SESSION_INDEX = "session_idx";
const SESSION_INDEX_MIN_ROWS = 50_000;
/** How far past the newest version compaction's cleanup reaches, ms: covers the versions it writes itself. */
const CLEANUP_MARGIN_MS = 60_000;
/** The local memory's vector index. */
const LOCAL_VECTOR_INDEX = "vector_idx";
/**
 * Its unindexed tail is folded in from this many rows and this share of the table's rows: below, scanning
 * the tail exactly costs ≈ 4 ms (≈ 40 ms per 100k rows on 2 cores) and a fold (which compacts the table)
 * would cost more than it saves.
 */
const VECTOR_FOLD_MIN_ROWS = 10_000;
const VECTOR_FOLD_SHARE = 0.1;
/** Segments (the trained index and its folds) at which a small memory's index is retrained into one. */
const VECTOR_MAX_SEGMENTS = 16;
/**
 * It is retrained once it holds this many times the rows it was trained on (kept in the `vector` field's
 * metadata): its partitions were sized for √rows, so at 4x they hold twice the rows they should, and
 * retraining at each 4x costs at most 4/3 of the last build in all.
 */
const VECTOR_RETRAIN_GROWTH = 4;
/**
 * Rows (of the table) up to which the index is ever retrained: a training holds every vector it trains on
 * (≈ 0.6 GB at 200k, 1.4 GB at 1M) and reads the whole vector column, so a larger memory keeps the
 * partitions it was first trained with and only folds rows in (the re-ranking is exact, and every
 * segment is probed: the bench's recall@20 against an exact scan says what that keeps).
 */
const VECTOR_RETRAIN_MAX_ROWS = 200_000;
/** Share of a large memory's rows that have a vector when its index is first trained (at most the above). */
const VECTOR_FIRST_TRAIN_SHARE = 0.1;
/** `vector` field metadata: rows (with a vector) the index was trained on, and rows it covers now. */
const TRAINED_ROWS_KEY = "funes:vector_index_rows";
const COVERED_ROWS_KEY = "funes:vector_index_covered";

/** When the local vector index is trained, folded and retrained (the defaults are the product's). */
export interface VectorIndexRules {
  /** Smallest tail folded in. */
  foldMinRows: number;
  /** Segments at which a small memory's index is retrained. */
  maxSegments: number;
  /** Growth since training at which a small memory's index is retrained. */
  growth: number;
  /** Table rows up to which the index is retrained at all (and the most rows a first training waits for). */
  retrainMaxRows: number;
  /** Rows with a vector, when the caller knows (saves a count). */
  vectors: number;
}

/** The vector index step due now (`LocalStore.planVectorIndex`), with the counts it was decided on. */
export interface VectorIndexPlan {
  step: "build" | "rebuild" | "fold" | "current" | "small";
  /** Rows with a vector, rows of the table, rows the index was trained on (0: none yet). */
  vectors: number;
  rows: number;
  trained: number;
}

/** Chunk and session counts of one harness. */
export interface HarnessCounts {
  harness: string;
  chunks: number;
  sessions: number;
}

/** What `status` shows about a memory's table. */
export interface StoreStats {
  chunks: number;
  sessions: number;
  byHarness: HarnessCounts[];
  /** Rows still waiting for a vector (found by keyword only). */
  pendingVectors: number;
  /** Time of the newest table version, ms since the epoch (UTC). */
  lastWrite: number | null;
  fragments: number;
  bytes: number;
}

/** Bounds of the shared Lance caches, bytes: a 1M-chunk memory's indexes take ≈ 270 MB. */
const INDEX_CACHE_BYTES = 512n * 1024n * 1024n;
const METADATA_CACHE_BYTES = 128n * 1024n * 1024n;
let session: InstanceType<typeof lancedb.Session> | null = null;

/**
 * One Lance session (its index and metadata caches) for every table this process opens. Recall opens its
 * memory per call (the MCP server: per tool call), and a new session reads the indexes again each time: at
 * 1M chunks a keyword query then costs ≈ 60 ms instead of ≈ 8 ms.
 */
function lanceSession(): InstanceType<typeof lancedb.Session> {
  session ??= new lancedb.Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES);
  return session;
}

/** Bounds of a writer's caches (an index run), bytes: it reads each index once at most, so caching them only holds memory. */
const WRITER_CACHE_BYTES = 32n * 1024n * 1024n;
let writerSession: InstanceType<typeof lancedb.Session> | null = null;

/** The caches of a table opened to write (`index`): small, and apart from recall's. */
function lanceWriterSession(): InstanceType<typeof lancedb.Session> {
  writerSession ??= new lancedb.Session(WRITER_CACHE_BYTES, WRITER_CACHE_BYTES);
  return writerSession;
}

/** How a table is opened: `writer` for an index run (small caches of its own). */
export interface OpenOptions {
  writer?: boolean;
}

/** True when `dir` holds a memory table. */
export function storeExists(dir: string): boolean {
  return existsSync(join(dir, `${TABLE_NAME}.lance`));
}

/** An open memory table. */
export class LocalStore {
  /**
   * Set once this store has compacted the table (`compactIfFragmented`): the closing upkeep of an index
   * run then drops what the index steps after it supersede (see `dropSuperseded`).
   */
  private compacted = false;

  private constructor(
    private readonly db: Connection,
    readonly table: Table,
    readonly dir: string,
  ) {}

  /** Opens the table in `dir`, or returns null when there is none. */
  static async open(dir: string, opts: OpenOptions = {}): Promise<LocalStore | null> {
    if (!storeExists(dir)) return null;
    const session = opts.writer === true ? lanceWriterSession() : lanceSession();
    // A plain `connect()` writes a `__manifest/` namespace table into the folder: opening a memory to read
    // it (someone's folder, a Hub view) must write nothing there, so the namespace manifest is off.
    const db = await lancedb.connectNamespace(
      "dir",
      { root: dir, manifestEnabled: false },
      { readConsistencyInterval: 0, session },
    );
    const table = await db.openTable(TABLE_NAME);
    const store = new LocalStore(db, table, dir);
    await store.checkCompatible();
    return store;
  }

  /** Opens the table in `dir`, creating an empty one with the memory schema when absent. */
  static async openOrCreate(dir: string, opts: OpenOptions = {}): Promise<LocalStore> {
    const existing = await LocalStore.open(dir, opts);
    if (existing !== null) return existing;
    const session = opts.writer === true ? lanceWriterSession() : lanceSession();
    const db = await lancedb.connect(dir, { readConsistencyInterval: 0, session });
    const table = await db.createEmptyTable(TABLE_NAME, chunkSchema(), { mode: "create", existOk: true });
    return new LocalStore(db, table, dir);
  }

  /** Refuses a memory whose vectors come from another model (they could not be compared with ours). */
  async checkCompatible(): Promise<void> {
    const schema = await this.table.schema();
    const model = schema.metadata.get("embedding_model");
    if (model !== undefined && model !== EMBEDDING_MODEL)
      throw new IncompatibleMemoryError(
        `memory built with embedding model "${model}", not funes's "${EMBEDDING_MODEL}"`,
      );
    const names = new Set(schema.fields.map((f) => f.name));
    const missing = REQUIRED_COLUMNS.filter((c) => !names.has(c));
    if (missing.length > 0)
      throw new IncompatibleMemoryError(
        `table at "${this.dir}" has no ${missing.map((c) => JSON.stringify(c)).join(", ")} column${missing.length > 1 ? "s" : ""}: it is not a funes memory`,
      );
    const vector = schema.fields.find((f) => f.name === "vector");
    const dim = (vector?.type as { listSize?: number } | undefined)?.listSize;
    if (dim !== VECTOR_DIM)
      throw new IncompatibleMemoryError(
        `memory at "${this.dir}" has no ${VECTOR_DIM}-wide vector column: it was built with a different embedding model`,
      );
    const mistyped = mistypedColumns(schema);
    if (mistyped.length > 0)
      throw new IncompatibleMemoryError(
        `table at "${this.dir}" stores ${mistyped.map((c) => JSON.stringify(c)).join(", ")} as another type than a funes memory does: it is not a funes memory`,
      );
  }

  /** How many chunks the memory holds. */
  rowCount(): Promise<number> {
    return this.table.countRows();
  }

  /** Every stored chunk id. */
  async ids(): Promise<Set<string>> {
    const out = new Set<string>();
    const t = await this.table.query().select(["id"]).toArrow();
    const col = t.getChild("id");
    if (col !== null) for (const v of col) if (typeof v === "string") out.add(v);
    return out;
  }

  /** Appends chunks in one write (one fragment). */
  async append(chunks: Chunk[]): Promise<void> {
    if (chunks.length > 0) await this.table.add(chunksToArrow(chunks));
  }

  /** Whether `maintainTextIndex` would build or rebuild the full-text index now (`has`: it exists). */
  async textIndexDue(has?: boolean): Promise<boolean> {
    const exists = has ?? (await this.table.listIndices()).some((i) => i.name === TEXT_INDEX);
    if (exists) {
      const st = await this.table.indexStats(TEXT_INDEX);
      const unindexed = st?.numUnindexedRows ?? 0;
      const indexed = st?.numIndexedRows ?? 0;
      if (unindexed < TEXT_REINDEX_MIN_ROWS && unindexed <= indexed * TEXT_REINDEX_SHARE) return false;
    }
    return (await this.table.countRows()) > 0;
  }

  /**
   * Keeps the full-text index useful: builds it when missing, rebuilds it when many rows were added
   * since (rows outside it are still found, by a slower scan). Returns what it did. A large memory's
   * `session_id` index is kept on the same rule here.
   */
  async maintainTextIndex(
    sessionIndexMinRows = SESSION_INDEX_MIN_ROWS,
  ): Promise<"built" | "rebuilt" | "current"> {
    const indices = await this.table.listIndices();
    await this.maintainSessionIndex(
      indices.some((i) => i.name === SESSION_INDEX),
      sessionIndexMinRows,
    );
    const has = indices.some((i) => i.name === TEXT_INDEX);
    if (!(await this.textIndexDue(has))) return "current";
    // Positions off: phrase queries are lost, but optimize() crashes with them (lance-facts §2.2).
    await this.table.createIndex("text", {
      config: lancedb.Index.fts({ withPosition: false }),
      replace: true,
      name: TEXT_INDEX,
    });
    if (has) await this.dropSuperseded();
    return has ? "rebuilt" : "built";
  }

  /**
   * Past SESSION_INDEX_MIN_ROWS rows, keeps a btree on `session_id`: recall's neighbour read and `get`
   * filter on it, and a scan of the column costs ≈ 40 ms at 1M rows where the index answers in ≈ 5 ms
   * (built in ≈ 0.3 s). Rebuilt on the full-text index's rule; rows outside it are scanned meanwhile.
   */
  private async maintainSessionIndex(has: boolean, minRows: number): Promise<void> {
    if ((await this.table.countRows()) < minRows) return;
    if (has) {
      const st = await this.table.indexStats(SESSION_INDEX);
      const unindexed = st?.numUnindexedRows ?? 0;
      const indexed = st?.numIndexedRows ?? 0;
      if (unindexed < TEXT_REINDEX_MIN_ROWS && unindexed <= indexed * TEXT_REINDEX_SHARE) return;
    }
    await this.table.createIndex("session_id", {
      config: lancedb.Index.btree(),
      replace: true,
      name: SESSION_INDEX,
    });
  }

  /**
   * Merges small fragments (vector writes add one each) once there are too many: an exact vector scan
   * pays per fragment (16k rows: 30 ms in 17 fragments, 16 ms in one). Up to 300k rows a rewrite takes a
   * second or two, so more than 8 fragments are merged; past that, more than 48. Local only: it rewrites
   * every data file and drops old versions, which is why publishing never does it.
   */
  async compactIfFragmented(): Promise<boolean> {
    const st = await this.table.stats();
    const most = st.numRows <= COMPACT_SMALL_ROWS ? 8 : 48;
    if (st.fragmentStats.numFragments <= most) return false;
    // The rewrite leaves every row's previous files behind (after a backfill: the text-pass fragments and
    // every vector write's, ≈ 2 KB a chunk), so the versions before it go with it. The cut-off is a margin
    // past the newest version, in Lance's own clock; Lance always keeps the newest version (the compacted one).
    await this.optimizeDroppingOlder();
    this.compacted = true;
    // Lance prunes between compacting and updating the indexes, so the version before the index update
    // outlives the call, with the index files it superseded (after a backfill, a whole text index).
    await this.dropSuperseded();
    return true;
  }

  /** optimize() with every version before the newest dropped, with their files. */
  private async optimizeDroppingOlder(): Promise<void> {
    const versions = await this.table.listVersions();
    const newest = versions.reduce((m, v) => Math.max(m, new Date(v.timestamp).getTime()), 0);
    await this.table.optimize({ cleanupOlderThan: new Date(newest + CLEANUP_MARGIN_MS) });
  }

  /**
   * After a compaction here, an index rebuilt or retrained leaves the one it replaced on disk, used by older
   * versions only (a text index rebuilt after a backfill: 0.50 of 31.2 MB at 16k chunks); they go as the
   * compaction's did, by an optimize with nothing left to compact (a prune, ≈ 10–25 ms). Never without a
   * compaction first (in the text pass it would rewrite the run's small fragments); publishing never prunes.
   */
  private async dropSuperseded(): Promise<void> {
    if (this.compacted) await this.optimizeDroppingOlder();
  }

  /**
   * Past LOCAL_INDEX_MIN_ROWS rows an exact vector scan costs more than a recall should, so the memory keeps
   * an IVF_RQ index (4-bit, L2 like the reference's IVF_PQ, so one query path serves both), searched with
   * exact re-ranking of 10x the candidates. The backfill calls this after each of its writes, so the index
   * is trained as soon as enough rows have a vector (a large memory: VECTOR_FIRST_TRAIN_SHARE of its rows,
   * at most `retrainMaxRows`), never on a whole large memory, and then kept current incrementally:
   * - rows written since (its unindexed tail) are scanned exactly alongside it, so nothing is ever missed;
   * - a tail of `foldMinRows` rows and VECTOR_FOLD_SHARE of the table is folded in (a new segment, or
   *   merged into the last, as Lance decides): Lance assigns the new rows to the trained partitions and writes index files; it does not
   *   retrain. The fold is optimize(), which also compacts the table (the reason the table's size counts:
   *   at 1M rows ≈ 30 s), so rows move (see the return value);
   * - while the table has at most `retrainMaxRows` rows, the index is retrained (a bounded build) when the
   *   memory has grown `growth`-fold since it was trained, when the tail outgrows the covered rows, or at
   *   `maxSegments` segments. Past that it is only ever folded.
   * Counts of trained, covered and tail rows are of rows with a vector (Lance's index statistics count every
   * row of an indexed fragment, vector or not); `vectors` passes that count when the caller knows it (else
   * it is counted). Returns what it did: after "folded", rows may have moved (compaction).
   */
  async maintainVectorIndex(
    minRows = LOCAL_INDEX_MIN_ROWS,
    rules: Partial<VectorIndexRules> = {},
  ): Promise<"built" | "folded" | "rebuilt" | "current" | "small"> {
    const plan = await this.planVectorIndex(minRows, rules);
    switch (plan.step) {
      case "build":
        await this.trainVectorIndex(plan.vectors, plan.rows);
        return "built";
      case "rebuild":
        await this.trainVectorIndex(plan.vectors, plan.rows);
        return "rebuilt";
      case "fold":
        // Node's only index update is optimize(): it also merges small fragments (the backfill's writes),
        // a rewrite like `compactIfFragmented`'s, so the versions before it go the same way (with Lance's
        // default they stayed a week: the rewritten rows' old files, ≈ 2 KB a chunk).
        await this.optimizeDroppingOlder();
        this.compacted = true;
        await this.noteVectorIndexRows(plan.trained > 0 ? plan.trained : plan.vectors, plan.vectors);
        return "folded";
      default:
        return plan.step;
    }
  }

  /**
   * What `maintainVectorIndex` would do now, without doing it: a backfill of a large memory stops when a
   * step is due, so that the step runs in a fresh process (index-sessions.ts).
   */
  async planVectorIndex(
    minRows = LOCAL_INDEX_MIN_ROWS,
    rules: Partial<VectorIndexRules> = {},
  ): Promise<VectorIndexPlan> {
    const {
      foldMinRows = VECTOR_FOLD_MIN_ROWS,
      maxSegments = VECTOR_MAX_SEGMENTS,
      growth = VECTOR_RETRAIN_GROWTH,
      retrainMaxRows = VECTOR_RETRAIN_MAX_ROWS,
    } = rules;
    const index = (await this.table.listIndices()).find((i) => i.columns.includes("vector"));
    // Another kind of index (the reference's IVF_PQ of a published memory) is left as it came.
    if (index !== undefined && (index.name !== LOCAL_VECTOR_INDEX || index.indexType !== "IvfRq"))
      return { step: "current", vectors: 0, rows: 0, trained: 0 };
    const vectors = rules.vectors ?? (await this.table.countRows(HAS_VECTOR));
    const rows = await this.table.countRows();
    if (index === undefined) {
      // A training reads the whole vector column, waiting rows too (at 1M rows ≈ 1–2 min, however few
      // have a vector): a large memory is trained once, on a share of it, when that share has vectors.
      if (vectors <= Math.max(minRows, Math.min(retrainMaxRows, rows * VECTOR_FIRST_TRAIN_SHARE)))
        return { step: "small", vectors, rows, trained: 0 };
      return { step: "build", vectors, rows, trained: 0 };
    }
    const st = await this.table.indexStats(LOCAL_VECTOR_INDEX);
    const meta = (await this.table.schema()).fields.find((f) => f.name === "vector")?.metadata;
    const trained = Number(meta?.get(TRAINED_ROWS_KEY) ?? 0);
    // An index from before the counts were kept: counted from now.
    const covered = Number(meta?.get(COVERED_ROWS_KEY) ?? 0) || (trained > 0 ? trained : vectors);
    if (!(trained > 0)) await this.noteVectorIndexRows(vectors, vectors);
    // Rows with a vector outside the index: never more than the rows of unindexed fragments.
    const tail = Math.min(st?.numUnindexedRows ?? 0, Math.max(0, vectors - covered));
    const segments = st?.numIndices ?? 1;
    if (rows <= retrainMaxRows) {
      const grown = trained > 0 && vectors >= trained * growth;
      if (grown || tail > covered || segments >= maxSegments)
        return { step: "rebuild", vectors, rows, trained };
    }
    // A fold compacts the table, so its size is a share of the table (mid-backfill, most rows wait for a
    // vector): a 1M-row backfill folds ≈ 9 times, and the tail scanned exactly stays under that share.
    if (tail < Math.max(foldMinRows, rows * VECTOR_FOLD_SHARE))
      return { step: "current", vectors, rows, trained };
    return { step: "fold", vectors, rows, trained };
  }

  /** Trains the vector index on every row with a vector (`vectors` of the table's `rows`; replacing any older one). */
  private async trainVectorIndex(vectors: number, rows: number): Promise<void> {
    await this.table.createIndex("vector", {
      // Lance sizes the partitions by the table's rows, and draws its k-means sample row by row among rows
      // still waiting for a vector too: mid-backfill, where most rows wait, that is √ of rows without a
      // vector and minutes of sampling (1M rows, 10k with vectors: ≈ 5 min). There the index gets √ of the
      // rows trained on and 32 sample rows a partition, not 256 (100k rows, 5k with vectors: 12.6 s at
      // 256, 4.4 s at 16).
      config:
        vectors * 2 >= rows
          ? lancedb.Index.ivfRq({ distanceType: "l2", numBits: 4 })
          : lancedb.Index.ivfRq({
              distanceType: "l2",
              numBits: 4,
              numPartitions: Math.max(1, Math.round(Math.sqrt(vectors))),
              sampleRate: 32,
            }),
      name: LOCAL_VECTOR_INDEX,
      replace: true,
    });
    await this.noteVectorIndexRows(vectors, vectors);
    await this.dropSuperseded();
  }

  /** Records the rows (with a vector) the index was trained on and the rows it covers now. */
  private async noteVectorIndexRows(trained: number, covered: number): Promise<void> {
    await this.table.updateFieldMetadata([
      {
        path: "vector",
        metadata: { [TRAINED_ROWS_KEY]: String(trained), [COVERED_ROWS_KEY]: String(covered) },
      },
    ]);
  }

  /** The `owner/name` this memory is the project memory of (schema metadata `project`), or null. */
  async project(): Promise<string | null> {
    return (await this.table.schema()).metadata.get("project") ?? null;
  }

  /** Counts for `status` and the benchmark. */
  async stats(): Promise<StoreStats> {
    const t = await this.table.query().select(["session_id", "harness"]).toArrow();
    const sid = t.getChild("session_id");
    const hn = t.getChild("harness");
    const per = new Map<string, { chunks: number; sessions: Set<string> }>();
    const all = new Set<string>();
    for (let i = 0; i < t.numRows; i++) {
      const s = String(sid?.get(i) ?? "");
      const h = String(hn?.get(i) ?? "");
      let e = per.get(h);
      if (e === undefined) {
        e = { chunks: 0, sessions: new Set() };
        per.set(h, e);
      }
      e.chunks++;
      e.sessions.add(s);
      // Keyed by agent and id: two agents' sessions that share an id (a file stem) are two sessions.
      all.add(`${h}\u0000${s}`);
    }
    const versions = await this.table.listVersions();
    const newest = versions.reduce((m, v) => Math.max(m, new Date(v.timestamp).getTime()), 0);
    const ts = await this.table.stats();
    return {
      chunks: t.numRows,
      sessions: all.size,
      byHarness: [...per.entries()]
        .map(([harness, e]) => ({ harness, chunks: e.chunks, sessions: e.sessions.size }))
        .sort((a, b) => b.chunks - a.chunks),
      pendingVectors: await this.table.countRows(NEEDS_VECTOR),
      lastWrite: newest > 0 ? newest : null,
      fragments: ts.fragmentStats.numFragments,
      bytes: ts.totalBytes,
    };
  }

  /** Releases the table and connection. */
  close(): void {
    this.table.close();
    this.db.close();
  }
}
