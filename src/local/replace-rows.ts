/**
 * Rewriting stored chunks in place (scrub): read rows whole as chunks, and swap a set of rows for their
 * replacements in a single commit, so an interrupted rewrite leaves either the old rows or the new ones.
 */
import type { Chunk } from "../chunk/index.js";
import { chunksToArrow } from "./rows.js";
import { sqlString } from "./sql.js";
import type { LocalStore } from "./store.js";

/** Ids per filter when reading rows by id (keeps each SQL filter a reasonable size). */
const IDS_PER_QUERY = 2_000;

function idFilter(ids: string[]): string {
  return `id IN (${ids.map(sqlString).join(", ")})`;
}

function toChunk(r: Record<string, unknown>): Chunk {
  const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
  return {
    id: str(r.id),
    text: str(r.text),
    sessionId: str(r.session_id),
    workdir: str(r.workdir),
    turnUuid: str(r.turn_uuid),
    parentUuid: r.parent_uuid === null || r.parent_uuid === undefined ? null : String(r.parent_uuid),
    seq: Number(r.seq),
    ts: str(r.ts),
    role: str(r.role),
    blockType: str(r.block_type),
    toolName: r.tool_name === null || r.tool_name === undefined ? null : String(r.tool_name),
    sourcePath: str(r.source_path),
    blockIdx: Number(r.block_idx),
    splitIdx: Number(r.split_idx),
    harness: str(r.harness),
    repo: str(r.repo),
  };
}

/** The stored rows with these ids, as chunks (vectors left out); missing ids are absent. */
export async function chunksById(store: LocalStore, ids: string[]): Promise<Chunk[]> {
  const { table } = store;
  const names = new Set((await table.schema()).fields.map((f) => f.name));
  const columns = [...names].filter((n) => n !== "vector");
  const out: Chunk[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const rows = await table
      .query()
      .where(idFilter(ids.slice(i, i + IDS_PER_QUERY)))
      .select(columns)
      .toArray();
    for (const r of rows) out.push(toChunk(r));
  }
  return out;
}

/**
 * Removes the rows with ids in `remove` and writes `replacements` (vectors null, to be embedded after), as
 * one commit: a merge on `id` that updates ids present in both, inserts new ones, and deletes the removed
 * rows the replacements do not bring back.
 */
export async function replaceChunks(
  store: LocalStore,
  remove: string[],
  replacements: Chunk[],
): Promise<void> {
  const { table } = store;
  if (remove.length === 0 && replacements.length === 0) return;
  if (replacements.length === 0) {
    await table.delete(idFilter(remove));
    return;
  }
  let merge = table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll();
  if (remove.length > 0) merge = merge.whenNotMatchedBySourceDelete({ where: idFilter(remove) });
  await merge.execute(chunksToArrow(replacements));
}
