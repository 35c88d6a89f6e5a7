/**
 * Folding a published memory's small fragments into few, in a staged copy (docs/publish-protocol.md,
 * "Compaction"). Every push adds a fragment of its own (a data file), so a memory a team publishes to each
 * turn gains thousands of small ones. Lance's `optimize()` would merge every fragment below ~1M rows, i.e.
 * write the whole table again each time; here only the newest small fragments are folded, by a size-tiered
 * rule ({@link foldGroup}), so a row is written again a few times in its life, not once per compaction.
 *
 * A fold reads the chosen fragments' live rows and merges them back on `id` (`whenMatchedUpdateAll`): one
 * new fragment holds them, and the old ones, left with no live row, leave the manifest (the way
 * forget-rows.ts rewrites the fragments holding a forgotten row). The text index is then brought up to
 * date, the vector index kept by the push's rules, and every file the newest version no longer needs is
 * removed: Lance's own cleanup is only reachable through `optimize()`, which would compact everything.
 */
import { readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Table } from "@lancedb/lancedb";
import { lancedb } from "./arrow.js";
import { deleteIds, rebuildVectorIndex, withStagedTable } from "./forget-rows.js";
import { filesBesidesNewest, newestVersionFiles } from "./manifest-files.js";
import { PUBLISH_FRAGMENT_ROWS, refreshVectorIndex, VECTOR_INDEX } from "./publish-rows.js";
import { COLUMNS, TABLE_NAME } from "./schema.js";
import { TEXT_INDEX } from "./store.js";

/** A fragment's size in live rows, by id (ids grow with age: a fold's fragment is the newest). */
export interface FragmentRows {
  id: bigint;
  rows: number;
}

/**
 * Rows from which a fragment is full and never folded again: the size a push writes a large memory in
 * (publish-rows.ts), at which an exact vector search runs fragments in parallel to good effect.
 */
export const FULL_FRAGMENT_ROWS = PUBLISH_FRAGMENT_ROWS;

/**
 * The fragments to fold into one (ids, oldest first), or none. Walking from the newest back, a fragment
 * joins while it is small (under `full` rows) and either tiny (a sixteenth of `full`: pushes come in all
 * sizes, and a few rows cost nothing to write again) or holds no more rows than those gathered so far; at
 * least two fragments make a fold. So a fragment past tiny is written again only when what joins it at
 * least doubles it: a row is rewritten a few times (log2 16 and the tiny folds) before its fragment is
 * full, then never again, and the fragments left after a fold at least halve from the oldest small one to
 * the newest (a dozen at most). A fold holds the rows pushed since the last one and less than twice `full`
 * of older rows.
 */
export function foldGroup(fragments: readonly FragmentRows[], full = FULL_FRAGMENT_ROWS): bigint[] {
  const tiny = Math.floor(full / 16);
  const group: bigint[] = [];
  let gathered = 0;
  for (let i = fragments.length - 1; i >= 0; i--) {
    const f = fragments[i] as FragmentRows;
    if (f.rows >= full || (group.length > 0 && f.rows > gathered && f.rows > tiny)) break;
    group.push(f.id);
    gathered += f.rows;
  }
  return group.length >= 2 ? group.reverse() : [];
}

/** What a fold did to a staged memory. */
export interface FoldResult {
  /** Live rows after the fold (every row it started with, less forgotten ones it found). */
  rows: number;
  fragmentsBefore: number;
  fragmentsAfter: number;
  /** Fragments folded into one (0: none). */
  folded: number;
  rowsRewritten: number;
  /** Rows still live whose id the memory's forgotten list names, deleted. */
  forgottenRemoved: number;
  textIndex: "built" | "rebuilt" | "current" | "none";
  vectorIndex: "rebuilt" | "current" | "none";
  /** Files of older versions removed from the stage, and their bytes. */
  filesRemoved: number;
  bytesRemoved: number;
}

/** Ids to read per take. */
const TAKE_ROWS = 16_384;

/** Live row id → row address, and each fragment's live rows (a row address is fragment << 32 | offset). */
async function liveRows(t: Table): Promise<{ at: Map<string, bigint>; fragments: FragmentRows[] }> {
  const all = await t.query().select(["id"]).withRowId().toArrow();
  const ids = all.getChild("id");
  const rowIds = all.getChild("_rowid");
  const at = new Map<string, bigint>();
  const count = new Map<bigint, number>();
  for (let i = 0; i < all.numRows; i++) {
    const addr = BigInt(rowIds?.get(i) as bigint | number);
    at.set(String(ids?.get(i)), addr);
    const f = addr >> 32n;
    count.set(f, (count.get(f) ?? 0) + 1);
  }
  const fragments = [...count]
    .map(([id, rows]) => ({ id, rows }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { at, fragments };
}

/** Writes the rows of `group`'s fragments again as one fragment; returns how many. */
async function rewriteFragments(t: Table, at: Map<string, bigint>, group: Set<bigint>): Promise<number> {
  const addrs = [...at.values()].filter((a) => group.has(a >> 32n)).sort((a, b) => (a < b ? -1 : 1));
  if (addrs.length === 0) return 0;
  const parts = [];
  for (let i = 0; i < addrs.length; i += TAKE_ROWS)
    parts.push(
      await t
        .takeRowIds(addrs.slice(i, i + TAKE_ROWS).map(Number))
        .select([...COLUMNS])
        .toArrow(),
    );
  const first = parts[0];
  if (first === undefined) return 0;
  const rows = parts.slice(1).reduce((a, b) => a.concat(b), first);
  if (rows.numRows !== addrs.length)
    throw new Error(`read ${rows.numRows} of the ${addrs.length} rows of the fragments to fold`);
  await t.mergeInsert("id").whenMatchedUpdateAll().execute(rows);
  return rows.numRows;
}

/** Builds the text index when missing, rebuilds it when a row sits outside it (positions off, as a push). */
async function currentTextIndex(t: Table): Promise<FoldResult["textIndex"]> {
  if ((await t.countRows()) === 0) return "none";
  const has = (await t.listIndices()).some((i) => i.name === TEXT_INDEX);
  if (has && ((await t.indexStats(TEXT_INDEX))?.numUnindexedRows ?? 0) === 0) return "current";
  await t.createIndex("text", {
    config: lancedb.Index.fts({ withPosition: false }),
    replace: true,
    name: TEXT_INDEX,
  });
  return has ? "rebuilt" : "built";
}

/**
 * Folds the memory staged in `dir` (the folder holding `chunks.lance`): deletes live rows whose id is in
 * `forgotten`, folds the newest small fragments ({@link foldGroup}), brings the text index up to date, keeps
 * the vector index by the push's rules (rebuilt if the fold left it with no fragment), removes every file
 * the newest version does not need, and checks that what is left opens and reads every row. Throws when it
 * does not (the stage is then not to be published), or `UnsupportedManifestError` for a manifest whose
 * files funes cannot tell.
 */
export async function foldFragmentsIn(
  dir: string,
  o: { forgotten: ReadonlySet<string>; fullRows?: number | undefined },
): Promise<FoldResult> {
  const before = newestVersionFiles(dir);
  const r: FoldResult = {
    rows: 0,
    fragmentsBefore: before?.contents.fragments.length ?? 0,
    fragmentsAfter: 0,
    folded: 0,
    rowsRewritten: 0,
    forgottenRemoved: 0,
    textIndex: "none",
    vectorIndex: "none",
    filesRemoved: 0,
    bytesRemoved: 0,
  };
  if (before === null) return r;
  let vectorKind: string | undefined;
  await withStagedTable(dir, async (t) => {
    vectorKind = (await t.listIndices()).find((i) => i.name === VECTOR_INDEX)?.indexType;
    let live = await liveRows(t);
    const forgotten = [...o.forgotten].filter((id) => live.at.has(id));
    if (forgotten.length > 0) {
      await deleteIds(t, forgotten);
      r.forgottenRemoved = forgotten.length;
      live = await liveRows(t);
    }
    r.rows = live.at.size;
    const group = foldGroup(live.fragments, o.fullRows);
    if (group.length > 0) {
      r.rowsRewritten = await rewriteFragments(t, live.at, new Set(group));
      r.folded = group.length;
    }
    r.textIndex = await currentTextIndex(t);
    // Lance drops an index none of whose fragments is left: a published memory's is built again.
    const vectorNow = (await t.listIndices()).some((i) => i.name === VECTOR_INDEX);
    if (vectorKind !== undefined && !vectorNow)
      r.vectorIndex = (await rebuildVectorIndex(t, vectorKind)) === "rebuilt" ? "rebuilt" : "none";
    else if (vectorKind !== undefined) r.vectorIndex = "current";
  });
  // Rows a fold moved sit outside the vector index until it is rebuilt, by the push's thresholds.
  if (r.vectorIndex === "current" && (await refreshVectorIndex(dir))) r.vectorIndex = "rebuilt";
  const table = join(dir, `${TABLE_NAME}.lance`);
  for (const rel of filesBesidesNewest(dir)) {
    const p = join(table, rel);
    r.bytesRemoved += statSync(p).size;
    rmSync(p, { force: true });
    r.filesRemoved++;
    // An index generation is a folder of its own: gone with its last file.
    if (rel.startsWith("_indices/") && readdirSync(dirname(p)).length === 0) rmdirSync(dirname(p));
  }
  r.fragmentsAfter = newestVersionFiles(dir)?.contents.fragments.length ?? 0;
  await checkReadable(dir, r.rows, r.textIndex !== "none");
  return r;
}

/**
 * Opens the folded memory afresh and reads it: the row count, every row's id (every data and deletion file
 * opened), and a text search when it has the index. Anything missing throws here, before a commit.
 */
async function checkReadable(dir: string, rows: number, textIndex: boolean): Promise<void> {
  await withStagedTable(dir, async (t) => {
    const counted = await t.countRows();
    let scanned = 0;
    for await (const b of t.query().select(["id"])) scanned += b.numRows;
    if (counted !== rows || scanned !== rows)
      throw new Error(`the folded memory reads ${counted} rows (${scanned} scanned), not ${rows}`);
    if (textIndex) {
      if (!(await t.listIndices()).some((i) => i.name === TEXT_INDEX))
        throw new Error("the folded memory lost its text index");
      await t.search("funes", "fts").select(["id"]).limit(1).toArray();
    }
  });
}
