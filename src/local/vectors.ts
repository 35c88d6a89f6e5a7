/**
 * Rows waiting for vectors, and writing vectors into them. A vector write is one merge-insert keyed on
 * `id`: atomic, so a killed backfill leaves every row either with its full vector or still waiting.
 *
 * A backfill reads rows by where they were listed (`_rowid`, a take of just those rows), not by `id IN
 * (…)`: that filter scans every row of the table, once to read the texts and once to write the vectors,
 * so a backfill of n rows cost n²/batch row reads (a 1M-chunk memory: ≈ 1 s of scans per 1,024 vectors).
 */
import type { Table } from "@lancedb/lancedb";
import type { Table as ArrowTableT } from "apache-arrow";
import { arrow } from "./arrow.js";
import { memoryBatch, sharedStrings } from "./rows.js";
import { COLUMNS, VECTOR_DIM, vectorType } from "./schema.js";
import { NEEDS_VECTOR, sqlString } from "./sql.js";

/** A row waiting for a vector, with what backfill orders by. */
export interface PendingRow {
  id: string;
  /** Where the row was when listed (Lance `_rowid`); absent, or stale after a rewrite, it is found by id. */
  rowId?: bigint;
  sessionId: string;
  ts: string;
  blockType: string;
}

/**
 * Every row whose vector is null (ids, locations and ordering keys only). A first index of a large history
 * lists a million of them: strings rows share (session, block type, a turn's time) are kept once.
 */
export async function pendingVectorRows(table: Table): Promise<PendingRow[]> {
  const shared = sharedStrings();
  const once = (v: unknown): string => shared(String(v ?? ""));
  const out: PendingRow[] = [];
  // Batch by batch: the whole result as one Arrow table would sit in memory beside the rows made from it.
  const query = table
    .query()
    .where(NEEDS_VECTOR)
    .select(["id", "session_id", "ts", "block_type"])
    .withRowId();
  for await (const b of query) {
    const cols = ["id", "session_id", "ts", "block_type", "_rowid"].map((c) => b.getChild(c));
    for (let i = 0; i < b.numRows; i++)
      out.push({
        id: String(cols[0]?.get(i)),
        rowId: BigInt(cols[4]?.get(i)),
        sessionId: once(cols[1]?.get(i)),
        ts: once(cols[2]?.get(i)),
        blockType: once(cols[3]?.get(i)),
      });
  }
  return out;
}

/** Rows by id, `columns` only: a filter, so a scan of the whole table (use `readRows` when locations are known). */
async function rowsById(table: Table, ids: string[], columns: string[]): Promise<ArrowTableT[]> {
  if (ids.length === 0) return [];
  return [
    await table
      .query()
      .where(`id IN (${ids.map(sqlString).join(", ")})`)
      .select(columns)
      .toArrow(),
  ];
}

/**
 * Rows, `columns` only (`id` among them), taken by location. When a location no longer holds the row
 * listed there (the table was rewritten since: compaction, a forget), every row is looked up by id instead.
 */
async function readRows(table: Table, rows: PendingRow[], columns: string[]): Promise<ArrowTableT[]> {
  const ids = rows.map((r) => r.id);
  if (rows.some((r) => r.rowId === undefined)) return rowsById(table, ids, columns);
  let t: ArrowTableT;
  try {
    t = await table
      .takeRowIds(rows.map((r) => r.rowId as bigint))
      .select(columns)
      .toArrow();
  } catch {
    // A location past the end of a fragment that was rewritten: the slow path finds the rows or reports.
    return rowsById(table, ids, columns);
  }
  const wanted = new Set(ids);
  const idCol = t.getChild("id");
  let same = t.numRows === wanted.size;
  for (let i = 0; same && i < t.numRows; i++) same = wanted.delete(String(idCol?.get(i)));
  return same ? [t] : rowsById(table, ids, columns);
}

/** The texts of pending rows, read where they were listed (rows not found are absent). */
export async function pendingTexts(table: Table, rows: PendingRow[]): Promise<Map<string, string>> {
  return textMap(await readRows(table, rows, ["id", "text"]));
}

function textMap(tables: ArrowTableT[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of tables) {
    const ids = t.getChild("id");
    const texts = t.getChild("text");
    for (let i = 0; i < t.numRows; i++) out.set(String(ids?.get(i)), String(texts?.get(i) ?? ""));
  }
  return out;
}

/**
 * Sets the vectors of existing rows. Reads the rows whole, replaces their vector, and merges them back on
 * `id` in one commit. Returns how many rows it wrote.
 */
export async function writeVectors(table: Table, vectors: Map<string, Float32Array>): Promise<number> {
  if (vectors.size === 0) return 0;
  return mergeVectors(table, await rowsById(table, [...vectors.keys()], NON_VECTOR), vectors);
}

/** `writeVectors` for rows listed by `pendingVectorRows`: reads them where they were listed. */
export async function writePendingVectors(
  table: Table,
  rows: PendingRow[],
  vectors: Map<string, Float32Array>,
): Promise<number> {
  const wanted = rows.filter((r) => vectors.has(r.id));
  if (wanted.length === 0) return 0;
  return mergeVectors(table, await readRows(table, wanted, NON_VECTOR), vectors);
}

const NON_VECTOR: string[] = COLUMNS.filter((c) => c !== "vector");

async function mergeVectors(
  table: Table,
  current: ArrowTableT[],
  vectors: Map<string, Float32Array>,
): Promise<number> {
  // One output batch per result batch: a column's data is one chunk per batch.
  const batches = current.flatMap((t) =>
    t.batches.map((b) => {
      const n = b.numRows;
      const flat = new Float32Array(n * VECTOR_DIM);
      const idCol = b.getChild("id");
      for (let i = 0; i < n; i++) {
        const id = String(idCol?.get(i));
        const v = vectors.get(id);
        if (v === undefined || v.length !== VECTOR_DIM)
          throw new Error(`vector for row ${id} is not ${VECTOR_DIM}-d`);
        // The last guard before the disk: a NaN or infinite vector is never stored (nor counted embedded).
        if (!v.every(Number.isFinite))
          throw new Error(`vector for row ${id} is not finite (NaN or infinity)`);
        flat.set(v, i * VECTOR_DIM);
      }
      const child = arrow.makeData({ type: new arrow.Float32(), length: n * VECTOR_DIM, data: flat });
      return memoryBatch(b, arrow.makeData({ type: vectorType(), length: n, nullCount: 0, child }));
    }),
  );
  const n = batches.reduce((s, b) => s + b.numRows, 0);
  if (n === 0) return 0;
  await table.mergeInsert("id").whenMatchedUpdateAll().execute(new arrow.Table(batches));
  return n;
}
