/**
 * Reading a large memory for a push without holding it: every row's place (small columns only), the texts
 * of some rows at a time (for the secret gate, block group by block group), and the rows to publish as a
 * stream of batches. A first push of a million chunks held them all at once (vectors and texts as one Arrow
 * table, ≈ 2 GB, and every text again as JavaScript strings, ≈ 1.3 GB); read this way it holds one group.
 *
 * The reads of one push must agree with each other (the rows published are the rows the gate read), so the
 * push pins the table at one version first (`pinVersion`).
 */
import type { RecordBatch, Table } from "apache-arrow";
import { memoryBatch, sharedStrings } from "./rows.js";
import { COLUMNS } from "./schema.js";
import { HAS_VECTOR, sqlString } from "./sql.js";
import type { LocalStore } from "./store.js";

/** Where a stored row is and which block it belongs to: no text, no vector. */
export interface RowPlace {
  id: string;
  sessionId: string;
  turnUuid: string;
  blockIdx: number;
  splitIdx: number;
  /** Lance `_rowid` at the pinned version: fragment << 32 | offset, well below 2^53. */
  rowId: number;
  /** The row has a vector (only those are published). */
  embedded: boolean;
}

/**
 * Fixes the store's table at its current version: every later read through it sees the same rows, whatever
 * an index run commits meanwhile. For a store opened for one command (a push), closed after it.
 */
export async function pinVersion(store: LocalStore): Promise<number> {
  const version = await store.table.version();
  await store.table.checkout(version);
  return version;
}

/**
 * False once `version` is gone from the table's history: an index run compacted the memory and dropped the
 * versions before it (`compactIfFragmented`), so a read pinned there finds its files missing.
 */
export async function versionKept(store: LocalStore, version: number): Promise<boolean> {
  return (await store.table.listVersions()).some((v) => v.version === version);
}

/**
 * Every row's place, in scan order (small columns only, batch by batch). Strings many rows share (a
 * session, a turn) are kept once: a million rows hold ≈ 100 MB here.
 */
export async function rowPlaces(store: LocalStore): Promise<RowPlace[]> {
  const shared = sharedStrings();
  const once = (v: unknown): string => shared(String(v));
  const out: RowPlace[] = [];
  const query = store.table
    .query()
    .select({
      id: "id",
      session_id: "session_id",
      turn_uuid: "turn_uuid",
      block_idx: "block_idx",
      split_idx: "split_idx",
      embedded: HAS_VECTOR,
    })
    .withRowId();
  for await (const b of query) {
    const cols = ["id", "session_id", "turn_uuid", "block_idx", "split_idx", "embedded", "_rowid"].map((c) =>
      b.getChild(c),
    );
    for (let i = 0; i < b.numRows; i++)
      out.push({
        id: String(cols[0]?.get(i)),
        sessionId: once(cols[1]?.get(i)),
        turnUuid: once(cols[2]?.get(i)),
        blockIdx: Number(cols[3]?.get(i)),
        splitIdx: Number(cols[4]?.get(i)),
        embedded: cols[5]?.get(i) === true,
        rowId: Number(cols[6]?.get(i)),
      });
  }
  return out;
}

/**
 * The string columns a row is published with besides `text`, each scanned by the secret gate: a secret in
 * any of them leaves the machine as surely as one in the text. `id` is not among them: funes derives it (a
 * hash of the session, turn, block and split, which are).
 */
export const FIELD_COLUMNS = [
  "session_id",
  "workdir",
  "turn_uuid",
  "parent_uuid",
  "ts",
  "role",
  "block_type",
  "tool_name",
  "source_path",
  "harness",
  "repo",
] as const;

/** A stored row's strings: its text, and the values of its other string columns (null ones left out). */
export interface RowStrings {
  text: string;
  /** `[column, value]` for each of {@link FIELD_COLUMNS} the row has a value in. */
  fields: [string, string][];
}

/**
 * The strings of `rows` (listed by `rowPlaces` at the pinned version), by id: read where they were listed;
 * if a location no longer holds its row, all of them are looked up by id instead (a scan). An older memory
 * without the `harness` or `repo` column is read without it.
 */
export async function stringsAt(
  store: LocalStore,
  rows: Pick<RowPlace, "id" | "rowId">[],
): Promise<Map<string, RowStrings>> {
  const out = new Map<string, RowStrings>();
  if (rows.length === 0) return out;
  const present = new Set((await store.table.schema()).fields.map((f) => f.name));
  const fields = FIELD_COLUMNS.filter((c) => present.has(c));
  const columns = ["id", "text", ...fields];
  const read = (t: Table) => {
    const ids = t.getChild("id");
    const texts = t.getChild("text");
    const values = fields.map((c) => [c, t.getChild(c)] as const);
    for (let i = 0; i < t.numRows; i++) {
      const row: RowStrings = { text: String(texts?.get(i)), fields: [] };
      for (const [c, v] of values) {
        const x = v?.get(i);
        if (x !== null && x !== undefined) row.fields.push([c, String(x)]);
      }
      out.set(String(ids?.get(i)), row);
    }
  };
  try {
    read(
      await store.table
        .takeRowIds(rows.map((r) => r.rowId))
        .select(columns)
        .toArrow(),
    );
  } catch {
    // A location past the end of a rewritten fragment: found by id below.
  }
  if (rows.every((r) => out.has(r.id))) return out;
  out.clear();
  read(
    await store.table
      .query()
      .where(`id IN (${rows.map((r) => sqlString(r.id)).join(", ")})`)
      .select(columns)
      .toArrow(),
  );
  return out;
}

/**
 * The rows of `b` whose id is in `keep`, as zero-copy slices in the memory schema (one per run of
 * consecutive kept rows): copying them out value by value would hold every vector as JavaScript numbers.
 */
export function keptSlices(b: RecordBatch, keep: Set<string>): RecordBatch[] {
  const ids = b.getChild("id");
  const out: RecordBatch[] = [];
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
}

/**
 * Rows of a local memory to publish, read as they are written: those with a vector whose id is in `ids`.
 * With `rowIds` (their `_rowid`s at the pinned version, ascending), they are taken by location a part at a
 * time: a scan of every column read ahead ≈ 300 MB more at a million rows than takes of 16k rows do.
 */
export interface LocalRows {
  store: LocalStore;
  ids: Set<string>;
  rowIds?: Float64Array | undefined;
}

/** Rows per take when reading rows by location (the size of a published part). */
const TAKE_ROWS = 16_384;

/** The rows `rows` names, every column in schema order, as a stream of batches in scan order. */
export async function* streamRows(rows: LocalRows): AsyncGenerator<RecordBatch> {
  if (rows.ids.size === 0) return;
  if (rows.rowIds === undefined) {
    yield* scanRows(rows);
    return;
  }
  for (let from = 0; from < rows.rowIds.length; from += TAKE_ROWS) {
    const at = Array.from(rows.rowIds.subarray(from, from + TAKE_ROWS));
    const t = await rows.store.table
      .takeRowIds(at)
      .select([...COLUMNS])
      .toArrow();
    // The table is pinned: a location holds the row listed there, or the memory changed under the push.
    if (t.numRows !== at.length)
      throw new Error(`${at.length - t.numRows} rows moved while they were read for publishing`);
    for (const b of t.batches) yield* keptSlices(b, rows.ids);
  }
}

/** The rows `rows.ids` names, by a scan of every row with a vector (in scan order). */
async function* scanRows(rows: LocalRows): AsyncGenerator<RecordBatch> {
  const query = rows.store.table
    .query()
    .where(HAS_VECTOR)
    .select([...COLUMNS]);
  for await (const b of query) yield* keptSlices(b, rows.ids);
}

/**
 * The size of the rows `rows.ids` names, as uncompressed Arrow rows (bytes): what a dry run reports, summed
 * over the batches of a scan (a row's share of a batch's text buffer counts as it always has).
 */
export async function rowBytes(rows: LocalRows): Promise<number> {
  let n = 0;
  if (rows.ids.size > 0) for await (const b of scanRows(rows)) n += b.data.byteLength;
  return n;
}
