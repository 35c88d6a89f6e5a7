/**
 * Rows waiting for vectors, and writing vectors into them. A vector write is one merge-insert keyed on
 * `id`: atomic, so a killed backfill leaves every row either with its full vector or still waiting.
 */
import type { Table } from "@lancedb/lancedb";
import type { Data } from "apache-arrow";
import { arrow } from "./arrow.js";
import { COLUMNS, chunkSchema, VECTOR_DIM, vectorType } from "./schema.js";
import { sqlString } from "./sql.js";

/** A row waiting for a vector, with what backfill orders by. */
export interface PendingRow {
  id: string;
  sessionId: string;
  ts: string;
  blockType: string;
}

/** Every row whose vector is null (ids and ordering keys only). */
export async function pendingVectorRows(table: Table): Promise<PendingRow[]> {
  const t = await table
    .query()
    .where("vector IS NULL")
    .select(["id", "session_id", "ts", "block_type"])
    .toArrow();
  const cols = ["id", "session_id", "ts", "block_type"].map((c) => t.getChild(c));
  const out: PendingRow[] = [];
  for (let i = 0; i < t.numRows; i++)
    out.push({
      id: String(cols[0]?.get(i)),
      sessionId: String(cols[1]?.get(i) ?? ""),
      ts: String(cols[2]?.get(i) ?? ""),
      blockType: String(cols[3]?.get(i) ?? ""),
    });
  return out;
}

/** The texts of rows by id (rows not found are absent). */
export async function textsOf(table: Table, ids: string[]): Promise<Map<string, string>> {
  const rows = await table
    .query()
    .where(`id IN (${ids.map(sqlString).join(", ")})`)
    .select(["id", "text"])
    .toArray();
  return new Map(rows.map((r) => [String(r.id), String(r.text)]));
}

/**
 * Sets the vectors of existing rows. Reads the rows whole, replaces their vector, and merges them back on
 * `id` in one commit.
 */
export async function writeVectors(table: Table, vectors: Map<string, Float32Array>): Promise<number> {
  if (vectors.size === 0) return 0;
  const ids = [...vectors.keys()];
  const current = await table
    .query()
    .where(`id IN (${ids.map(sqlString).join(", ")})`)
    .select(COLUMNS.filter((c) => c !== "vector"))
    .toArrow();
  if (current.numRows === 0) return 0;
  const schema = chunkSchema();
  // One output batch per result batch: a column's data is one chunk per batch.
  const batches = current.batches.map((b) => {
    const n = b.numRows;
    const flat = new Float32Array(n * VECTOR_DIM);
    const idCol = b.getChild("id");
    for (let i = 0; i < n; i++) {
      const id = String(idCol?.get(i));
      const v = vectors.get(id);
      if (v === undefined || v.length !== VECTOR_DIM)
        throw new Error(`vector for row ${id} is not ${VECTOR_DIM}-d`);
      flat.set(v, i * VECTOR_DIM);
    }
    const child = arrow.makeData({ type: new arrow.Float32(), length: n * VECTOR_DIM, data: flat });
    const vec = arrow.makeData({ type: vectorType(), length: n, nullCount: 0, child });
    const children = COLUMNS.map((c) => (c === "vector" ? vec : (b.getChild(c)?.data[0] as Data)));
    return new arrow.RecordBatch(
      schema,
      arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, children }),
    );
  });
  await table.mergeInsert("id").whenMatchedUpdateAll().execute(new arrow.Table(batches));
  const n = current.numRows;
  return n;
}
