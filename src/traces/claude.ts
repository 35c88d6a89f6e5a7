/**
 * Claude Code transcripts: `~/.claude/projects/<munged-cwd>/<session>.jsonl` and sub-agent files
 * (docs/transcript-formats.md#claude-code). One record per content block of a streamed
 * response is kept as its own turn, as the reference does (no merge by message id).
 */
import { createHash } from "node:crypto";
import { ArgumentSerializer, backfillToolNames, flattenToolContent, makeBlock } from "./blocks.js";
import { markClaudeInjected, markClaudeReplayed } from "./boilerplate.js";
import { asObject, asString, parseJsonl, readGuarded, type TranscriptText } from "./jsonl.js";
import { addPersistedOutputs, type PersistedRead } from "./persisted-output.js";
import { fallbackWorkdir, fileStem, isBlank, mungeCwd } from "./text.js";
import { backfill } from "./two-pass.js";
import {
  type Block,
  countSkip,
  type Session,
  type SkipCounts,
  type StreamedUnit,
  type Turn,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

/** What a parser needs to know about where the text came from. */
export interface ParseContext {
  /** The transcript's path as walked (becomes `source_path`). */
  path: string;
  /**
   * Claude Code only: the text of an externalised tool output, `<session>/tool-results/<file>` beside the
   * transcript (null when absent). Without it, only the transcript's preview is indexed.
   */
  readToolResult?: (sessionFolder: string, file: string) => PersistedRead;
  /**
   * Claude Code only, for a sub-agent transcript: the uuids of the records of the session it belongs to
   * (`<session>.jsonl` beside its `<session>/subagents/` folder), when that file is there. A record with one
   * of them is the parent's, replayed (see {@link markClaudeReplayed}).
   */
  parentUuids?: ReadonlySet<string>;
  /** Gemini CLI only: the project folder recorded beside the session (`.project_root`), when found. */
  cwd?: string | null;
}

/** True for a sub-agent transcript (session id starts with exactly `agent-`). */
export function isSubagentId(sessionId: string): boolean {
  return sessionId.startsWith("agent-");
}

/** Parses one Claude Code JSONL transcript. */
export function parseClaudeTranscript(text: TranscriptText, ctx: ParseContext): UnitRead {
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const sessionId = fileStem(ctx.path);
  const reading = claudeTurns(text, ctx, skipped, unreadable);
  const turns: Turn[] = [];
  let next = reading.next();
  for (; next.done !== true; next = reading.next()) turns.push(next.value);
  const { cwd, records } = next.value;
  const wd = next.value.workdir ?? fallbackWorkdir(ctx.path);
  for (const t of turns) t.workdir = wd;
  backfillToolNames(turns);
  const session: Session = { sessionId, workdir: wd, cwd, turns, isSubagent: isSubagentId(sessionId) };
  return { sessions: [session], skipped, records, ...(unreadable.length > 0 ? { unreadable } : {}) };
}

/**
 * Reads a Claude Code transcript one turn at a time, in two passes over its lines (each pass reads the file
 * again): the first learns what the turns need from the whole session (its working folder, every tool
 * call's name) and keeps no text, the second gives the turns. Memory is the largest record's, not the
 * file's; the turns are those {@link parseClaudeTranscript} gives, in its order.
 */
export function streamClaudeTranscript(lines: TranscriptText, ctx: ParseContext): StreamedUnit {
  const sessionId = fileStem(ctx.path);
  const names = new Map<string, string>();
  // Pass one: no tool output files read, no skips kept (pass two counts them).
  const { readToolResult: _, ...scanCtx } = ctx;
  const scan = claudeTurns(lines, scanCtx, {}, []);
  let next = scan.next();
  for (; next.done !== true; next = scan.next())
    for (const b of next.value.blocks)
      if (b.blockType === "tool_use" && b.toolUseId !== null && b.toolName !== null)
        names.set(b.toolUseId, b.toolName);
  const workdir = next.value.workdir ?? fallbackWorkdir(ctx.path);
  const read: StreamedUnit["read"] = { skipped: {}, records: 0, unreadable: [] };
  function* turns(): Generator<Turn> {
    const reading = claudeTurns(lines, ctx, read.skipped, read.unreadable ?? []);
    let r = reading.next();
    for (; r.done !== true; r = reading.next()) {
      const t = r.value;
      t.workdir = workdir;
      backfill(t, names);
      yield t;
    }
    read.records = r.value.records;
  }
  const session = {
    sessionId,
    workdir,
    cwd: next.value.cwd,
    isSubagent: isSubagentId(sessionId),
    turns: turns(),
  };
  return { sessions: [session], read };
}

/** What a transcript says besides its turns, known once every record is read. */
interface ClaudeTail {
  cwd: string | null;
  /** The munged working folder of the first record naming one; null when none does. */
  workdir: string | null;
  records: number;
}

/**
 * The turns of a transcript in file order, each as soon as its record is read: `workdir` left empty and
 * tool results' names not back-filled (both need the whole session). A record without a `uuid` (files other
 * tools write in Claude's shape: Factory droid, exports, importers) is a turn of its own, named by the
 * session and its line, so re-reading the file gives it the same id and distinct records never share one.
 */
function* claudeTurns(
  text: TranscriptText,
  ctx: ParseContext,
  skipped: SkipCounts,
  unreadable: UnreadableRecord[],
): Generator<Turn, ClaudeTail> {
  const sessionId = fileStem(ctx.path);
  let cwd: string | null = null;
  let workdir: string | null = null;
  let records = 0;
  let seq = 0;
  const ids = new TurnIds(sessionId);
  const queue = new PromptQueue();
  for (const rec of parseJsonl(text, skipped)) {
    records++;
    const r = rec.value;
    const recCwd = asString(r.cwd);
    if (workdir === null && recCwd !== null) {
      workdir = mungeCwd(recCwd);
      if (workdir !== null) cwd = recCwd;
    }
    const type = asString(r.type) ?? "(none)";
    if (type === "queue-operation") {
      const prompt = queue.apply(r, records, skipped);
      if (prompt !== null) {
        const blocks = [makeBlock("text", prompt.text)];
        markClaudeInjected("user", false, blocks, skipped);
        yield {
          sessionId,
          workdir: "",
          turnUuid: `${sessionId}-queued-${prompt.record}`,
          parentUuid: null,
          seq: seq++,
          ts: prompt.ts,
          role: "user",
          blocks,
          sourcePath: ctx.path,
          harness: "claude_code",
        };
      }
      continue;
    }
    if (type !== "user" && type !== "assistant") {
      countSkip(skipped, `record type "${type}"`);
      continue;
    }
    const message = asObject(r.message);
    const blocks = readGuarded(rec.line, skipped, unreadable, () =>
      claudeBlocks(message?.content, new ArgumentSerializer(rec.raw), skipped),
    );
    if (blocks === null) continue;
    // What the record says, before a saved tool output is read into it (which may come and go).
    const said = contentDigest(blocks);
    if (type === "user") queue.sawUserText(blocks);
    markClaudeInjected(asString(message?.role) ?? type, r.isMeta === true, blocks, skipped);
    if (ctx.readToolResult !== undefined)
      addPersistedOutputs(blocks, ctx.readToolResult, skipped, asString(asObject(r.toolUseResult)?.stdout));
    const uuid = asString(r.uuid);
    if (uuid !== null && ctx.parentUuids?.has(uuid) === true) markClaudeReplayed(blocks, skipped);
    if (blocks.length === 0) {
      countSkip(skipped, `${type} record with no indexable content`);
      continue;
    }
    yield {
      sessionId,
      workdir: "",
      turnUuid: ids.of(uuid, rec.line, said),
      parentUuid: asString(r.parentUuid),
      seq: seq++,
      ts: asString(r.timestamp) ?? "",
      role: asString(message?.role) ?? type,
      blocks,
      sourcePath: ctx.path,
      harness: "claude_code",
    };
  }
  queue.finish(skipped);
  return { cwd, workdir, records };
}

function claudeBlocks(content: unknown, args: ArgumentSerializer, skipped: Record<string, number>): Block[] {
  if (typeof content === "string") return isBlank(content) ? [] : [makeBlock("text", content)];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  content.forEach((el, i) => {
    const part = asObject(el);
    const kind = asString(part?.type);
    if (part === null || kind === null) {
      countSkip(skipped, "content part that is not a typed object");
      return;
    }
    switch (kind) {
      case "text":
      case "thinking": {
        const t = asString(part[kind]);
        if (t !== null && !isBlank(t)) blocks.push(makeBlock(kind, t));
        return;
      }
      case "tool_use":
        blocks.push(
          makeBlock(
            "tool_use",
            args.serialize(part.input, ["message", "content", i, "input"]),
            asString(part.name),
            asString(part.id),
          ),
        );
        return;
      case "tool_result": {
        const t = flattenToolContent(part.content, skipped);
        if (!isBlank(t)) blocks.push(makeBlock("tool_result", t, null, asString(part.tool_use_id)));
        return;
      }
      default:
        countSkip(skipped, `content part "${kind}" not indexed`);
    }
  });
  return blocks;
}

/**
 * Turn ids of a transcript's records. A record's `uuid` is its id; a record without one (files other tools
 * write in Claude's shape: Factory droid, exports, importers, fixtures) is named by the session and its
 * line, and so is a record whose uuid an earlier record of the file already had with other content (an
 * export that wrote one placeholder uuid for every record): re-reading the file gives the same ids, and two
 * distinct texts never share one, so neither is taken for a repeat of the other and lost. A record written
 * again with the same content keeps its uuid (stored once, truly a repeat).
 */
class TurnIds {
  /** What each uuid's first record held (a digest of its blocks). */
  private readonly first = new Map<string, string>();

  constructor(private readonly sessionId: string) {}

  /** The id of the record on `line` with this uuid, whose content digests to `content`. */
  of(uuid: string | null, line: number, content: string): string {
    const byLine = `${this.sessionId}-line-${line}`;
    if (uuid === null || uuid === "") return byLine;
    const held = this.first.get(uuid);
    if (held === undefined) this.first.set(uuid, content);
    return held === undefined || held === content ? uuid : byLine;
  }
}

/** A digest of blocks' kinds, names and text (SHA-1, hex): equal for equal content. */
function contentDigest(blocks: Block[]): string {
  const digest = createHash("sha1");
  for (const b of blocks) digest.update(`${b.blockType}\u0000${b.toolName ?? ""}\u0000${b.text}\u0001`);
  return digest.digest("hex");
}

/** Skip reason for queue records that hold no prompt of their own, or a prompt written as a message too. */
const SKIP_QUEUE = 'record type "queue-operation"';

/**
 * Prompts the user typed while Claude Code was busy. Each is queued (`enqueue`, with its text); a `dequeue`
 * then starts a new turn with it, written as a user record like any prompt, while a `remove` hands it to the
 * running turn, and no user record ever holds its text (Claude Code 2.1.3x: "check again" typed during a
 * long test run). The text of an enqueue a `remove` takes is kept as a user turn where the remove is; the
 * rest are counted. A queue operation names no entry, so it takes the newest one still queued (notifications
 * of finished background tasks are queued too, and written as user records without a dequeue).
 */
class PromptQueue {
  private readonly pending: { text: string | null; ts: string; record: number }[] = [];
  private readonly userTexts = new Set<string>();

  /** Remembers the text of a user record, so a queued prompt written as one too is not kept twice. */
  sawUserText(blocks: Block[]): void {
    for (const b of blocks) if (b.blockType === "text") this.userTexts.add(b.text.trim());
  }

  /** Applies one queue record (`record` is its 1-based index); returns the prompt a `remove` hands over. */
  apply(
    r: Record<string, unknown>,
    record: number,
    skipped: SkipCounts,
  ): { text: string; ts: string; record: number } | null {
    const op = asString(r.operation);
    if (op === "enqueue") {
      this.pending.push({ text: asString(r.content), ts: asString(r.timestamp) ?? "", record });
      return null;
    }
    countSkip(skipped, SKIP_QUEUE);
    if (op !== "dequeue" && op !== "remove") return null;
    const entry = this.pending.pop();
    if (entry === undefined) return null;
    if (
      op === "remove" &&
      entry.text !== null &&
      !isBlank(entry.text) &&
      !this.userTexts.has(entry.text.trim())
    )
      return { text: entry.text, ts: entry.ts, record: entry.record };
    countSkip(skipped, SKIP_QUEUE);
    return null;
  }

  /** Counts the enqueues no operation took (still queued, or written as user records without a dequeue). */
  finish(skipped: SkipCounts): void {
    if (this.pending.length > 0) countSkip(skipped, SKIP_QUEUE, this.pending.length);
    this.pending.length = 0;
  }
}
