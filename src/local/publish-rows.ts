/**
 * The Lance side of publishing: reading local rows that have vectors, and adding to a staged copy of the
 * remote only the rows it lacks (a merge on `id` that inserts and never updates), so two publishers'
 * rows union and no id is ever written twice.
 */
import type { Table as ArrowTable } from "apache-arrow";
import { arrow, lancedb } from "./arrow.js";
import { EXACT_SEARCH_MAX_ROWS } from "./queries.js";
import { memoryBatch } from "./rows.js";
import { COLUMNS, chunkSchema, TABLE_NAME } from "./schema.js";
import { LocalStore } from "./store.js";

/** Every row that has a vector (only those are ever published), all columns, in schema order. */
export async function embeddedRows(store: LocalStore): Promise<ArrowTable> {
  return store.table
    .query()
    .where("vector IS NOT NULL")
    .select([...COLUMNS])
    .toArrow();
}

/**
 * Rows of `rows` whose id is in `keep`, as one Arrow table in the memory schema. The kept rows are taken as
 * zero-copy slices of the batches they are in (one per run of consecutive kept rows): copying them out value
 * by value made a first push of a million chunks hold every vector as JavaScript numbers (≈ 3 GB more).
 */
export function selectRows(rows: ArrowTable, keep: Set<string>): ArrowTable {
  const schema = chunkSchema();
  const batches = rows.batches.flatMap((b) => {
    const ids = b.getChild("id");
    const out: InstanceType<typeof arrow.RecordBatch>[] = [];
    let start = -1;
    for (let i = 0; i <= b.numRows; i++) {
      const kept = i < b.numRows && keep.has(String(ids?.get(i)));
      if (kept && start < 0) start = i;
      if (!kept && start >= 0) {
        out.push(memoryBatch(b.slice(start, i)));
        start = -1;
      }
    }
    return out;
  });
  return new arrow.Table(schema, batches);
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
 * Adds the rows `dir`'s table lacks, creating the table if there is none (a project memory's with its
 * `project` in the schema metadata); returns how many rows were added and whether the table was created.
 */
export async function appendMissing(
  dir: string,
  rows: ArrowTable,
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
      for (let from = 0; from < rows.numRows; from += PUBLISH_FRAGMENT_ROWS) {
        const part = rows.slice(from, Math.min(rows.numRows, from + PUBLISH_FRAGMENT_ROWS));
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
      if ((await t.countRows("vector IS NOT NULL")) < Math.max(256, minRows)) return false;
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

/** Every chunk of the given blocks (of all blocks when omitted), for rebuilding them whole (one scan of the table). */
export async function blockRows(
  store: LocalStore,
  blocks?: { sessionId: string; turnUuid: string; blockIdx: number }[],
): Promise<
  { sessionId: string; turnUuid: string; blockIdx: number; splitIdx: number; id: string; text: string }[]
> {
  const key = (s: string, t: string, b: number) => `${s}\u0000${t}\u0000${b}`;
  const wanted =
    blocks === undefined ? null : new Set(blocks.map((b) => key(b.sessionId, b.turnUuid, b.blockIdx)));
  const t = await store.table
    .query()
    .select(["id", "session_id", "turn_uuid", "block_idx", "split_idx", "text"])
    .toArrow();
  const cols = ["id", "session_id", "turn_uuid", "block_idx", "split_idx", "text"].map((c) => t.getChild(c));
  const out: {
    sessionId: string;
    turnUuid: string;
    blockIdx: number;
    splitIdx: number;
    id: string;
    text: string;
  }[] = [];
  for (let i = 0; i < t.numRows; i++) {
    const sessionId = String(cols[1]?.get(i));
    const turnUuid = String(cols[2]?.get(i));
    const blockIdx = Number(cols[3]?.get(i));
    if (wanted !== null && !wanted.has(key(sessionId, turnUuid, blockIdx))) continue;
    out.push({
      id: String(cols[0]?.get(i)),
      sessionId,
      turnUuid,
      blockIdx,
      splitIdx: Number(cols[4]?.get(i)),
      text: String(cols[5]?.get(i)),
    });
  }
  return out;
}
