/**
 * The reads recall and get make: the vector and keyword legs (filters applied before ranking), the turns
 * around hits, and a whole session.
 */
import type { Table } from "@lancedb/lancedb";
import { sqlString } from "./sql.js";

/** A stored chunk as recall sees it. */
export interface HitRow {
  id: string;
  text: string;
  sessionId: string;
  workdir: string;
  turnUuid: string;
  ts: string;
  role: string;
  blockType: string;
  harness: string;
  seq: number;
  blockIdx: number;
  splitIdx: number;
}

const HIT_COLUMNS = [
  "id",
  "text",
  "session_id",
  "workdir",
  "turn_uuid",
  "ts",
  "role",
  "block_type",
  "seq",
  "block_idx",
  "split_idx",
];

/** A result row as a hit. */
export function toHit(r: Record<string, unknown>): HitRow {
  return {
    id: String(r.id),
    text: String(r.text ?? ""),
    sessionId: String(r.session_id ?? ""),
    workdir: String(r.workdir ?? ""),
    turnUuid: String(r.turn_uuid ?? ""),
    ts: String(r.ts ?? ""),
    role: String(r.role ?? ""),
    blockType: String(r.block_type ?? ""),
    harness: r.harness === undefined || r.harness === null ? "" : String(r.harness),
    seq: Number(r.seq),
    blockIdx: Number(r.block_idx),
    splitIdx: Number(r.split_idx),
  };
}

/** The hit columns this memory has (memories from before the harness facet lack it). */
export async function hitColumns(table: Table): Promise<string[]> {
  const schema = await table.schema();
  const names = new Set(schema.fields.map((f) => f.name));
  return names.has("harness") ? [...HIT_COLUMNS, "harness"] : HIT_COLUMNS;
}

/** True when the memory has the `harness` column (memories from before the facet lack it). */
export async function hasHarnessColumn(table: Table): Promise<boolean> {
  return (await table.schema()).fields.some((f) => f.name === "harness");
}

/**
 * Rows up to which vector search scans exactly even when the memory has a vector index (a published
 * memory may carry the reference's IVF_PQ index): ≈ 40 ms per 100k rows on 2 cores, and exact.
 */
export const EXACT_SEARCH_MAX_ROWS = 400_000;

/**
 * Nearest rows by dot product of normalised vectors; rows without a vector are skipped. An exact scan up to
 * EXACT_SEARCH_MAX_ROWS; past that, the vector index if there is one, with its candidates re-ranked exactly.
 */
export async function vectorSearch(
  table: Table,
  vector: Float32Array,
  limit: number,
  where?: string,
): Promise<HitRow[]> {
  const exact = (await table.countRows()) <= EXACT_SEARCH_MAX_ROWS;
  let q = table
    .query()
    .nearestTo(vector)
    .select(await hitColumns(table))
    .limit(limit);
  // An index answers only in the metric it was trained with (L2); on unit vectors L2 orders rows as dot does.
  q = exact ? q.distanceType("dot").bypassVectorIndex() : q.distanceType("l2").nprobes(32).refineFactor(10);
  if (where !== undefined) q = q.where(where);
  return (await q.toArray()).map(toHit);
}

/**
 * BM25 over the text. The query's words (letters, digits, `_`) are the terms, OR'ed: punctuation and FTS
 * syntax never reach Lance, so no query can be a syntax error. Words-free queries match nothing.
 */
export async function keywordSearch(
  table: Table,
  query: string,
  limit: number,
  where?: string,
): Promise<HitRow[]> {
  const terms = query.match(/[\p{L}\p{N}_]+/gu);
  if (terms === null) return [];
  // Very long queries are cut to their first 64 words: more only costs time.
  const text = terms.slice(0, 64).join(" ");
  let q = table
    .query()
    .fullTextSearch(text, { columns: ["text"] })
    .select([...(await hitColumns(table)), "_score"])
    .limit(limit);
  if (where !== undefined) q = q.where(where);
  return (await q.toArray()).map(toHit);
}

/** Every chunk of these sessions within these seq ranges, in one scan. */
export async function rowsInRanges(
  table: Table,
  ranges: { sessionId: string; from: number; to: number }[],
): Promise<HitRow[]> {
  if (ranges.length === 0) return [];
  const where = ranges
    .map(
      (r) =>
        `(session_id = ${sqlString(r.sessionId)} AND seq >= ${Math.trunc(r.from)} AND seq <= ${Math.trunc(r.to)})`,
    )
    .join(" OR ");
  return (
    await table
      .query()
      .where(where)
      .select(await hitColumns(table))
      .toArray()
  ).map(toHit);
}

/** Every chunk of one session. */
export async function sessionRows(table: Table, sessionId: string): Promise<HitRow[]> {
  return (
    await table
      .query()
      .where(`session_id = ${sqlString(sessionId)}`)
      .select(await hitColumns(table))
      .toArray()
  ).map(toHit);
}
