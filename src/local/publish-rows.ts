/**
 * The Lance side of publishing: reading local rows that have vectors, and adding to a staged copy of the
 * remote only the rows it lacks (a merge on `id` that inserts and never updates), so two publishers'
 * rows union and no id is ever written twice.
 */
import type { Table as ArrowTable, RecordBatch } from "apache-arrow";
import { arrow, lancedb } from "./arrow.js";
import { keptSlices, type LocalRows, streamRows } from "./publish-stream.js";
import { EXACT_SEARCH_MAX_ROWS } from "./queries.js";
import { COLUMNS, chunkSchema, TABLE_NAME } from "./schema.js";
import { HAS_VECTOR } from "./sql.js";
import { type HarnessCounts, LocalStore } from "./store.js";

/** Every row that has a vector (only those are ever published), all columns, in schema order. */
export async function embeddedRows(store: LocalStore): Promise<ArrowTable> {
  return store.table
    .query()
    .where(HAS_VECTOR)
    .select([...COLUMNS])
    .toArrow();
}

/**
 * Rows of `rows` whose id is in `keep`, as one Arrow table in the memory schema (zero-copy slices of the
 * batches they are in, see `keptSlices`).
 */
export function selectRows(rows: ArrowTable, keep: Set<string>): ArrowTable {
  return new arrow.Table(
    chunkSchema(),
    rows.batches.flatMap((b) => keptSlices(b, keep)),
  );
}

/** Rows of the table in `dir`. */
export async function countRowsIn(dir: string): Promise<number> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(TABLE_NAME);
    const n = await t.countRows();
    t.close();
    return n;
  } finally {
    db.close();
  }
}

/** The rows of the table in `dir`, and its sessions per agent (what a card counts). */
export async function cardCountsIn(dir: string): Promise<{ chunks: number; byHarness: HarnessCounts[] }> {
  const store = await LocalStore.open(dir);
  if (store === null) return { chunks: 0, byHarness: [] };
  try {
    const s = await store.stats();
    return { chunks: s.chunks, byHarness: s.byHarness };
  } finally {
    store.close();
  }
}

/** Stored ids of the table in `dir` (empty when there is none). */
export async function idsIn(dir: string): Promise<Set<string>> {
  const store = await LocalStore.open(dir);
  if (store === null) return new Set();
  try {
    return await store.ids();
  } finally {
    store.close();
  }
}

/**
 * Rows per write when publishing. Each write is its own fragment, and an exact vector search runs its
 * fragments in parallel: a 100k-row memory written as one add() lands in two big fragments and searches at
 * half the speed of the same rows in ~16k-row fragments (measured: 67 vs 36 ms on 2 cores).
 */
export const PUBLISH_FRAGMENT_ROWS = 16_384;

/**
 * `rows` in parts of `PUBLISH_FRAGMENT_ROWS` rows (the last one shorter). Rows read from a local memory
 * come as a stream: at most one part of them is held at a time.
 */
async function* publishParts(rows: ArrowTable | LocalRows): AsyncGenerator<ArrowTable> {
  if (!("store" in rows)) {
    for (let from = 0; from < rows.numRows; from += PUBLISH_FRAGMENT_ROWS)
      yield rows.slice(from, Math.min(rows.numRows, from + PUBLISH_FRAGMENT_ROWS));
    return;
  }
  const schema = chunkSchema();
  let held: RecordBatch[] = [];
  let count = 0;
  for await (const b of streamRows(rows)) {
    held.push(b);
    count += b.numRows;
    if (count < PUBLISH_FRAGMENT_ROWS) continue;
    const all = new arrow.Table(schema, held);
    yield all.slice(0, PUBLISH_FRAGMENT_ROWS);
    const rest = all.slice(PUBLISH_FRAGMENT_ROWS);
    held = rest.batches;
    count = rest.numRows;
  }
  if (count > 0) yield new arrow.Table(schema, held);
}

/**
 * Adds the rows `dir`'s table lacks, creating the table if there is none (a project memory's with its
 * `project` in the schema metadata); returns how many rows were added and whether the table was created.
 */
export async function appendMissing(
  dir: string,
  rows: ArrowTable | LocalRows,
  project?: string,
): Promise<{ added: number; created: boolean }> {
  const db = await lancedb.connect(dir);
  try {
    const exists = (await db.tableNames()).includes(TABLE_NAME);
    const t = exists
      ? await db.openTable(TABLE_NAME)
      : await db.createEmptyTable(TABLE_NAME, chunkSchema(project));
    try {
      let added = 0;
      for await (const part of publishParts(rows)) {
        if (!exists) {
          await t.add(part);
          added += part.numRows;
        } else added += (await t.mergeInsert("id").whenNotMatchedInsertAll().execute(part)).numInsertedRows;
      }
      return { added, created: !exists };
    } finally {
      t.close();
    }
  } finally {
    db.close();
  }
}

/**
 * Makes the staged memory in `dir` the project memory of `project`. Lance (0.31, from Node) cannot change a
 * table's schema metadata in place, so the rows are written again under a schema that carries it: new files
 * only (the old ones stay in the repo's history), and the indexes are rebuilt after. False when the memory
 * already names that project.
 */
export async function nameProject(dir: string, project: string): Promise<boolean> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(TABLE_NAME);
    const current = (await t.schema()).metadata.get("project");
    if (current === project) {
      t.close();
      return false;
    }
    const rows = await t
      .query()
      .select([...COLUMNS])
      .toArrow();
    t.close();
    const schema = chunkSchema(project);
    const batches = rows.batches.map((b) => new arrow.RecordBatch(schema, b.data));
    const table = new arrow.Table(schema, batches);
    const next =
      table.numRows > 0
        ? await db.createTable(TABLE_NAME, table, { mode: "overwrite" })
        : await db.createEmptyTable(TABLE_NAME, schema, { mode: "overwrite" });
    next.close();
    return true;
  } finally {
    db.close();
  }
}

/** Unindexed rows after which a published memory's text index is rebuilt (the reference's threshold)... */
export const REMOTE_REINDEX_ROWS = 500;
/**
 * ...and only once they are also this share of the indexed rows. A rebuild re-uploads the whole index
 * (Node's Lance cannot add a delta to it), so this bounds its cost per pushed row instead of re-uploading
 * a 100k-row index every 500 rows; rows outside the index are still found, by a scan.
 */
export const REMOTE_REINDEX_SHARE = 0.1;

/**
 * Keeps a staged memory's full-text index useful: built when missing, rebuilt once `threshold` rows sit
 * outside it. A rebuild writes only new files (a new index folder, a transaction, a manifest), so it rides in
 * the same append-only commit. Positions off: lance 7.0.0 reads that index, and optimize() never runs here.
 */
export async function refreshTextIndex(dir: string, threshold = REMOTE_REINDEX_ROWS): Promise<boolean> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(TABLE_NAME);
    try {
      const has = (await t.listIndices()).some((i) => i.name === "text_idx");
      const st = has ? await t.indexStats("text_idx") : undefined;
      const unindexed = has ? (st?.numUnindexedRows ?? 0) : Number.POSITIVE_INFINITY;
      if (unindexed < threshold || unindexed < (st?.numIndexedRows ?? 0) * REMOTE_REINDEX_SHARE) return false;
      await t.createIndex("text", {
        config: lancedb.Index.fts({ withPosition: false }),
        replace: true,
        name: "text_idx",
      });
      return true;
    } finally {
      t.close();
    }
  } finally {
    db.close();
  }
}

/** The published memory's vector index, named as the reference names it. */
export const VECTOR_INDEX = "vector_idx";
/**
 * Rows with vectors before a published memory gets a vector index: where recall stops scanning exactly.
 * Below it an exact scan is fast (≈ 40 ms per 100k rows on 2 cores) and exact, while an IVF_PQ index costs
 * about a minute of training per 50k rows on every rebuild and answers approximately.
 */
export const REMOTE_VECTOR_INDEX_MIN_ROWS = EXACT_SEARCH_MAX_ROWS;

/**
 * Keeps a staged memory's vector index as the reference builds it (IVF_PQ, L2, 24 sub-vectors of 8 bits,
 * 50 iterations; a type lance 7.0.0 reads): built once the memory holds `minRows` vectors, rebuilt when the
 * rows outside it reach the text index's thresholds. Writes only new files, like the text index.
 */
export async function refreshVectorIndex(
  dir: string,
  minRows = REMOTE_VECTOR_INDEX_MIN_ROWS,
): Promise<boolean> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(TABLE_NAME);
    try {
      // PQ training needs at least 256 vectors.
      if ((await t.countRows(HAS_VECTOR)) < Math.max(256, minRows)) return false;
      const has = (await t.listIndices()).some((i) => i.name === VECTOR_INDEX);
      const st = has ? await t.indexStats(VECTOR_INDEX) : undefined;
      const unindexed = has ? (st?.numUnindexedRows ?? 0) : Number.POSITIVE_INFINITY;
      if (unindexed < REMOTE_REINDEX_ROWS || unindexed < (st?.numIndexedRows ?? 0) * REMOTE_REINDEX_SHARE)
        return false;
      await t.createIndex("vector", {
        config: lancedb.Index.ivfPq({ distanceType: "l2", numSubVectors: 24, numBits: 8, maxIterations: 50 }),
        replace: true,
        name: VECTOR_INDEX,
      });
      return true;
    } finally {
      t.close();
    }
  } finally {
    db.close();
  }
}
