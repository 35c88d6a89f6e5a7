/**
 * The queries other layers make of an open memory, by name, each over a {@link LocalStore}: nothing outside
 * local/ touches the Lance table or writes SQL. Filters are built here from plain values, every literal
 * quoted by `sqlString` (the one escaping function).
 */

import { annSearch, buildAnnIndex } from "./ann.js";
import { deleteIds, purgeRows, withStagedTable } from "./forget-rows.js";
import type { VectorHit } from "./queries.js";
import { foldSessions } from "./session-scan.js";
import { NEEDS_VECTOR, sqlString } from "./sql.js";
import { type LocalStore, TEXT_INDEX } from "./store.js";
import {
  type PendingRow,
  pendingTexts,
  pendingVectorRows,
  writePendingVectors,
  writeVectors,
} from "./vectors.js";

/** Which rows a search may return; every field optional (absent: no constraint). */
export interface RowFilter {
  /** A block type (`text`, `tool_use`, …). */
  blockType?: string | undefined;
  /** An agent (`claude_code`, `codex`, …). */
  harness?: string | undefined;
  /** Oldest and newest time, ms since the epoch (UTC); a close prefilter, made exact by the caller. */
  since?: number | null | undefined;
  until?: number | null | undefined;
}

/** The SQL for a filter, or undefined when it constrains nothing. */
export function rowFilterSql(f: RowFilter): string | undefined {
  const parts: string[] = [];
  if (f.blockType !== undefined) parts.push(`block_type = ${sqlString(f.blockType)}`);
  if (f.harness !== undefined) parts.push(`harness = ${sqlString(f.harness)}`);
  // Stored timestamps are ISO strings in UTC: a string comparison is a close prefilter.
  const iso = (t: number) => new Date(t).toISOString().slice(0, 19);
  if (f.since !== undefined && f.since !== null) parts.push(`ts >= ${sqlString(iso(f.since))}`);
  if (f.until !== undefined && f.until !== null) parts.push(`ts <= ${sqlString(`${iso(f.until)}\uffff`)}`);
  return parts.length > 0 ? parts.join(" AND ") : undefined;
}

/** Rows in the memory; with `waitingForVectors`, only those still without a vector. */
export async function countRows(store: LocalStore, o: { waitingForVectors?: boolean } = {}): Promise<number> {
  return o.waitingForVectors === true ? store.table.countRows(NEEDS_VECTOR) : store.table.countRows();
}

/**
 * Builds the side vector index of the memory (once per folder; a no-op under the size that needs one) and
 * says whether it exists.
 */
export function ensureSideIndex(store: LocalStore): Promise<boolean> {
  return buildAnnIndex(store.table, store.dir);
}

/** Nearest rows through the side vector index; null when there is none. */
export function sideIndexLeg(
  store: LocalStore,
  vector: Float32Array,
  limit: number,
): Promise<VectorHit[] | null> {
  return annSearch(store.table, store.dir, vector, limit);
}

/** Rows outside the text index (all of them when there is none). */
export async function unindexedTextRows(store: LocalStore): Promise<number> {
  const has = (await store.table.listIndices()).some((i) => i.name === TEXT_INDEX);
  if (!has) return store.table.countRows();
  return (await store.table.indexStats(TEXT_INDEX))?.numUnindexedRows ?? 0;
}

/** Id, session, repo and time of every row (what the curation gate groups by session). */
export async function sessionFacts(
  store: LocalStore,
): Promise<{ id: string; sessionId: string; repo: string; ts: string }[]> {
  const rows = await store.table.query().select(["id", "session_id", "repo", "ts"]).toArray();
  return rows.map((r) => ({
    id: String(r.id),
    sessionId: String(r.session_id),
    repo: String(r.repo ?? ""),
    ts: String(r.ts ?? ""),
  }));
}

/** The distinct sessions of the memory. */
export async function sessionIds(store: LocalStore): Promise<Set<string>> {
  return new Set(
    (await store.table.query().select(["session_id"]).toArray()).map((r) => String(r.session_id)),
  );
}

/**
 * What the user typed: the first split of every user text block (of one session, or of all), with its
 * session and place.
 */
export async function userPrompts(
  store: LocalStore,
  sessionId?: string,
): Promise<{ sessionId: string; seq: number; text: string }[]> {
  const own = sessionId === undefined ? "" : `session_id = ${sqlString(sessionId)} AND `;
  const rows = await store.table
    .query()
    .where(`${own}role = 'user' AND block_type = 'text' AND split_idx = 0`)
    .select(["session_id", "seq", "text"])
    .toArray();
  return rows.map((r) => ({ sessionId: String(r.session_id), seq: Number(r.seq), text: String(r.text) }));
}

/** One session as `sessions` lists it: no text, only what a scan of a few short columns gives. */
export interface SessionSummary {
  sessionId: string;
  /** Its agent (`claude_code`, …); "" in a memory from before the harness facet. */
  harness: string;
  /** The `owner/name` its checkout resolved to (space-separated when several); "" when none. */
  repo: string;
  /** The working directory it ran in. */
  workdir: string;
  /** Its earliest and latest row time, as stored (ISO, UTC; "" when the rows carry none). */
  started: string;
  ended: string;
  /** Distinct turns. */
  turns: number;
}

/**
 * Every session of the memory, keyed by agent and id (two agents' sessions that share an id are two), in one
 * scan of the short columns (no text, no vector): a memory of a million rows lists its sessions without
 * reading what they say.
 */
export async function sessionSummaries(store: LocalStore): Promise<SessionSummary[]> {
  const names = new Set((await store.table.schema()).fields.map((f) => f.name));
  const cols = ["session_id", "workdir", "ts", "turn_uuid", "seq"];
  for (const facet of ["harness", "repo"]) if (names.has(facet)) cols.push(facet);
  return foldSessions(await store.table.query().select(cols).toArrow());
}

/** The first piece of a user text block, with its session, agent and place. */
export interface UserText {
  sessionId: string;
  harness: string;
  seq: number;
  blockIdx: number;
  turnUuid: string;
  text: string;
}

/**
 * The first split of every user text block of these sessions (what their users typed), with its agent and
 * place, in no order. The sessions' ids are quoted by `sqlString`; none asked, none read.
 */
export async function userTextsOf(store: LocalStore, sessionIds: string[]): Promise<UserText[]> {
  if (sessionIds.length === 0) return [];
  const hasHarness = (await store.table.schema()).fields.some((f) => f.name === "harness");
  const ids = [...new Set(sessionIds)].map(sqlString).join(", ");
  const rows = await store.table
    .query()
    .where(`session_id IN (${ids}) AND role = 'user' AND block_type = 'text' AND split_idx = 0`)
    .select(["session_id", "seq", "block_idx", "turn_uuid", "text", ...(hasHarness ? ["harness"] : [])])
    .toArray();
  return rows.map((r) => ({
    sessionId: String(r.session_id),
    harness: String(r.harness ?? ""),
    seq: Number(r.seq),
    blockIdx: Number(r.block_idx),
    turnUuid: String(r.turn_uuid ?? ""),
    text: String(r.text ?? ""),
  }));
}

/** Every row waiting for a vector (ids and ordering keys only). */
export function rowsPendingVectors(store: LocalStore): Promise<PendingRow[]> {
  return pendingVectorRows(store.table);
}

/** The texts of rows waiting for vectors, taken by their location (rows no longer there are absent). */
export function textsOfPending(store: LocalStore, rows: PendingRow[]): Promise<Map<string, string>> {
  return pendingTexts(store.table, rows);
}

/** Sets the vectors of existing rows found by id, in one commit; the number written. */
export function storeVectors(store: LocalStore, vectors: Map<string, Float32Array>): Promise<number> {
  return writeVectors(store.table, vectors);
}

/** Sets the vectors of rows waiting for them, in one commit; the number written. */
export function storePendingVectors(
  store: LocalStore,
  rows: PendingRow[],
  vectors: Map<string, Float32Array>,
): Promise<number> {
  return writePendingVectors(store.table, rows, vectors);
}

/**
 * Forgets rows so their bytes leave the memory's folder (rewrite, reindex, clean up), then trains the
 * local vector index again when the memory is large enough for one (the purge drops it: its codes held the
 * forgotten rows' vectors).
 */
export async function purgeForgotten(
  store: LocalStore,
  ids: Set<string>,
  now: () => number,
  onStep?: (step: string) => void,
): Promise<{ rewritten: number; bytesRemoved: number }> {
  const r = await purgeRows(store.table, store.dir, ids, now, onStep);
  await store.maintainVectorIndex();
  return r;
}

/** {@link purgeForgotten} on the memory table in a staged folder (a copy about to be published). */
export function purgeForgottenIn(
  dir: string,
  ids: Set<string>,
  now: () => number,
): Promise<{ rewritten: number; bytesRemoved: number }> {
  return withStagedTable(dir, (t) => purgeRows(t, dir, ids, now));
}

/** Deletes rows by id from the memory table in a staged folder (deletion files only). */
export function deleteIdsIn(dir: string, ids: string[]): Promise<void> {
  return withStagedTable(dir, (t) => deleteIds(t, ids));
}
