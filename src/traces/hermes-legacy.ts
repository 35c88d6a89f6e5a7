/**
 * Hermes's session files (docs/transcript-formats.md#hermes-session-files): `~/.hermes/sessions/<id>.jsonl`,
 * one OpenAI-chat message per line, and `sessions/session_<id>.json` snapshots (`{session_id, …, messages}`).
 * The reference does not read them; older Hermes kept conversations only there. Newer Hermes writes the same
 * conversation to `state.db` as well, so the messages of a session the database beside them holds are left to
 * it (counted, never silent); only those its copy lacks are read from the file. A snapshot and its
 * `<id>.jsonl` twin hold the same conversation, but either can be the longer (a real snapshot held 205
 * messages where its twin held 182): the one with more turns is read and the other left out, counted; on a
 * tie the transcript wins, as its messages carry their own times. What the one left out holds that the read
 * one lacks (reasoning, times, whole messages) is kept with it. Turn ids are `<session_id>-<seq>`, as for
 * other sources without message ids.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { readAgentText, SESSION_DOCUMENT_FILE } from "./agent-file.js";
import { backfillToolNames } from "./blocks.js";
import { HermesSource, hermesBlocks, type MessageRow } from "./hermes.js";
import { isHermesRequestDump, looksLikeRequestDump, type PlacedRow, requestDumpRows } from "./hermes-dump.js";
import { compactJson } from "./json-compact.js";
import { asObject, asString, parseJsonl, readGuarded, SKIP_MALFORMED } from "./jsonl.js";
import { fileStem, mungeCwd } from "./text.js";
import {
  countSkip,
  type SkipCounts,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";
import { stampFiles, walkFiles } from "./walk.js";

/** Skip reason for a session file whose conversation the database beside it already holds. */
export const SKIP_IN_STATE_DB = "hermes session file also in state.db (read from there)";
/** Skip reason for a `session_<id>.json` snapshot whose `<id>.jsonl` transcript holds as many turns. */
export const SKIP_SNAPSHOT_DUPLICATE = "hermes session snapshot also kept as <id>.jsonl (read from there)";
/** Skip reason for an `<id>.jsonl` transcript whose `session_<id>.json` snapshot holds more turns. */
export const SKIP_TRANSCRIPT_SHORTER =
  "hermes session transcript shorter than its session_<id>.json snapshot (read from there)";

/** Skip reason for a request dump's message that a session file or the database also holds. */
export const SKIP_DUMP_HELD = "hermes request dump message also in its session's files (read from there)";

/**
 * True for a Hermes session file name: `<id>.jsonl`, `session_<id>.json` or a `request_dump_<id>_<time>.json`
 * (not the `sessions.json` map).
 */
export function isHermesSessionFile(name: string): boolean {
  return name.endsWith(".jsonl") || /^session_.+\.json$/.test(name) || isHermesRequestDump(name);
}

/**
 * Parses a Hermes `<id>.jsonl` transcript, `session_<id>.json` snapshot or request dump. A message that
 * cannot be read (JSON nested too deep to walk) is passed over alone, named by its line or its place in the
 * file's list.
 */
export function parseHermesSessionFile(text: string, ctx: { path: string }): UnitRead {
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const stem = fileStem(ctx.path);
  if (ctx.path.toLowerCase().endsWith(".json")) {
    let doc: Record<string, unknown> | null = null;
    try {
      doc = asObject(JSON.parse(text));
    } catch {
      countSkip(skipped, SKIP_MALFORMED);
    }
    if (doc !== null && looksLikeRequestDump(doc))
      return parseRequestDump(doc, ctx.path, { skipped, unreadable });
    const messages = Array.isArray(doc?.messages) ? (doc.messages as unknown[]) : [];
    const sessionId = asString(doc?.session_id) ?? stem.replace(/^session_/, "");
    const rows: PlacedRow[] = [];
    messages.forEach((m, i) => {
      const o = asObject(m);
      if (o === null) countSkip(skipped, "message that is not an object");
      else rows.push({ value: o, at: `message ${i + 1}` });
    });
    // Snapshot messages carry no time of their own: the session's start stands in for it.
    const ts = asString(doc?.session_start) ?? "";
    const cwd = asString(doc?.cwd) ?? asString(asObject(doc?.model_config)?.cwd);
    return buildRead(rows, {
      sessionId,
      path: ctx.path,
      skipped,
      unreadable,
      records: messages.length,
      ts,
      cwd,
    });
  }
  const rows: PlacedRow[] = [];
  for (const rec of parseJsonl(text, skipped)) rows.push({ value: rec.value, at: rec.line });
  return buildRead(rows, {
    sessionId: stem,
    path: ctx.path,
    skipped,
    unreadable,
    records: rows.length,
    ts: "",
    cwd: null,
  });
}

/**
 * A request dump's conversation. Each dump of a session repeats the messages before it, so its turns are
 * named by what they say (`<session>-request-<sha1 of role and blocks, 12 hex>[-<n>th repeat]`), not by
 * position: a message has one id in every dump of its session, and the memory keeps it once. These ids are
 * funes's own (the reference does not read dumps) and never meet a session file's `<session>-<seq>`.
 */
function parseRequestDump(
  doc: Record<string, unknown>,
  path: string,
  guard: { skipped: SkipCounts; unreadable: UnreadableRecord[] },
): UnitRead {
  const rows = requestDumpRows(doc, guard);
  const sessionId = asString(doc.session_id) ?? fileStem(path);
  const read = buildRead(rows, {
    sessionId,
    path,
    ...guard,
    records: rows.length,
    // The dump's own time (naive local, as in session files) stands in for its messages' times.
    ts: asString(doc.timestamp) ?? "",
    cwd: null,
  });
  const seen = new Map<string, number>();
  let parent: string | null = null;
  for (const t of read.sessions[0]?.turns ?? []) {
    const hash = createHash("sha1").update(said(t)).digest("hex").slice(0, 12);
    const n = seen.get(hash) ?? 0;
    seen.set(hash, n + 1);
    t.turnUuid = `${sessionId}-request-${hash}${n === 0 ? "" : `-${n}`}`;
    t.parentUuid = parent;
    parent = t.turnUuid;
  }
  return read;
}

interface BuildContext {
  sessionId: string;
  path: string;
  skipped: SkipCounts;
  unreadable: UnreadableRecord[];
  records: number;
  /** Timestamp for a message without one. */
  ts: string;
  /** The session's working directory, when the snapshot names one. */
  cwd: string | null;
}

function buildRead(rows: PlacedRow[], c: BuildContext): UnitRead {
  const munged = c.cwd === null ? null : mungeCwd(c.cwd);
  const workdir = munged ?? "hermes";
  const turns: Turn[] = [];
  for (const { value: r, at } of rows) {
    const role = asString(r.role) ?? "(none)";
    if (role === "system") {
      // The system prompt Hermes assembles (persona, tool list, memory): the agent's words, not the user's.
      countSkip(c.skipped, "hermes system prompt (agent-injected) not indexed");
      continue;
    }
    const got = readGuarded(at, c.skipped, c.unreadable, () => ({
      blocks: hermesBlocks(role, toMessageRow(r), c.skipped),
    }));
    if (got === null) continue;
    const { blocks } = got;
    if (blocks === null) {
      countSkip(c.skipped, `message role "${role}" not indexed`);
      continue;
    }
    if (blocks.length === 0) {
      countSkip(c.skipped, `${role} message with no indexable content`);
      continue;
    }
    const seq = turns.length;
    turns.push({
      sessionId: c.sessionId,
      workdir,
      turnUuid: `${c.sessionId}-${seq}`,
      parentUuid: seq === 0 ? null : `${c.sessionId}-${seq - 1}`,
      seq,
      ts: asString(r.timestamp) ?? (typeof r.timestamp === "number" ? String(r.timestamp) : c.ts),
      role,
      blocks,
      sourcePath: c.path,
      harness: "hermes",
    });
  }
  // Hermes writes tool rows with only a `tool_call_id` (none of 707 tool rows in a real sessions folder named
  // its tool): the assistant's call names it, as in Claude and Codex transcripts.
  backfillToolNames(turns);
  const session = {
    sessionId: c.sessionId,
    workdir,
    cwd: munged === null ? null : c.cwd,
    turns,
    isSubagent: false,
  };
  const unreadable = c.unreadable.length > 0 ? { unreadable: c.unreadable } : {};
  return { sessions: [session], skipped: c.skipped, records: c.records, ...unreadable };
}

/** An OpenAI-chat message as a `messages` row: tool calls as their JSON text, list content as its text. */
function toMessageRow(r: Record<string, unknown>): MessageRow {
  const calls = r.tool_calls;
  const content = r.content;
  return {
    id: null,
    session_id: null,
    role: r.role,
    content:
      typeof content === "string" || content === null || content === undefined
        ? (content ?? null)
        : `\u0000json:${compactJson(content)}`,
    tool_call_id: r.tool_call_id ?? null,
    tool_calls: typeof calls === "string" || calls === undefined ? (calls ?? null) : compactJson(calls),
    tool_name: r.tool_name ?? r.name ?? null,
    timestamp: null,
    reasoning: r.reasoning ?? null,
    reasoning_content: r.reasoning_content ?? null,
  };
}

/** A folder (or one file) of Hermes session files; `dbPath` is the `state.db` that may hold them too. */
export class HermesFilesSource implements TraceSource {
  readonly kind = "hermes" as const;
  // 2: the twin read takes what the one left out holds and it lacks (reasoning, whole messages: new blocks
  // and turns, appended, so stored rows keep their ids). Tool results taking their call's name needed no
  // bump: a re-read keeps stored rows (same ids). 3: API request dumps are read (one given by path before
  // gave nothing).
  readonly parserVersion = 3;
  readonly description: string;
  private inDb: Set<string> | null = null;
  private db: HermesSource | null = null;

  constructor(
    private readonly root: string,
    private readonly dbPath: string | null = null,
  ) {
    this.description = `scanning hermes session files under ${root}`;
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }

  /** The database beside the files, read through one copy for the whole run. */
  private database(path: string): HermesSource {
    this.db ??= new HermesSource(path);
    return this.db;
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    const files = await stampFiles(await walkFiles(this.root, isHermesSessionFile), this.root);
    const kept = limit === undefined ? files : files.slice(0, limit);
    return kept.map((f) => ({ key: f.path, signature: f.signature, isSubagent: false, bytes: f.bytes }));
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    const read = await readSessionFile(this.root, unit.key);
    const name = basename(unit.key);
    if (isHermesRequestDump(name)) return this.dumpTurnsHeldNowhere(read, unit.key);
    const snapshot = /^session_(.+)\.json$/.exec(name);
    const twin = join(
      dirname(unit.key),
      snapshot !== null ? `${snapshot[1]}.jsonl` : `session_${name.replace(/\.jsonl$/i, "")}.json`,
    );
    if (existsSync(twin)) {
      const other = await readSessionFile(this.root, twin);
      const mine = turnCount(read);
      const theirs = turnCount(other);
      if (snapshot !== null && theirs >= mine) return leftOut(read, SKIP_SNAPSHOT_DUPLICATE);
      if (snapshot === null && theirs > mine) return leftOut(read, SKIP_TRANSCRIPT_SHORTER);
      mergeTwin(read, other, { twinIsTranscript: snapshot !== null, path: unit.key });
    }
    const sid = read.sessions[0]?.sessionId;
    if (sid !== undefined && this.databaseSessions().has(sid)) return this.withoutDatabaseTurns(read, sid);
    return read;
  }

  /**
   * The turns of a session file that the database beside it does not hold. A session the database holds is
   * read from there, but a database can hold less than the files (a real damaged one gave 108 messages for a
   * folder of thousands): a message is left to the database only when its copy of the session has it (same
   * role and text, each copy matched once); the others keep their numbers from the file, counted as before.
   */
  private async withoutDatabaseTurns(read: UnitRead, sid: string): Promise<UnitRead> {
    const held = new Map<string, number>();
    try {
      if (this.dbPath !== null) {
        const db = await this.database(this.dbPath).readUnit({
          key: sid,
          signature: null,
          isSubagent: false,
        });
        for (const t of db.sessions.flatMap((s) => s.turns)) held.set(said(t), (held.get(said(t)) ?? 0) + 1);
      }
    } catch {
      // A session the database cannot give is read from its file.
    }
    const session = read.sessions[0];
    if (session === undefined) return read;
    const kept = session.turns.filter((t) => {
      const n = held.get(said(t)) ?? 0;
      if (n > 0) held.set(said(t), n - 1);
      return n === 0;
    });
    if (kept.length === 0) return leftOut(read, SKIP_IN_STATE_DB);
    if (kept.length < session.turns.length)
      countSkip(read.skipped, SKIP_IN_STATE_DB, session.turns.length - kept.length);
    session.turns = kept;
    return read;
  }

  /**
   * The turns of a request dump that no other copy of its session holds: its `<id>.jsonl` transcript and
   * `session_<id>.json` snapshot beside it, and the database. The others are counted, never silent.
   */
  private async dumpTurnsHeldNowhere(read: UnitRead, path: string): Promise<UnitRead> {
    const session = read.sessions[0];
    if (session === undefined) return read;
    const held = new Map<string, number>();
    for (const name of [`${session.sessionId}.jsonl`, `session_${session.sessionId}.json`]) {
      const file = join(dirname(path), name);
      if (!existsSync(file)) continue;
      // The transcript and the snapshot hold the same conversation: a message counts once per copy held.
      const inCopy = new Map<string, number>();
      for (const t of (await readSessionFile(this.root, file)).sessions.flatMap((s) => s.turns))
        inCopy.set(said(t), (inCopy.get(said(t)) ?? 0) + 1);
      for (const [k, n] of inCopy) held.set(k, Math.max(held.get(k) ?? 0, n));
    }
    const kept = session.turns.filter((t) => {
      const n = held.get(said(t)) ?? 0;
      if (n > 0) held.set(said(t), n - 1);
      return n === 0;
    });
    if (kept.length < session.turns.length)
      countSkip(read.skipped, SKIP_DUMP_HELD, session.turns.length - kept.length);
    session.turns = kept;
    if (kept.length === 0) return { ...read, sessions: [] };
    if (!this.databaseSessions().has(session.sessionId)) return read;
    return this.withoutDatabaseTurns(read, session.sessionId);
  }

  private databaseSessions(): Set<string> {
    if (this.inDb !== null) return this.inDb;
    this.inDb = new Set();
    if (this.dbPath !== null && existsSync(this.dbPath)) {
      try {
        this.inDb = this.database(this.dbPath).sessionIds();
      } catch {
        // An unreadable database is reported by its own source; its files are read here meanwhile.
      }
    }
    return this.inDb;
  }
}

/** A session file under `root`, read as every file in an agent's folder is (`readAgentText`). */
async function readSessionFile(root: string, path: string): Promise<UnitRead> {
  return parseHermesSessionFile(readAgentText(root, path, SESSION_DOCUMENT_FILE), { path });
}

/**
 * Gives the turns read what their twin holds and they lack, so the twin can be left out without a loss.
 * Hermes rewrites a snapshot without the `reasoning` its transcript kept (a real pair: the snapshot, longer by
 * a session reset's messages, had none of the reasoning on the answers the transcript held), snapshot
 * messages carry no time of their own, and after a reset a snapshot can hold a later conversation than its
 * transcript (a real pair: 10 messages in the transcript, 22 others in the snapshot, none shared). Each twin
 * turn is matched, in order, to a turn read with the same message (role and every block but thinking, as
 * trimmed text; Hermes trims snapshot messages). On a match, a thinking block only the twin holds is appended
 * after the turn's own blocks, so no block changes its number (or its chunk id), and a transcript's time
 * replaces the snapshot's stand-in; a twin turn with no match follows the turns read, numbered after them
 * (`path`, the file read, is its source).
 */
function mergeTwin(read: UnitRead, twin: UnitRead, o: { twinIsTranscript: boolean; path: string }): void {
  const session = read.sessions[0];
  if (session === undefined) return;
  const mine = session.turns;
  const byMessage = new Map<string, Turn[]>();
  for (const a of mine) {
    const k = said(a);
    const same = byMessage.get(k);
    if (same === undefined) byMessage.set(k, [a]);
    else same.push(a);
  }
  for (const b of twin.sessions[0]?.turns ?? []) {
    const a = byMessage.get(said(b))?.shift();
    if (a !== undefined) {
      const have = new Set(a.blocks.filter((x) => x.blockType === "thinking").map((x) => x.text.trim()));
      for (const x of b.blocks)
        if (x.blockType === "thinking" && !have.has(x.text.trim())) a.blocks.push({ ...x });
      if (o.twinIsTranscript && b.ts !== "") a.ts = b.ts;
      continue;
    }
    const seq = mine.length;
    mine.push({
      ...b,
      blocks: b.blocks.map((x) => ({ ...x })),
      sessionId: session.sessionId,
      workdir: session.workdir,
      turnUuid: `${session.sessionId}-${seq}`,
      parentUuid: seq === 0 ? null : `${session.sessionId}-${seq - 1}`,
      seq,
      // The file read gives this turn: `forget --allow-reindex` re-reads the unit named here.
      sourcePath: o.path,
    });
  }
}

/** A turn's role and blocks but its thinking, trimmed, as one comparable string. */
function said(t: Turn): string {
  return [
    t.role,
    ...t.blocks.filter((b) => b.blockType !== "thinking").map((b) => `${b.blockType}\u0000${b.text.trim()}`),
  ].join("\u0001");
}

function turnCount(read: UnitRead): number {
  return read.sessions.reduce((n, s) => n + s.turns.length, 0);
}

/** The same read with its turns left out and counted under `reason`. */
function leftOut(read: UnitRead, reason: string): UnitRead {
  const skipped = { ...read.skipped };
  countSkip(skipped, reason, turnCount(read));
  return { ...read, sessions: [], skipped };
}
