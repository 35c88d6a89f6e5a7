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
import { ArgumentSerializer, makeBlock } from "./blocks.js";
import type { ParseContext } from "./claude.js";
import { type FunctionResponse, partList, readParts } from "./gemini-parts.js";
import {
  asObject,
  asString,
  type JsonRecord,
  parseJsonl,
  readGuarded,
  type TranscriptText,
  wholeText,
} from "./jsonl.js";
import { fileStem, isBlank, mungeCwd } from "./text.js";
import {
  type Block,
  countSkip,
  type SkipCounts,
  type Turn,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

/** A message as last written: its record's raw line and where in that record it sits. */
interface Stored {
  value: Record<string, unknown>;
  raw: string;
  path: (string | number)[];
  /** The file line it was written on. */
  line: number;
}

/** The CLI's own context messages, which open every session (`isIgnoredUserContent` in the CLI). */
const INJECTED = /^\s*<(session_context|hook_context)>/;

/** Skip reason for a message line a later line with the same id replaced. */
export const SKIP_REWRITTEN = "message written again (its last version is read)";

/** Parses one Gemini CLI JSONL session. */
export function parseGeminiSession(text: TranscriptText, ctx: ParseContext): UnitRead {
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const { messages, firstTs, meta, records } = replay(geminiRecords(text, skipped), skipped);
  const sessionId = meta.sessionId ?? fileStem(ctx.path);
  const turns = toTurns(messages, firstTs, { skipped, unreadable }).map(
    (e, seq): Turn => ({
      sessionId,
      workdir: "",
      turnUuid: e.uuid,
      parentUuid: e.parent,
      seq,
      ts: e.ts,
      role: e.role,
      blocks: e.blocks,
      sourcePath: ctx.path,
      harness: "gemini",
    }),
  );
  const cwd = ctx.cwd ?? null;
  const munged = cwd === null ? null : mungeCwd(cwd);
  const workdir = munged ?? projectFolder(ctx.path);
  for (const t of turns) t.workdir = workdir;
  const isSubagent = meta.kind === "subagent";
  return {
    sessions: [{ sessionId, workdir, cwd: munged === null ? null : cwd, turns, isSubagent }],
    skipped,
    records,
    ...(unreadable.length > 0 ? { unreadable } : {}),
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

/** Replays the lines in order into the final message list (ids in list order). */
function replay(lines: Iterable<JsonRecord>, skipped: SkipCounts) {
  const messages = new Map<string, Stored>();
  // The ids in `messages`' order, so a rewind finds its place without listing every id (n rewinds of a
  // long session would be quadratic): only a suffix is ever dropped, and each id at most once per write.
  const order: string[] = [];
  const position = new Map<string, number>();
  const firstTs = new Map<string, string>();
  const seen = new Set<string>();
  const meta: { sessionId?: string; kind?: string } = {};
  let records = 0;
  // A Map keeps an id's first position when it is set again, as the CLI's loader does.
  const put = (value: Record<string, unknown>, raw: string, path: (string | number)[], line: number) => {
    const id = value.id as string;
    if (seen.has(id)) countSkip(skipped, SKIP_REWRITTEN);
    seen.add(id);
    if (!messages.has(id)) {
      position.set(id, order.length);
      order.push(id);
    }
    messages.set(id, { value, raw, path, line });
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
  for (const { value: r, raw, line } of lines) {
    records++;
    const rewind = asString(r.$rewindTo);
    const set = asObject(r.$set);
    if (rewind !== null) {
      clear(position.get(rewind) ?? 0);
      countSkip(skipped, "$rewindTo record");
    } else if (typeof r.id === "string") put(r, raw, [], line);
    else if (Array.isArray(r.messages) && typeof r.sessionId === "string") {
      // A legacy whole-file session: its metadata and every message, in one document (a record each).
      records += r.messages.length - 1;
      meta.sessionId ??= r.sessionId;
      if (typeof r.kind === "string") meta.kind = r.kind;
      r.messages.forEach((m, j) => {
        const msg = asObject(m);
        if (msg !== null && typeof msg.id === "string") put(msg, raw, ["messages", j], line);
        else countSkip(skipped, "message without an id");
      });
    } else if (set !== null) {
      if (typeof set.sessionId === "string") meta.sessionId = set.sessionId;
      if (Array.isArray(set.messages)) {
        records += set.messages.length - 1; // a record per message of the list
        clear(0);
        set.messages.forEach((m, j) => {
          const msg = asObject(m);
          if (msg !== null && typeof msg.id === "string") put(msg, raw, ["$set", "messages", j], line);
          else countSkip(skipped, "message without an id");
        });
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

/** A turn before numbering. */
interface Entry {
  uuid: string;
  parent: string | null;
  ts: string;
  role: string;
  blocks: Block[];
}

/** The text of a stored thought (`{subject, description}`), as the CLI writes it back on resume. */
function thoughtText(t: unknown): string {
  const o = asObject(t);
  const subject = asString(o?.subject);
  const description = asString(o?.description) ?? "";
  return subject !== null && subject !== "" ? `**${subject}** ${description}` : description;
}

/** Turns from the final message list: user and model messages, each tool answer after its call. */
function toTurns(
  messages: Map<string, Stored>,
  firstTs: Map<string, string>,
  { skipped, unreadable }: { skipped: SkipCounts; unreadable: UnreadableRecord[] },
): Entry[] {
  const entries: Entry[] = [];
  const answers = new Map<string, Entry>();
  let previous: string | null = null;
  const answer = (r: FunctionResponse, from: string, k: number, ts: string) => {
    if (isBlank(r.text)) {
      countSkip(skipped, 'content part "functionResponse" that is empty');
      return;
    }
    const block = makeBlock("tool_result", r.text, r.name, r.callId);
    const slot = r.callId === null ? undefined : answers.get(r.callId);
    if (slot === undefined) {
      // An answer whose call is not in the list (an older file, a rewound call): a turn where it stands.
      const e = { uuid: r.callId ?? `${from}:${k}`, parent: from, ts, role: "tool", blocks: [block] };
      entries.push(e);
      if (r.callId !== null) answers.set(r.callId, e);
    } else if (slot.blocks.length > 0)
      countSkip(skipped, 'content part "functionResponse" already read with its call');
    else slot.blocks.push(block);
  };
  for (const [id, m] of messages) {
    const v = m.value;
    const type = asString(v.type) ?? "(none)";
    const ts = firstTs.get(id) ?? "";
    const args = new ArgumentSerializer(m.raw);
    if (type !== "user" && type !== "gemini") {
      countSkip(skipped, `message type "${type}" not indexed`);
      continue;
    }
    // Everything serialized before anything is kept: a message that cannot be read is passed over whole.
    // A message of a list (a whole-file session, a `$set`) is named by its id, its line holding the others.
    const at = m.path.length === 0 ? m.line : `message "${id}" on line ${m.line}`;
    const got = readGuarded(at, skipped, unreadable, () => {
      const read = readParts(v.content, args, [...m.path, "content"], skipped);
      if (type === "user" && read.blocks.some((b) => INJECTED.test(b.text))) return "injected";
      const calls = Array.isArray(v.toolCalls) ? v.toolCalls : [];
      const results = calls.map((c, i) =>
        callResults(asObject(c), args, [...m.path, "toolCalls", i, "result"], skipped),
      );
      const blocks = type === "gemini" ? modelBlocks(m, read.blocks, args, skipped) : read.blocks;
      return { read, blocks, results };
    });
    if (got === null) continue;
    if (got === "injected") {
      countSkip(skipped, "gemini <session_context> (the CLI's, injected)");
      continue;
    }
    const { read, blocks, results } = got;
    if (blocks.length > 0) {
      entries.push({
        uuid: id,
        parent: previous,
        ts,
        role: type === "gemini" ? "assistant" : "user",
        blocks,
      });
      previous = id;
      for (const b of blocks)
        if (b.blockType === "tool_use" && b.toolUseId !== null && !answers.has(b.toolUseId)) {
          const slot = { uuid: b.toolUseId, parent: id, ts, role: "tool", blocks: [] };
          entries.push(slot);
          answers.set(b.toolUseId, slot);
        }
    } else if (read.responses.length === 0) countSkip(skipped, `${type} message with no indexable content`);
    else countSkip(skipped, "user message of tool responses (each read after its call)");
    read.responses.forEach((r, k) => {
      answer(r, id, k, ts);
    });
    results.forEach((rs, i) => {
      for (const r of rs) answer(r, id, i, ts);
    });
  }
  return entries.filter((e) => e.blocks.length > 0);
}

/**
 * A model message's blocks: its thoughts, its content, then its tool calls. A message the CLI wrote back on
 * resume holds thoughts and calls as parts of its content; the CLI's own rule tells the two forms apart
 * (`convertSessionToClientHistory`), and both give the same blocks.
 */
function modelBlocks(m: Stored, content: Block[], args: ArgumentSerializer, skipped: SkipCounts): Block[] {
  const v = m.value;
  const inContent = partList(v.content).some((p) => {
    const o = asObject(p);
    return o !== null && (o.functionCall !== undefined || o.thought === true);
  });
  if (inContent) return content;
  const blocks: Block[] = [];
  for (const t of Array.isArray(v.thoughts) ? v.thoughts : []) {
    const text = thoughtText(t);
    if (!isBlank(text)) blocks.push(makeBlock("thinking", text));
  }
  blocks.push(...content);
  (Array.isArray(v.toolCalls) ? v.toolCalls : []).forEach((c, i) => {
    const call = asObject(c);
    if (call === null) countSkip(skipped, 'content part "toolCall" that is not an object');
    else {
      const text = args.serialize(call.args, [...m.path, "toolCalls", i, "args"]);
      blocks.push(makeBlock("tool_use", text, asString(call.name), asString(call.id)));
    }
  });
  return blocks;
}

/** The answers a tool call record carries in its `result` (a string, or Part lists of function responses). */
function callResults(
  call: Record<string, unknown> | null,
  args: ArgumentSerializer,
  path: (string | number)[],
  skipped: SkipCounts,
): FunctionResponse[] {
  const result = call?.result;
  if (result === undefined || result === null) return [];
  if (typeof result === "string")
    return [{ callId: asString(call?.id), name: asString(call?.name), text: result }];
  return readParts(result, args, path, skipped).responses;
}
