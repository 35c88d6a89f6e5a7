/**
 * Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`;
 * docs/transcript-formats.md#gemini-cli). The file is an append-only log that has to be replayed in order, as
 * the CLI's own loader (`loadConversationRecord`, 0.61) does:
 *
 * - a message line (`{id, type, content, …}`) sets that id's message; the same id written again replaces it
 *   in place (a model message is written first without its tool calls, then with them);
 * - `{"$set": {messages: […]}}` replaces the whole list (a resume writes the list again, with content as
 *   Part lists, thoughts as `thought` parts, calls as `functionCall` parts, and each call's answer as a
 *   synthetic `<id>_response` user message beside the original one); other `$set` keys are metadata;
 * - `{"$rewindTo": id}` drops that message and everything after it;
 * - the first user message (`<session_context>`: date, OS, folder tree) is the CLI's, in every session.
 *
 * Older versions wrote a whole `session-<time>-<id8>.json` document (`{sessionId, projectHash, …, messages}`),
 * read here as its metadata and one list of messages.
 *
 * Turns are the messages left at the end, in the list's order; a tool's answer is a turn of its own whose
 * id is the call's id, placed after the call, so the original and the resumed forms of a session give the
 * same turn ids and blocks (chunk ids are stable across a re-read, and nothing is stored twice), whichever
 * copy of an answer comes first. A message keeps the first timestamp written for it (a resume restamps
 * every message it rewrites).
 */
import type { ParseContext } from "./claude.js";
import { answerIds, type Entry, GeminiTurns, type Stored } from "./gemini-turns.js";
import { asObject, asString, type JsonRecord, parseJsonl, type TranscriptText, wholeText } from "./jsonl.js";
import { fileStem, mungeCwd } from "./text.js";
import { streamTwoPass } from "./two-pass.js";
import {
  countSkip,
  mergeSkips,
  type Session,
  type SkipCounts,
  type StreamedUnit,
  type Turn,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

/** Skip reason for a message line a later line with the same id replaced. */
export const SKIP_REWRITTEN = "message written again (its last version is read)";

/** Parses one Gemini CLI JSONL session, replaying it whole. */
export function parseGeminiSession(text: TranscriptText, ctx: ParseContext): UnitRead {
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const { messages, firstTs, meta, records } = replay(geminiRecords(text, skipped), skipped, stored);
  const head = sessionOf(meta, ctx);
  const reading = new GeminiTurns({ skipped, unreadable, firstTs });
  for (const [id, m] of messages) reading.add(id, m);
  const turns = [...reading.finish()].map((e, seq) => turnOf(e, seq, head, ctx));
  return {
    sessions: [{ ...head, turns }],
    skipped,
    records,
    ...(unreadable.length > 0 ? { unreadable } : {}),
  };
}

/**
 * Reads a Gemini CLI session a turn at a time, in two passes. The first replays the log keeping, per message
 * id, only where its surviving version was written (a line, and its place in a list) and the calls it may
 * answer; the second reads each surviving version when its line comes and gives the messages in the list's
 * order, each as soon as those before it are read and its calls' answers are in. What is held is the
 * messages read ahead of one written again later, and a call waiting for its answer, not the session.
 */
export function streamGeminiSession(text: TranscriptText, ctx: ParseContext): StreamedUnit {
  return streamTwoPass<GeminiFacts>({
    pass: (skipped, unreadable, known) =>
      known === null ? learnGemini(text) : geminiTurns(text, { ctx, skipped, unreadable, known }),
    session: (facts) => sessionOf(facts.meta, ctx),
    backfillNames: false,
  });
}

/** What a session's metadata records say of it. */
interface Meta {
  sessionId?: string;
  kind?: string;
}

/** Where a message's surviving version was written: its line, and its index in that line's list (or -1). */
interface Place {
  line: number;
  index: number;
  /** The calls it may answer. */
  answers: string[];
}

/** What the first pass learns. */
interface GeminiFacts {
  records: number;
  meta: Meta;
  /** The surviving messages in the list's order, and where each was last written. */
  list: [string, Place][];
  firstTs: Map<string, string>;
  /** The replay's own skip counts (rewinds, rewritten messages, metadata), given once by the second pass. */
  replayed: SkipCounts;
}

/** The first pass: the replay's facts, holding ids and places only. */
function* learnGemini(text: TranscriptText): Generator<Turn, GeminiFacts> {
  const replayed: SkipCounts = {};
  const { messages, firstTs, meta, records } = replay(
    geminiRecords(text, {}),
    replayed,
    (value, _raw, path, line) => ({
      line,
      index: typeof path.at(-1) === "number" ? (path.at(-1) as number) : -1,
      answers: answerIds(value),
    }),
  );
  return { records, meta, list: [...messages], firstTs, replayed };
}

/** The second pass: each surviving message read where its line comes, given in the list's order. */
function* geminiTurns(
  text: TranscriptText,
  o: { ctx: ParseContext; skipped: SkipCounts; unreadable: UnreadableRecord[]; known: GeminiFacts },
): Generator<Turn, GeminiFacts> {
  const { ctx, skipped, unreadable, known } = o;
  const at = new Map<string, Place>(known.list);
  const lastAnswer = new Map<string, number>();
  known.list.forEach(([, p], pos) => {
    for (const c of p.answers) lastAnswer.set(c, pos);
  });
  const head = sessionOf(known.meta, ctx);
  const reading = new GeminiTurns({ skipped, unreadable, firstTs: known.firstTs, lastAnswer });
  // Surviving versions read before the messages ahead of them in the list.
  const early = new Map<string, Stored>();
  let next = 0;
  let seq = 0;
  const keep = (value: Record<string, unknown>, raw: string, path: (string | number)[], line: number) => {
    const id = value.id;
    if (typeof id !== "string") return;
    const p = at.get(id);
    const index = typeof path.at(-1) === "number" ? (path.at(-1) as number) : -1;
    if (p !== undefined && p.line === line && p.index === index) early.set(id, { value, raw, path, line });
  };
  for (const { value: r, raw, line } of geminiRecords(text, skipped)) {
    forEachMessage(r, (value, path) => keep(value, raw, path, line));
    for (
      let m = early.get(known.list[next]?.[0] ?? "");
      m !== undefined;
      m = early.get(known.list[next]?.[0] ?? "")
    ) {
      const id = known.list[next]?.[0] as string;
      early.delete(id);
      reading.add(id, m);
      for (const e of reading.ready(next)) yield turnOf(e, seq++, head, ctx);
      next++;
    }
  }
  for (const e of reading.finish()) yield turnOf(e, seq++, head, ctx);
  mergeSkips(skipped, known.replayed);
  return known;
}

/** The session a replay's metadata and the file's place give. */
function sessionOf(meta: Meta, ctx: ParseContext): Omit<Session, "turns"> {
  const sessionId = meta.sessionId ?? fileStem(ctx.path);
  const cwd = ctx.cwd ?? null;
  const munged = cwd === null ? null : mungeCwd(cwd);
  const workdir = munged ?? projectFolder(ctx.path);
  return { sessionId, workdir, cwd: munged === null ? null : cwd, isSubagent: meta.kind === "subagent" };
}

/** A numbered turn of the session. */
function turnOf(e: Entry, seq: number, head: Omit<Session, "turns">, ctx: ParseContext): Turn {
  return {
    sessionId: head.sessionId,
    workdir: head.workdir,
    turnUuid: e.uuid,
    parentUuid: e.parent,
    seq,
    ts: e.ts,
    role: e.role,
    blocks: e.blocks,
    sourcePath: ctx.path,
    harness: "gemini",
  };
}

/** The records of a session file: a legacy whole-file document as one, else a record per JSONL line. */
function geminiRecords(input: TranscriptText, skipped: SkipCounts): Iterable<JsonRecord> {
  if (typeof input === "string") return legacyDocument(input) ?? parseJsonl(input, skipped);
  return (opensDocument(input) ? legacyDocument(wholeText(input)) : null) ?? parseJsonl(input, skipped);
}

/** True when the first non-blank line opens a JSON object it does not close (a pretty-printed document). */
function opensDocument(lines: Iterable<string | { overlong: true }>): boolean {
  for (const l of lines) {
    if (typeof l !== "string") return false;
    const t = l.trim();
    if (t === "") continue;
    if (!t.startsWith("{")) return false;
    try {
      JSON.parse(t);
      return false;
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * A legacy whole-file session (one JSON document with a session id and a message list, its keys in any
 * order) as one record; null for JSONL, whose second line ends a whole-text parse at once.
 */
function legacyDocument(text: string): JsonRecord[] | null {
  if (!text.trimStart().startsWith("{")) return null;
  try {
    const doc = asObject(JSON.parse(text));
    return doc !== null && Array.isArray(doc.messages) && typeof doc.sessionId === "string"
      ? [{ raw: text, value: doc, line: 1 }]
      : null;
  } catch {
    return null; // JSONL: one record per line
  }
}

/** The project folder's name when no `.project_root` says the cwd: the folder holding `chats/`. */
function projectFolder(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  const i = parts.lastIndexOf("chats");
  return i > 0 ? (parts[i - 1] ?? "") : (parts.at(-2) ?? "");
}

/** Where a message sits in its record: `[]` for a message line, else its path in the record's list. */
type MessagePath = (string | number)[];

/**
 * The messages a record writes, in order, as the replay reads it: a message line's own, a legacy document's
 * or a `$set`'s list (null for a rewind or metadata). An element of a list that is not an object is given
 * as null, for the replay to count.
 */
function messagesOf(r: Record<string, unknown>): [Record<string, unknown> | null, MessagePath][] | null {
  if (asString(r.$rewindTo) !== null) return null;
  if (typeof r.id === "string") return [[r, []]];
  if (Array.isArray(r.messages) && typeof r.sessionId === "string")
    return r.messages.map((m, j) => [asObject(m), ["messages", j]]);
  const set = asObject(r.$set);
  if (set !== null && Array.isArray(set.messages))
    return set.messages.map((m, j) => [asObject(m), ["$set", "messages", j]]);
  return null;
}

/** Calls `fn` on each message (with an id) a record writes. */
function forEachMessage(
  r: Record<string, unknown>,
  fn: (m: Record<string, unknown>, path: MessagePath) => void,
) {
  for (const [m, path] of messagesOf(r) ?? []) if (m !== null && typeof m.id === "string") fn(m, path);
}

/** A whole read keeps each message's last version itself. */
const stored = (value: Record<string, unknown>, raw: string, path: MessagePath, line: number): Stored => ({
  value,
  raw,
  path,
  line,
});

/**
 * Replays the lines in order into the final message list (ids in list order), keeping for each message what
 * `keep` makes of its last version (the version itself for a whole read, its place for a streamed one).
 */
function replay<T>(
  lines: Iterable<JsonRecord>,
  skipped: SkipCounts,
  keep: (value: Record<string, unknown>, raw: string, path: MessagePath, line: number) => T,
) {
  const messages = new Map<string, T>();
  // The ids in `messages`' order, so a rewind finds its place without listing every id (n rewinds of a
  // long session would be quadratic): only a suffix is ever dropped, and each id at most once per write.
  const order: string[] = [];
  const position = new Map<string, number>();
  const firstTs = new Map<string, string>();
  const seen = new Set<string>();
  const meta: Meta = {};
  let records = 0;
  // A Map keeps an id's first position when it is set again, as the CLI's loader does.
  const put = (value: Record<string, unknown>, raw: string, path: MessagePath, line: number) => {
    const id = value.id as string;
    if (seen.has(id)) countSkip(skipped, SKIP_REWRITTEN);
    seen.add(id);
    if (!messages.has(id)) {
      position.set(id, order.length);
      order.push(id);
    }
    messages.set(id, keep(value, raw, path, line));
    const ts = asString(value.timestamp);
    if (ts !== null && !firstTs.has(id)) firstTs.set(id, ts);
  };
  const clear = (from: number) => {
    for (let k = from; k < order.length; k++) {
      const id = order[k] as string;
      messages.delete(id);
      position.delete(id);
    }
    order.length = from;
  };
  const putAll = (list: [Record<string, unknown> | null, MessagePath][], raw: string, line: number) => {
    for (const [msg, path] of list)
      if (msg !== null && typeof msg.id === "string") put(msg, raw, path, line);
      else countSkip(skipped, "message without an id");
  };
  for (const { value: r, raw, line } of lines) {
    records++;
    const rewind = asString(r.$rewindTo);
    const set = asObject(r.$set);
    const list = messagesOf(r);
    if (rewind !== null) {
      clear(position.get(rewind) ?? 0);
      countSkip(skipped, "$rewindTo record");
    } else if (typeof r.id === "string") put(r, raw, [], line);
    else if (list !== null && set === null) {
      // A legacy whole-file session: its metadata and every message, in one document (a record each).
      records += list.length - 1;
      meta.sessionId ??= r.sessionId as string;
      if (typeof r.kind === "string") meta.kind = r.kind;
      putAll(list, raw, line);
    } else if (set !== null) {
      if (typeof set.sessionId === "string") meta.sessionId = set.sessionId;
      if (list !== null) {
        records += list.length - 1; // a record per message of the list
        clear(0);
        putAll(list, raw, line);
      } else countSkip(skipped, "metadata update ($set)");
    } else if (typeof r.sessionId === "string" && "projectHash" in r) {
      meta.sessionId ??= r.sessionId;
      if (typeof r.kind === "string") meta.kind = r.kind;
      countSkip(skipped, "session metadata record");
    } else countSkip(skipped, "record that is not a Gemini CLI message");
  }
  const gone = [...seen].filter((id) => !messages.has(id)).length;
  if (gone > 0) countSkip(skipped, "message rewound or left out of a rewritten list", gone);
  return { messages, firstTs, meta, records };
}
