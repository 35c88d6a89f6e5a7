/**
 * The Lance side of forgetting rows. Deleting a row in Lance only writes a deletion file: its bytes stay in
 * the data file, and compaction leaves a fragment alone when few of its rows are deleted (measured: one
 * deleted row of 3,000 left the data file as it was). So a purge rewrites every fragment that held a
 * forgotten row (its other rows are written again, which empties the old fragment and drops it), rebuilds
 * the indexes (the text index holds the forgotten rows' words, the vector index codes of their vectors),
 * then removes every older version's files.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Table } from "@lancedb/lancedb";
import { lancedb } from "./arrow.js";
import { VECTOR_INDEX } from "./publish-rows.js";
import { COLUMNS, TABLE_NAME } from "./schema.js";
import { HAS_VECTOR, sqlString } from "./sql.js";
import { type LocalStore, TEXT_INDEX } from "./store.js";

/** What a selector looks at in one row (no vector). */
export interface ForgetCandidate {
  id: string;
  sessionId: string;
  turnUuid: string;
  seq: number;
  ts: string;
  role: string;
  blockType: string;
  /** The tool a tool block calls or answers, else null. */
  toolName: string | null;
  blockIdx: number;
  /** The transcript it came from (the index's unit key for file sources). */
  sourcePath: string;
  text: string;
}

/** Ids per SQL filter. */
const IDS_PER_QUERY = 2_000;

const idFilter = (ids: string[]) => `id IN (${ids.map(sqlString).join(", ")})`;

/** Every row, with what forget's selectors need. */
export async function forgetCandidateRows(store: LocalStore): Promise<ForgetCandidate[]> {
  const { table } = store;
  const cols = [
    "id",
    "session_id",
    "turn_uuid",
    "seq",
    "ts",
    "role",
    "block_type",
    "text",
    "source_path",
    "tool_name",
    "block_idx",
  ];
  const t = await table.query().select(cols).toArrow();
  const c = cols.map((n) => t.getChild(n));
  const out: ForgetCandidate[] = [];
  const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
  for (let i = 0; i < t.numRows; i++)
    out.push({
      id: str(c[0]?.get(i)),
      sessionId: str(c[1]?.get(i)),
      turnUuid: str(c[2]?.get(i)),
      seq: Number(c[3]?.get(i) ?? 0),
      ts: str(c[4]?.get(i)),
      role: str(c[5]?.get(i)),
      blockType: str(c[6]?.get(i)),
      text: str(c[7]?.get(i)),
      sourcePath: str(c[8]?.get(i)),
      toolName: c[9]?.get(i) === null || c[9]?.get(i) === undefined ? null : String(c[9]?.get(i)),
      blockIdx: Number(c[10]?.get(i) ?? 0),
    });
  return out;
}

/** Deletes the rows with these ids (Lance writes deletion files; data files are left as they are). */
export async function deleteIds(table: Table, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY)
    await table.delete(idFilter(ids.slice(i, i + IDS_PER_QUERY)));
}

/**
 * Removes the rows with these ids so that no current data file holds them: the other rows of every fragment
 * that held one are written again (one merge: update those, delete the forgotten), which leaves the old
 * fragments empty, so the new version no longer references their files. Returns the rows written again.
 */
export async function rewriteWithout(
  table: Table,
  ids: Set<string>,
  alsoFragments: Set<bigint> = new Set(),
): Promise<number> {
  const live = await rowAddresses(table);
  const touched = new Set(alsoFragments);
  for (const id of ids) {
    const f = live.get(id);
    if (f !== undefined) touched.add(f);
  }
  if (touched.size === 0) return 0;
  const keep: string[] = [];
  for (const [id, fragment] of live) if (!ids.has(id) && touched.has(fragment)) keep.push(id);
  const forgotten = [...ids].filter((id) => live.has(id));
  if (keep.length === 0) {
    await deleteIds(table, forgotten);
    return 0;
  }
  // One commit: an interruption leaves either the old rows or the rewritten ones, never a loss.
  const parts: Awaited<ReturnType<typeof readRows>>[] = [];
  for (let i = 0; i < keep.length; i += IDS_PER_QUERY)
    parts.push(await readRows(table, keep.slice(i, i + IDS_PER_QUERY)));
  const first = parts[0];
  if (first === undefined) return 0;
  const source = parts.slice(1).reduce((a, b) => a.concat(b), first);
  let merge = table.mergeInsert("id").whenMatchedUpdateAll();
  if (forgotten.length > 0 && forgotten.length <= IDS_PER_QUERY)
    merge = merge.whenNotMatchedBySourceDelete({ where: idFilter(forgotten) });
  await merge.execute(source);
  if (forgotten.length > IDS_PER_QUERY) await deleteIds(table, forgotten);
  return keep.length;
}

/** Live row id → fragment id. Without stable row ids, a row id is an address: fragment in the high 32 bits. */
async function rowAddresses(table: Table): Promise<Map<string, bigint>> {
  const all = await table.query().select(["id"]).withRowId().toArrow();
  const idCol = all.getChild("id");
  const rowCol = all.getChild("_rowid");
  const out = new Map<string, bigint>();
  for (let i = 0; i < all.numRows; i++)
    out.set(String(idCol?.get(i)), BigInt(rowCol?.get(i) as bigint | number) >> 32n);
  return out;
}

/**
 * Fragments whose data files hold rows deleted earlier (a forget without a purge, a scrub, a vector write):
 * Lance names deletion files `_deletions/<fragment>-<version>-<random>.<ext>`.
 */
export function fragmentsWithDeletions(dir: string): Set<bigint> {
  const folder = join(dir, `${TABLE_NAME}.lance`, "_deletions");
  if (!existsSync(folder)) return new Set();
  const out = new Set<bigint>();
  for (const name of readdirSync(folder)) {
    const m = /^(\d+)-/.exec(name);
    if (m !== null) out.add(BigInt(m[1] as string));
  }
  return out;
}

async function readRows(table: Table, ids: string[]) {
  return table
    .query()
    .where(idFilter(ids))
    .select([...COLUMNS])
    .toArrow();
}

/** Rebuilds the full-text index when the table has one, so it no longer holds forgotten rows' words. */
export async function rebuildTextIndex(table: Table, had?: boolean): Promise<boolean> {
  if (!(had ?? (await table.listIndices()).some((i) => i.name === TEXT_INDEX))) return false;
  if ((await table.countRows()) === 0) return false;
  await table.createIndex("text", {
    config: lancedb.Index.fts({ withPosition: false }),
    replace: true,
    name: TEXT_INDEX,
  });
  return true;
}

/**
 * Rebuilds the vector index when the table has one: its codes were computed from the forgotten rows'
 * vectors too. A published memory's (IVF_PQ) is rebuilt with the settings a push builds it with
 * (publish-rows.ts: L2, 24 sub-vectors of 8 bits, 50 iterations, a type lance 7.0.0 reads). Any other kind
 * (the local memory's IVF_RQ, which `LocalStore.maintainVectorIndex` trains and keeps) is dropped here, for
 * its owner to train again from the rows that are left. Returns what it did.
 */
export async function rebuildVectorIndex(
  table: Table,
  kind?: string,
): Promise<"rebuilt" | "dropped" | "none"> {
  // `kind` is the index's type before a rewrite: Lance drops an index whose fragments were all rewritten.
  const index = (await table.listIndices()).find((i) => i.name === VECTOR_INDEX);
  const was = kind ?? index?.indexType;
  if (was === undefined) return "none";
  if (was !== "IvfPq") {
    if (index !== undefined) await table.dropIndex(VECTOR_INDEX);
    return "dropped";
  }
  if ((await table.countRows(HAS_VECTOR)) < 256) return "none"; // PQ training needs 256 vectors
  await table.createIndex("vector", {
    config: lancedb.Index.ivfPq({ distanceType: "l2", numSubVectors: 24, numBits: 8, maxIterations: 50 }),
    replace: true,
    name: VECTOR_INDEX,
  });
  return "rebuilt";
}

/** Margin past the current time for "older than": every version this run wrote is older, the newest kept. */
const CLEANUP_MARGIN_MS = 60_000;

/**
 * Removes every version but the newest, with their files (old data, deletion files, index generations,
 * manifests): "older than" a moment past `now`, since the versions this run just wrote (the rewrite, the
 * new index) still reference the old index and the untouched fragments' old files. Lance never removes the
 * newest version. Its optimize also compacts small fragments first; that is the price of the only cleanup
 * Node's Lance offers. Returns the bytes removed.
 */
export async function dropOldVersions(table: Table, now: number): Promise<number> {
  const r = await table.optimize({
    cleanupOlderThan: new Date(now + CLEANUP_MARGIN_MS),
    deleteUnverified: true,
  });
  return r.prune.bytesRemoved;
}

/**
 * Forgets rows of the memory in `dir` so their bytes leave the folder: rewrite (the fragments holding them,
 * and every fragment holding rows deleted before), reindex, clean up (see the file header). Each step can
 * run again after a kill: a rerun with the same ids finds nothing left to rewrite and cleans up. `onStep`
 * is told each step done (`forget:rewritten`, `forget:reindexed`, `forget:cleaned`).
 */
export async function purgeRows(
  table: Table,
  dir: string,
  ids: Set<string>,
  now: () => number,
  onStep: (step: string) => void = () => {},
): Promise<{ rewritten: number; bytesRemoved: number }> {
  // Asked before the rewrite: Lance drops an index whose fragments were all rewritten.
  const had = new Map((await table.listIndices()).map((i) => [i.name, i.indexType]));
  const rewritten = await rewriteWithout(table, ids, fragmentsWithDeletions(dir));
  onStep("forget:rewritten");
  await rebuildTextIndex(table, had.has(TEXT_INDEX));
  await rebuildVectorIndex(table, had.get(VECTOR_INDEX));
  onStep("forget:reindexed");
  const bytesRemoved = await dropOldVersions(table, now());
  onStep("forget:cleaned");
  return { rewritten, bytesRemoved };
}

/** Opens the table in a staged folder for one change, closing it after. */
export async function withStagedTable<T>(dir: string, fn: (t: Table) => Promise<T>): Promise<T> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(TABLE_NAME);
    try {
      return await fn(t);
    } finally {
      t.close();
    }
  } finally {
    db.close();
  }
}
