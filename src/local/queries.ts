/**
 * The reads recall and get make: the vector and keyword legs (filters applied before ranking), the turns
 * around hits, and a whole session.
 */
import type { Table } from "@lancedb/lancedb";
import { contentWords, wordsOf } from "../search/index.js";
import { sqlString } from "./sql.js";

/** A vector-leg hit: cosine similarity to the query (vectors are unit length). */
export interface VectorHit extends HitRow {
  similarity: number;
}

/** A keyword-leg hit: its BM25 score, and its vector (null while it waits for one, or when not asked for). */
export interface KeywordHit extends HitRow {
  bm25: number;
  vector: Float32Array | null;
}

/** What a keyword search looks for. */
export interface KeywordQuery {
  query: string;
  limit: number;
  /** A filter from `whereClause`. */
  where?: string | undefined;
  /** Also read each hit's vector (recall scores keyword hits by similarity too). */
  vectors?: boolean;
  /** The hit columns, when the caller knows them for this version of the table (saves a schema read). */
  columns?: string[];
}

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
  /** The tool a tool block calls or answers (as the agent named it), else null. */
  toolName: string | null;
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
  "tool_name",
  "seq",
  "block_idx",
  "split_idx",
];

/**
 * A result row as a hit. A hit with more fields is built as `Object.assign(toHit(r), {…})`, never as
 * `{ ...toHit(r), … }`: on Node 20's V8 a spread followed by more properties takes a slow path, 10–20 µs an
 * object on a busy 2-core machine (30 keyword hits: up to 0.5 ms of a recall) against < 0.5 µs this way.
 */
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
    toolName: r.tool_name === undefined || r.tool_name === null ? null : String(r.tool_name),
    harness: r.harness === undefined || r.harness === null ? "" : String(r.harness),
    seq: Number(r.seq),
    blockIdx: Number(r.block_idx),
    splitIdx: Number(r.split_idx),
  };
}

/**
 * Whether each open table has the `harness` column, asked of Lance once per table object: a recall makes
 * three or four queries of one table it opened for that recall, and each schema read costs ≈ 0.3 ms of a
 * ≈ 10 ms keyword recall. Nothing adds the column to an existing table (a memory from before the facet lacks
 * it until rebuilt, and a reader opens the rebuilt table as a new table object).
 */
const harnessColumn = new WeakMap<Table, Promise<boolean>>();

/** True when the memory has the `harness` column (memories from before the facet lack it). */
export function hasHarnessColumn(table: Table): Promise<boolean> {
  let has = harnessColumn.get(table);
  if (has === undefined) {
    has = table.schema().then((s) => s.fields.some((f) => f.name === "harness"));
    // A failed read is not remembered: the next query asks again.
    has.catch(() => harnessColumn.delete(table));
    harnessColumn.set(table, has);
  }
  return has;
}

/** The hit columns this memory has (memories from before the harness facet lack it). */
export async function hitColumns(table: Table): Promise<string[]> {
  return hitColumnsOf(await hasHarnessColumn(table));
}

/** The hit columns of a memory with or without the `harness` column. */
export function hitColumnsOf(harness: boolean): string[] {
  return harness ? [...HIT_COLUMNS, "harness"] : HIT_COLUMNS;
}

/**
 * Rows up to which vector search scans exactly even when the memory has a vector index (a published
 * memory may carry the reference's IVF_PQ index): ≈ 40 ms per 100k rows on 2 cores, and exact.
 */
export const EXACT_SEARCH_MAX_ROWS = 400_000;

/**
 * Rows from which the local memory keeps its own vector index: an exact scan of 16k rows takes ≈ 17–28 ms
 * on 2 cores, the index ≈ 6 ms with 0.995 of the exact top 20 (exact re-ranking of 10x the candidates).
 */
export const LOCAL_INDEX_MIN_ROWS = 10_000;

/** What a vector search looks for. */
export interface VectorQuery {
  vector: Float32Array;
  limit: number;
  where?: string | undefined;
  /** Rows up to which the scan is exact whatever indexes exist (default EXACT_SEARCH_MAX_ROWS). */
  exactMaxRows?: number;
  /** The hit columns, when the caller knows them for this version of the table (saves a schema read). */
  columns?: string[];
  /**
   * The table's vector index (its type, null: none) and row count, when the caller knows them for this
   * version of the table: saves listing the indexes and counting rows on every search.
   */
  layout?: VectorLayout;
}

/** What decides how a vector search runs: the vector index's type (null: none) and the rows. */
export interface VectorLayout {
  indexType: string | null;
  rows: number;
}

/** The table's {@link VectorLayout}, read from Lance (two calls). */
export async function vectorLayout(table: Table): Promise<VectorLayout> {
  const [indices, rows] = await Promise.all([table.listIndices(), table.countRows()]);
  const index = indices.find((i) => i.columns.includes("vector"));
  return { indexType: index === undefined ? null : index.indexType, rows };
}

/**
 * Nearest rows by dot product of normalised vectors; rows without a vector are skipped. An exact scan, or,
 * past the size where that stops being cheap, the vector index if there is one, with its candidates
 * re-ranked exactly (rows added since the index was built are scanned exactly).
 */
export async function vectorSearch(table: Table, vq: VectorQuery): Promise<VectorHit[]> {
  const { vector, limit, where } = vq;
  const layout = vq.layout ?? (await vectorLayout(table));
  // Our own index (IVF_RQ, re-ranked exactly) is used from LOCAL_INDEX_MIN_ROWS; another tool's (the
  // reference's IVF_PQ) only past EXACT_SEARCH_MAX_ROWS.
  const exactMax =
    vq.exactMaxRows ?? (layout.indexType === "IvfRq" ? LOCAL_INDEX_MIN_ROWS : EXACT_SEARCH_MAX_ROWS);
  const exact = layout.indexType === null || layout.rows <= exactMax;
  let q = table
    .query()
    .nearestTo(vector)
    .select(vq.columns ?? (await hitColumns(table)))
    .limit(limit);
  // An index answers only in the metric it was trained with (L2); on unit vectors L2 orders rows as dot does.
  q = exact ? q.distanceType("dot").bypassVectorIndex() : q.distanceType("l2").nprobes(32).refineFactor(10);
  if (where !== undefined) q = q.where(where);
  // Lance's dot distance is 1 − dot; its l2 distance is squared, 2 − 2·cos on unit vectors.
  return (await q.toArray()).map((r) => {
    const d = Number(r._distance);
    return Object.assign(toHit(r), { similarity: exact ? 1 - d : 1 - d / 2 });
  });
}

/** Most terms a keyword query is sent with: more only costs time. */
export const MAX_QUERY_TERMS = 64;

/**
 * The terms a keyword query is sent with: each word once (the tokenizer lowercases, so case-insensitively),
 * and past MAX_QUERY_TERMS distinct words, the first and the last half of them. A pasted log or stack trace
 * says what it is about at its start and what went wrong at its end; its middle repeats generic lines, and
 * cutting at the first words dropped the failing line itself.
 */
export function queryTerms(words: string[]): string[] {
  const seen = new Set<string>();
  const distinct = words.filter((w) => {
    const k = w.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (distinct.length <= MAX_QUERY_TERMS) return distinct;
  const half = MAX_QUERY_TERMS / 2;
  return [...distinct.slice(0, half), ...distinct.slice(-half)];
}

/**
 * BM25 over the text. The query's content words (letters, digits, `_`; its function words left out unless
 * it has no other) are the terms, OR'ed: punctuation and FTS
 * syntax never reach Lance, so no query can be a syntax error. Words-free queries match nothing.
 */
export async function keywordSearch(table: Table, kq: KeywordQuery): Promise<KeywordHit[]> {
  const { query, limit, where } = kq;
  const terms = wordsOf(query);
  if (terms.length === 0) return [];
  // The question's topic words: its function words ("when did she", "how do we") outscore the topic in
  // short passages that say them too (search/query-words.ts).
  const text = queryTerms(contentWords(terms)).join(" ");
  let q = table
    .query()
    .fullTextSearch(text, { columns: ["text"] })
    .select({
      ...Object.fromEntries((kq.columns ?? (await hitColumns(table))).map((c) => [c, c])),
      _score: "_score",
      ...(kq.vectors === true ? { vector: "vector" } : {}),
    })
    .limit(limit);
  if (where !== undefined) q = q.where(where);
  return (await q.toArray()).map((r) =>
    Object.assign(toHit(r), { bm25: Number(r._score), vector: toVector(r.vector) }),
  );
}

function toVector(v: unknown): Float32Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Float32Array) return v;
  const arr = (v as { toArray?: () => ArrayLike<number> }).toArray?.() ?? (v as ArrayLike<number>);
  return Float32Array.from(arr);
}

/** Every chunk of these sessions within these seq ranges, in one scan. */
export async function rowsInRanges(
  table: Table,
  ranges: { sessionId: string; from: number; to: number }[],
  columns?: string[],
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
      .select(columns ?? (await hitColumns(table)))
      .toArray()
  ).map(toHit);
}

/** Every chunk of one session. */
export async function sessionRows(table: Table, sessionId: string, columns?: string[]): Promise<HitRow[]> {
  return (
    await table
      .query()
      .where(`session_id = ${sqlString(sessionId)}`)
      .select(columns ?? (await hitColumns(table)))
      .toArray()
  ).map(toHit);
}
