/**
 * Hermes Agent's `state.db` (docs/transcript-formats.md#hermes). Read through a
 * private copy (`sqlite-snapshot.ts`: nothing is written beside the user's database, WAL included); every
 * column selected by name (column order differs between databases and old schemas lack new
 * columns), so schema versions 12 through 30 read alike. One unit per session, signed by its highest
 * message id, so a session is re-read only when it grew. Indexing reads a session a page of rows at a time
 * (`streamUnit`), so memory is bounded by a page, not the session.
 */
import { readAgentFile } from "./agent-file.js";
import { ArgumentSerializer, flattenToolContent, makeBlock } from "./blocks.js";
import { asObject, asString, isLfsPointer, readGuarded, SKIP_LFS_POINTER } from "./jsonl.js";
import type { SqlValue } from "./sqlite-reader.js";
import {
  databaseRoot,
  nulSafe,
  PAGE_ROWS,
  type PageOptions,
  refusedStoreUnits,
  type SnapshotOptions,
  SqliteSnapshot,
} from "./sqlite-snapshot.js";
import { isBlank, mungeCwd } from "./text.js";
import {
  type Block,
  countSkip,
  type Session,
  type SkipCounts,
  type StreamedUnit,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

const MESSAGE_COLUMNS = [
  "id",
  "session_id",
  "role",
  "content",
  "tool_call_id",
  "tool_calls",
  "tool_name",
  "timestamp",
  "reasoning",
  "reasoning_content",
] as const;

/** One `messages` row, by column name (absent columns are null). */
export type MessageRow = Record<(typeof MESSAGE_COLUMNS)[number], unknown>;

/**
 * The sessions of one hermes database. Each listing reads a fresh copy of the database, which later reads
 * reuse until `close` removes it.
 */
export class HermesSource implements TraceSource {
  readonly kind = "hermes" as const;
  readonly parserVersion = 1;
  readonly description: string;
  private snapshot: SqliteSnapshot | null = null;
  /** Each table's columns in the current copy (a copy's schema does not change; one query per table). */
  private columns = new Map<string, Set<string>>();

  constructor(
    private readonly dbPath: string,
    private readonly snapshotOptions: SnapshotOptions = {},
    private readonly pageOptions: PageOptions = {},
  ) {
    this.description = `scanning hermes sessions in ${dbPath}`;
  }

  close(): void {
    this.snapshot?.close();
    this.snapshot = null;
    this.columns.clear();
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    this.close();
    try {
      return this.unitsOf(limit);
    } catch (e) {
      return refusedStoreUnits(this.dbPath, e);
    }
  }

  private unitsOf(limit: number | undefined): Unit[] {
    return this.withDb((db) => {
      if (this.columnsOf(db, "messages").size === 0)
        throw new Error(
          `"${this.dbPath}" has no Hermes messages table — check that it is a Hermes state.db, or drop --harness hermes`,
        );
      // `bytes` (the session's text, roughly) lets progress be shown by bytes beside transcript files.
      const rows = db.all<{ sid: unknown; mark: unknown; bytes: unknown }>(
        "SELECT session_id AS sid, MAX(id) AS mark, SUM(COALESCE(LENGTH(content), 0) + COALESCE(LENGTH(tool_calls), 0)) AS bytes " +
          "FROM messages GROUP BY session_id ORDER BY mark DESC",
      );
      const units = rows
        .filter((r) => typeof r.sid === "string")
        .map((r) => ({
          key: r.sid as string,
          signature: String(r.mark),
          isSubagent: false,
          bytes: typeof r.bytes === "number" ? r.bytes : 0,
        }));
      return limit === undefined ? units : units.slice(0, limit);
    });
  }

  /** Every session id that has messages in the database. */
  sessionIds(): Set<string> {
    return this.withDb((db) => {
      const rows = db.all<{ sid: unknown }>("SELECT DISTINCT session_id AS sid FROM messages");
      return new Set(rows.map((r) => r.sid).filter((s): s is string => typeof s === "string"));
    });
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    return this.withDb((db) => {
      const rows = db.all<MessageRow>(
        `SELECT ${this.selectOf(db)} FROM messages WHERE session_id = ? ORDER BY id`,
        unit.key,
      );
      return parseHermesRows(rows, {
        sessionId: unit.key,
        cwd: this.cwdOf(db, unit.key),
        dbPath: this.dbPath,
      });
    });
  }

  /**
   * Reads one session a page of rows at a time (keyset on `id`, the order the whole read takes), each row's
   * turn given as it is read: what it gives equals {@link readUnit}'s.
   */
  async streamUnit(unit: Unit): Promise<StreamedUnit> {
    const { db, select, cwd } = this.withDb((db) => ({
      db,
      select: this.selectOf(db),
      cwd: this.cwdOf(db, unit.key),
    }));
    const reader = new HermesRowReader({ sessionId: unit.key, cwd, dbPath: this.dbPath });
    const pageRows = this.pageOptions.pageRows ?? PAGE_ROWS;
    function* turns(): Generator<Turn> {
      let after: SqlValue | undefined;
      for (;;) {
        const rows =
          after === undefined
            ? db.all<MessageRow>(
                `SELECT ${select} FROM messages WHERE session_id = ? ORDER BY id LIMIT ?`,
                unit.key,
                pageRows,
              )
            : db.all<MessageRow>(
                `SELECT ${select} FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
                unit.key,
                after,
                pageRows,
              );
        for (const row of rows) {
          const turn = reader.turnOf(row);
          if (turn !== null) yield turn;
        }
        if (rows.length < pageRows) return;
        after = rows[rows.length - 1]?.id as SqlValue;
      }
    }
    return { sessions: [{ ...reader.session(), turns: turns() }], read: reader.read };
  }

  /** The message columns, each by name (an absent one as null). */
  private selectOf(db: SqliteSnapshot): string {
    const have = this.columnsOf(db, "messages");
    return MESSAGE_COLUMNS.map((c) => (have.has(c) ? nulSafe(c) : `NULL AS "${c}"`)).join(", ");
  }

  /** The session's recorded working folder; null when the schema has none or the session row is missing. */
  private cwdOf(db: SqliteSnapshot, sessionId: string): string | null {
    if (!this.columnsOf(db, "sessions").has("cwd")) return null;
    return asString(db.get<{ cwd: unknown }>("SELECT cwd FROM sessions WHERE id = ?", sessionId)?.cwd);
  }

  private columnsOf(db: SqliteSnapshot, table: string): Set<string> {
    let have = this.columns.get(table);
    if (have === undefined) {
      const rows = db.all<{ name: string }>("SELECT name FROM pragma_table_info(?)", table);
      have = new Set(rows.map((r) => r.name));
      this.columns.set(table, have);
    }
    return have;
  }

  private withDb<T>(fn: (db: SqliteSnapshot) => T): T {
    try {
      this.snapshot ??= SqliteSnapshot.take(this.dbPath, this.snapshotOptions);
      return fn(this.snapshot);
    } catch (e) {
      // SQLite says only "file is not a database"; a backup checked out without LFS deserves its own words.
      if (isLfsPointer(smallFileText(databaseRoot(this.dbPath, this.snapshotOptions), this.dbPath)))
        throw new Error(`${SKIP_LFS_POINTER.replace(/^Git/, "a Git")}`);
      throw e;
    }
  }
}

/**
 * The text of a file under 1 KiB (a Git LFS pointer's size), read as any file in the agent's folder is; ""
 * when it is larger, refused or cannot be read.
 */
function smallFileText(root: string, path: string): string {
  try {
    const r = readAgentFile(root, path, { label: "database", maxBytes: 1023 });
    return r.kind === "read" ? r.bytes.toString("latin1") : "";
  } catch {
    return "";
  }
}

/** Where a session's rows came from. */
export interface HermesContext {
  sessionId: string;
  cwd: string | null;
  dbPath: string;
}

/**
 * Maps one session's message rows (ordered by id) to turns. A row whose JSON (tool calls, multimodal
 * content) cannot be read is passed over alone, named by its message id.
 */
export function parseHermesRows(rows: MessageRow[], ctx: HermesContext): UnitRead {
  const reader = new HermesRowReader(ctx);
  const turns: Turn[] = [];
  for (const row of rows) {
    const turn = reader.turnOf(row);
    if (turn !== null) turns.push(turn);
  }
  return { sessions: [{ ...reader.session(), turns }], ...reader.read };
}

/**
 * Turns of one session's rows given one at a time in id order, and what was passed over so far: the whole
 * read and the paged one (`streamUnit`) map rows through it alike.
 */
class HermesRowReader {
  readonly read: Omit<UnitRead, "sessions"> = { skipped: {}, records: 0 };
  private readonly workdir: string;
  private readonly unreadable: UnreadableRecord[] = [];
  private seq = 0;

  constructor(private readonly ctx: HermesContext) {
    this.workdir = (ctx.cwd === null ? null : mungeCwd(ctx.cwd)) ?? "hermes";
  }

  /** The session's facts, known before its rows. */
  session(): Omit<Session, "turns"> {
    const cwd = this.workdir === "hermes" ? null : this.ctx.cwd;
    return { sessionId: this.ctx.sessionId, workdir: this.workdir, cwd, isSubagent: false };
  }

  /** The turn of the next row; null when it gives none (counted). */
  turnOf(row: MessageRow): Turn | null {
    const { skipped } = this.read;
    this.read.records++;
    const role = asString(row.role) ?? "(none)";
    const got = readGuarded(`message id ${String(row.id)}`, skipped, this.unreadable, () => ({
      blocks: hermesBlocks(role, row, skipped),
    }));
    if (got === null) {
      if (this.unreadable.length > 0) this.read.unreadable = this.unreadable;
      return null;
    }
    const { blocks } = got;
    if (blocks === null) {
      countSkip(skipped, `message role "${role}" not indexed`);
      return null;
    }
    if (blocks.length === 0) {
      countSkip(skipped, `${role} message with no indexable content`);
      return null;
    }
    return {
      sessionId: this.ctx.sessionId,
      workdir: this.workdir,
      turnUuid: String(row.id),
      parentUuid: null,
      seq: this.seq++,
      ts: typeof row.timestamp === "number" ? epochToRfc3339(row.timestamp) : "",
      role,
      blocks,
      sourcePath: this.ctx.dbPath,
      harness: "hermes",
    };
  }
}

/** Blocks of one message by role; null for a role that holds no conversation (`session_meta`, …). */
export function hermesBlocks(role: string, row: MessageRow, skipped: SkipCounts): Block[] | null {
  const blocks: Block[] = [];
  const content = decodeContent(row.content, skipped);
  switch (role) {
    case "user":
      if (!isBlank(content)) blocks.push(makeBlock("text", content));
      return blocks;
    case "assistant": {
      const rc = asString(row.reasoning_content);
      const thinking = rc !== null && !isBlank(rc) ? rc : (asString(row.reasoning) ?? "");
      if (!isBlank(thinking)) blocks.push(makeBlock("thinking", thinking));
      if (!isBlank(content)) blocks.push(makeBlock("text", content));
      blocks.push(...toolCallBlocks(asString(row.tool_calls), skipped));
      return blocks;
    }
    case "tool":
      if (!isBlank(content))
        blocks.push(makeBlock("tool_result", content, asString(row.tool_name), asString(row.tool_call_id)));
      return blocks;
    default:
      return null;
  }
}

/**
 * Message content; multimodal rows are a sentinel (`\x00json:` on SQLite, `\x01json:` elsewhere) plus a
 * JSON list of parts, whose text parts are kept.
 */
function decodeContent(v: unknown, skipped: SkipCounts): string {
  const s = asString(v) ?? "";
  if (!(s.startsWith("\u0000json:") || s.startsWith("\u0001json:"))) return s;
  let parts: unknown;
  try {
    parts = JSON.parse(s.slice(6));
  } catch {
    return s;
  }
  return flattenToolContent(parts, skipped);
}

function toolCallBlocks(raw: string | null, skipped: SkipCounts): Block[] {
  if (raw === null || isBlank(raw)) return [];
  let calls: unknown;
  try {
    calls = JSON.parse(raw);
  } catch {
    countSkip(skipped, "tool_calls that are not JSON");
    return [];
  }
  if (!Array.isArray(calls)) return [];
  const args = new ArgumentSerializer(raw);
  return calls.map((c, i) => {
    const call = asObject(c);
    const fn = asObject(call?.function);
    const a = fn?.arguments;
    const text = typeof a === "string" ? a : args.serialize(a, [i, "function", "arguments"]);
    return makeBlock("tool_use", text, asString(fn?.name), asString(call?.id));
  });
}

/**
 * Epoch seconds to RFC 3339 UTC with a `+00:00` offset and chrono's automatic fraction width (none, 3, 6 or
 * 9 digits); nanoseconds are the fraction × 1e9 truncated. Out of range → "". `1001.5` →
 * `1970-01-01T00:16:41.500+00:00`.
 */
export function epochToRfc3339(seconds: number): string {
  if (!Number.isFinite(seconds)) return "";
  const whole = Math.floor(seconds);
  const nanos = Math.trunc((seconds - whole) * 1e9);
  const d = new Date(whole * 1000);
  if (Number.isNaN(d.getTime())) return "";
  const base = d.toISOString().slice(0, 19);
  let frac = "";
  if (nanos !== 0) {
    const n9 = String(nanos).padStart(9, "0");
    frac =
      nanos % 1_000_000 === 0 ? `.${n9.slice(0, 3)}` : nanos % 1000 === 0 ? `.${n9.slice(0, 6)}` : `.${n9}`;
  }
  return `${base}${frac}+00:00`;
}
