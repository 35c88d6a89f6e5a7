/**
 * An approximate vector index beside a read-only memory (a cached copy of a Hub memory), for federated
 * recall: a small Lance table of (row id, vector) with an IVF_RQ index (4-bit, dot), searched with exact
 * re-ranking of 10x the candidates, whose row ids then fetch the rows from the memory itself. The memory's
 * own files are never written (they are hard links into the Hugging Face cache). Measured on 103k rows:
 * ~3 s to build once, 6.5 ms a query against 37.5 ms for an exact scan, 0.985 of the exact top 20.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import type { Table } from "@lancedb/lancedb";
import { arrow, lancedb } from "./arrow.js";
import { hitColumns, toHit, type VectorHit } from "./queries.js";
import { HAS_VECTOR } from "./sql.js";

const SIDE_TABLE = "ann";

/** Rows with vectors below which an exact scan is cheap enough and no side index is built. */
export const ANN_MIN_ROWS = 50_000;

/** Where the side index of the memory in `dir` lives. */
export function annDir(dir: string): string {
  return `${dir}.ann`;
}

/** Builds the side index of `table` (the memory in `dir`) unless it exists; false when too small to need one. */
export async function buildAnnIndex(table: Table, dir: string, minRows = ANN_MIN_ROWS): Promise<boolean> {
  const out = annDir(dir);
  if (existsSync(out)) return true;
  if ((await table.countRows(HAS_VECTOR)) < minRows) return false;
  const rows = await table.query().where(HAS_VECTOR).select(["vector"]).withRowId().toArrow();
  const side = new arrow.Table({
    row: arrow.vectorFromArray(Array.from(rows.getChild("_rowid") as Iterable<bigint>), new arrow.Uint64()),
    vector: rows.getChild("vector") as NonNullable<ReturnType<typeof rows.getChild>>,
  });
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const db = await lancedb.connect(tmp);
  try {
    const t = await db.createTable(SIDE_TABLE, side);
    await t.createIndex("vector", { config: lancedb.Index.ivfRq({ distanceType: "dot", numBits: 4 }) });
    t.close();
  } finally {
    db.close();
  }
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process built it first
  }
  return true;
}

/** Nearest rows of `table` by the side index in `annDir(dir)`; null when there is none. */
export async function annSearch(
  table: Table,
  dir: string,
  vector: Float32Array,
  limit: number,
): Promise<VectorHit[] | null> {
  const out = annDir(dir);
  if (!existsSync(out)) return null;
  const db = await lancedb.connect(out);
  try {
    const side = await db.openTable(SIDE_TABLE);
    try {
      const near = await side
        .query()
        .nearestTo(vector)
        .distanceType("dot")
        .nprobes(20)
        .refineFactor(10)
        .select(["row"])
        .limit(limit)
        .toArray();
      if (near.length === 0) return [];
      const ids = near.map((r) => BigInt(r.row));
      // The side index's dot distance is 1 − dot (cosine on unit vectors).
      const sim = new Map(near.map((r) => [BigInt(r.row), 1 - Number(r._distance)]));
      const rows = await table
        .takeRowIds(ids)
        .select(await hitColumns(table))
        .withRowId()
        .toArray();
      const byRow = new Map(rows.map((r) => [BigInt(r._rowid), r]));
      return ids.flatMap((id) => {
        const r = byRow.get(id);
        return r === undefined ? [] : [Object.assign(toHit(r), { similarity: sim.get(id) ?? 0 })];
      });
    } finally {
      side.close();
    }
  } finally {
    db.close();
  }
}
