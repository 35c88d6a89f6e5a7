/**
 * OpenCode's SQLite store (`~/.local/share/opencode/opencode.db`, docs/transcript-formats.md#opencode):
 * tables `session`, `message` and `part`, each row's payload a JSON `data` column. OpenCode keeps the
 * database in WAL mode and leaves a whole session in `opencode.db-wal` after `opencode run` exits, so it is
 * read through a private copy of the database and its WAL (`sqlite-snapshot.ts`): nothing is written beside
 * it. One unit per session, signed by its newest message or part time and their count, so a session is read
 * again only when it changed. One turn per message; a tool part holds the call and its result, so it gives a
 * tool_use and a tool_result block in the assistant's turn. Indexing reads a session a page of messages (and
 * their parts) at a time (`streamUnit`), so memory is bounded by a page, not the session.
 */
import { makeBlock } from "./blocks.js";
import { compactJson } from "./json-compact.js";
import { asObject, asString, readGuarded } from "./jsonl.js";
import type { SqlValue } from "./sqlite-reader.js";
import {
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
  type Harness,
  type Session,
  type SkipCounts,
  type StreamedUnit,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

/** The agents that write this store (Kilo CLI is a fork with the same tables). */
export type OpenCodeHarness = Extract<Harness, "opencode">;

interface SessionRow {
  id: string;
  directory: unknown;
  parent_id: unknown;
}

interface DataRow {
  id: string;
  message_id?: string;
  time_created: unknown;
  data: unknown;
}

/** The tables an OpenCode store reads from. */
const OPENCODE_TABLES = ["session", "message", "part"];

/** The sessions of one OpenCode database. */
export class OpenCodeSource implements TraceSource {
  readonly parserVersion = 1;
  readonly description: string;
  private snapshot: SqliteSnapshot | null = null;

  constructor(
    private readonly dbPath: string,
    readonly kind: OpenCodeHarness = "opencode",
    private readonly snapshotOptions: SnapshotOptions = {},
    private readonly pageOptions: PageOptions = {},
  ) {
    this.description = `scanning ${kind} sessions in ${dbPath}`;
  }

  close(): void {
    this.snapshot?.close();
    this.snapshot = null;
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    this.close();
    let db: SqliteSnapshot;
    try {
      db = this.db();
    } catch (e) {
      return refusedStoreUnits(this.dbPath, e);
    }
    const tables = new Set(
      db
        .all<{ name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        .map((r) => r.name),
    );
    if (!OPENCODE_TABLES.every((t) => tables.has(t)))
      throw new Error(
        `"${this.dbPath}" has no OpenCode tables (${OPENCODE_TABLES.join(", ")}) — check that it is an OpenCode database, or drop --harness opencode`,
      );
    // The newest time any of a session's rows changed, and how many there are: a part updated in place
    // (a tool that finished) changes the first, a deleted message the second.
    const rows = db.all<{ id: unknown; parent: unknown; mark: unknown; n: unknown; bytes: unknown }>(
      `SELECT s.id AS id, s.parent_id AS parent,
           MAX(s.time_updated, COALESCE(m.mark, 0), COALESCE(p.mark, 0)) AS mark,
           COALESCE(m.n, 0) + COALESCE(p.n, 0) AS n, COALESCE(m.bytes, 0) + COALESCE(p.bytes, 0) AS bytes
         FROM session s
         LEFT JOIN (SELECT session_id, MAX(time_updated) AS mark, COUNT(*) AS n, SUM(LENGTH(data)) AS bytes
                    FROM message GROUP BY session_id) m ON m.session_id = s.id
         LEFT JOIN (SELECT session_id, MAX(time_updated) AS mark, COUNT(*) AS n, SUM(LENGTH(data)) AS bytes
                    FROM part GROUP BY session_id) p ON p.session_id = s.id
         WHERE COALESCE(m.n, 0) > 0
         ORDER BY mark DESC`,
    );
    const units = rows
      .filter((r) => typeof r.id === "string")
      .map((r) => ({
        key: r.id as string,
        signature: `${r.mark}:${r.n}`,
        isSubagent: typeof r.parent === "string" && r.parent !== "",
        bytes: typeof r.bytes === "number" ? r.bytes : 0,
      }));
    // Sub-agent sessions go last, as for the other agents.
    const ordered = [...units.filter((u) => !u.isSubagent), ...units.filter((u) => u.isSubagent)];
    return limit === undefined ? ordered : ordered.slice(0, limit);
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    const db = this.db();
    const session = db.get<SessionRow>("SELECT id, directory, parent_id FROM session WHERE id = ?", unit.key);
    const messages = db.all<DataRow>(
      `SELECT id, time_created, ${nulSafe("data")} FROM message WHERE session_id = ? ORDER BY time_created, id`,
      unit.key,
    );
    const parts = db.all<DataRow>(
      `SELECT id, message_id, time_created, ${nulSafe("data")} FROM part WHERE session_id = ? ORDER BY id`,
      unit.key,
    );
    return parseOpenCodeRows(messages, parts, {
      sessionId: unit.key,
      cwd: asString(session?.directory),
      isSubagent: unit.isSubagent,
      dbPath: this.dbPath,
      harness: this.kind,
    });
  }

  /**
   * Reads one session a page of messages at a time (keyset on `time_created, id`, the order the whole read
   * takes), with the parts of each page's messages (themselves read a page at a time, in message and id
   * order), a page's turns given once its parts are all read: what it gives equals {@link readUnit}'s.
   */
  async streamUnit(unit: Unit): Promise<StreamedUnit> {
    const db = this.db();
    const session = db.get<SessionRow>("SELECT id, directory, parent_id FROM session WHERE id = ?", unit.key);
    const reader = new OpenCodeRowReader({
      sessionId: unit.key,
      cwd: asString(session?.directory),
      isSubagent: unit.isSubagent,
      dbPath: this.dbPath,
      harness: this.kind,
    });
    const pageRows = this.pageOptions.pageRows ?? PAGE_ROWS;
    const orphans = db.get<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM part p WHERE p.session_id = ?
         AND NOT EXISTS (SELECT 1 FROM message m WHERE m.session_id = ? AND m.id = p.message_id)`,
      unit.key,
      unit.key,
    );
    reader.orphanParts(Number(orphans?.n ?? 0));
    const key = unit.key;
    function* turns(): Generator<Turn> {
      let after: [SqlValue, SqlValue] | null = null;
      for (;;) {
        const messages: DataRow[] = db.all<DataRow>(
          `SELECT id, time_created, ${nulSafe("data")} FROM message WHERE session_id = ?
             ${after === null ? "" : "AND (time_created, id) > (?, ?)"} ORDER BY time_created, id LIMIT ?`,
          key,
          ...(after ?? []),
          pageRows,
        );
        const byMessage = partsByMessage(pageParts(db, key, messages, pageRows));
        for (const m of messages) {
          const turn = reader.turnOf(m, byMessage.get(m.id) ?? []);
          if (turn !== null) yield turn;
        }
        const last: DataRow | undefined = messages[messages.length - 1];
        if (messages.length < pageRows || last === undefined) return;
        after = [last.time_created as SqlValue, last.id];
      }
    }
    return { sessions: [{ ...reader.session(), turns: turns() }], read: reader.read };
  }

  private db(): SqliteSnapshot {
    this.snapshot ??= SqliteSnapshot.take(this.dbPath, this.snapshotOptions);
    return this.snapshot;
  }
}

/**
 * The parts of `messages` in session `sessionId`, a page of rows per query (keyset on `message_id, id`):
 * each message's parts in id order, as the whole read orders them.
 */
function pageParts(db: SqliteSnapshot, sessionId: string, messages: DataRow[], pageRows: number): DataRow[] {
  if (messages.length === 0) return [];
  const ids = messages.map((m) => m.id);
  const marks = ids.map(() => "?").join(", ");
  const parts: DataRow[] = [];
  let after: [SqlValue, SqlValue] | null = null;
  for (;;) {
    const rows: DataRow[] = db.all<DataRow>(
      `SELECT id, message_id, time_created, ${nulSafe("data")} FROM part
         WHERE session_id = ? AND message_id IN (${marks}) ${after === null ? "" : "AND (message_id, id) > (?, ?)"}
         ORDER BY message_id, id LIMIT ?`,
      sessionId,
      ...ids,
      ...(after ?? []),
      pageRows,
    );
    parts.push(...rows);
    const last: DataRow | undefined = rows[rows.length - 1];
    if (rows.length < pageRows || last === undefined) return parts;
    after = [last.message_id ?? null, last.id];
  }
}

/** Where a session's rows came from. */
export interface OpenCodeContext {
  sessionId: string;
  cwd: string | null;
  isSubagent: boolean;
  dbPath: string;
  harness: OpenCodeHarness;
}

/** A row's `data` column as an object; null (counted) when it is not a JSON object. */
function dataOf(row: DataRow, what: string, skipped: SkipCounts): Record<string, unknown> | null {
  let v: unknown = null;
  try {
    v = typeof row.data === "string" ? JSON.parse(row.data) : null;
  } catch {}
  const o = asObject(v);
  if (o === null) countSkip(skipped, `opencode ${what} data that is not a JSON object`);
  return o;
}

/** Epoch milliseconds to an ISO 8601 UTC time; "" when absent. */
function isoOf(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}

/**
 * Maps one session's messages (in time order) and parts (in id order, which is creation order) to turns. A
 * row whose `data` cannot be read (JSON nested too deep to walk) is passed over alone, named by its id.
 */
export function parseOpenCodeRows(messages: DataRow[], parts: DataRow[], ctx: OpenCodeContext): UnitRead {
  const reader = new OpenCodeRowReader(ctx);
  const byMessage = partsByMessage(parts);
  const known = new Set(messages.map((m) => m.id));
  let orphans = 0;
  for (const [id, list] of byMessage) if (!known.has(id)) orphans += list.length;
  reader.orphanParts(orphans);
  const turns: Turn[] = [];
  for (const m of messages) {
    const turn = reader.turnOf(m, byMessage.get(m.id) ?? []);
    if (turn !== null) turns.push(turn);
  }
  return { sessions: [{ ...reader.session(), turns }], ...reader.read };
}

/** Parts grouped by the message they belong to, each list in the order given. */
function partsByMessage(parts: DataRow[]): Map<string, DataRow[]> {
  const byMessage = new Map<string, DataRow[]>();
  for (const p of parts) {
    const list = byMessage.get(p.message_id ?? "") ?? [];
    list.push(p);
    byMessage.set(p.message_id ?? "", list);
  }
  return byMessage;
}

/**
 * Turns of one session's messages given one at a time in time order, each with its parts, and what was
 * passed over so far: the whole read and the paged one (`streamUnit`) map rows through it alike.
 */
class OpenCodeRowReader {
  readonly read: Omit<UnitRead, "sessions"> = { skipped: {}, records: 0 };
  private readonly workdir: string;
  private readonly unreadable: UnreadableRecord[] = [];
  private seq = 0;

  constructor(private readonly ctx: OpenCodeContext) {
    this.workdir = (ctx.cwd === null ? null : mungeCwd(ctx.cwd)) ?? ctx.harness;
  }

  /** The session's facts, known before its rows. */
  session(): Omit<Session, "turns"> {
    const { ctx, workdir } = this;
    const cwd = ctx.cwd !== null && workdir !== ctx.harness ? ctx.cwd : null;
    return { sessionId: ctx.sessionId, workdir, cwd, isSubagent: ctx.isSubagent };
  }

  /** Counts `n` parts of the session whose message is not in it. */
  orphanParts(n: number): void {
    this.read.records += n;
    if (n > 0) countSkip(this.read.skipped, "opencode part whose message is missing", n);
  }

  /** The turn of the next message, given its parts in id order; null when it gives none (counted). */
  turnOf(m: DataRow, mparts: DataRow[]): Turn | null {
    const { skipped } = this.read;
    const { unreadable } = this;
    this.read.records += 1 + mparts.length;
    try {
      return this.turnOfRead(m, mparts, skipped, unreadable);
    } finally {
      if (unreadable.length > 0) this.read.unreadable = unreadable;
    }
  }

  private turnOfRead(m: DataRow, mparts: DataRow[], skipped: SkipCounts, unreadable: UnreadableRecord[]) {
    const data = readGuarded(`message "${m.id}"`, skipped, unreadable, () => dataOf(m, "message", skipped));
    if (data === null) {
      countSkip(skipped, "opencode part whose message is unreadable", mparts.length);
      return null;
    }
    const role = asString(data.role) ?? "(none)";
    if (role !== "user" && role !== "assistant") {
      countSkip(skipped, `opencode message role "${role}" not indexed`);
      return null;
    }
    const blocks: Block[] = [];
    for (const p of mparts) {
      const got = readGuarded(`part "${p.id}"`, skipped, unreadable, () => {
        const pd = dataOf(p, "part", skipped);
        return pd === null ? [] : partBlocks(pd, skipped);
      });
      if (got !== null) blocks.push(...got);
    }
    if (blocks.length === 0) {
      countSkip(skipped, `opencode ${role} message with no indexable content`);
      return null;
    }
    const time = asObject(data.time);
    return {
      sessionId: this.ctx.sessionId,
      workdir: this.workdir,
      turnUuid: m.id,
      parentUuid: asString(data.parentID),
      seq: this.seq++,
      ts: isoOf(time?.created ?? m.time_created),
      role,
      blocks,
      sourcePath: this.ctx.dbPath,
      harness: this.ctx.harness,
    };
  }
}

/** The blocks of one part (counted when it gives none). */
function partBlocks(part: Record<string, unknown>, skipped: SkipCounts): Block[] {
  const type = asString(part.type) ?? "(none)";
  switch (type) {
    case "text": {
      const text = asString(part.text) ?? "";
      if (isBlank(text)) break;
      const block = makeBlock("text", text);
      // OpenCode marks the text it adds itself (a file's content read in for an @-mention, a reminder).
      if (part.synthetic === true) block.injected = "opencode synthetic text";
      return [block];
    }
    case "reasoning": {
      const text = asString(part.text) ?? "";
      if (isBlank(text)) break;
      return [makeBlock("thinking", text)];
    }
    case "tool":
      return toolBlocks(part);
    case "subtask": {
      const prompt = asString(part.prompt) ?? "";
      if (isBlank(prompt)) break;
      return [makeBlock("text", prompt)];
    }
    default:
      countSkip(skipped, `opencode part "${type}" not indexed`);
      return [];
  }
  countSkip(skipped, `opencode ${type} part with no text`);
  return [];
}

/** A tool part: its input as a call, and its output (or error) as the result, when it has one. */
function toolBlocks(part: Record<string, unknown>): Block[] {
  const name = asString(part.tool);
  const id = asString(part.callID);
  const state = asObject(part.state);
  const input = state?.input;
  const blocks: Block[] = [];
  const args = input === undefined || input === null ? "" : compactJson(input);
  blocks.push(makeBlock("tool_use", isBlank(args) ? "{}" : args, name, id));
  const status = asString(state?.status);
  const out = status === "error" ? asString(state?.error) : asString(state?.output);
  if (out !== null && !isBlank(out)) blocks.push(makeBlock("tool_result", out, name, id));
  return blocks;
}
