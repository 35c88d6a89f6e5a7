/**
 * Qwen Code sessions (`~/.qwen/projects/<munged cwd>/chats/<sessionId>.jsonl`, archived ones under
 * `chats/archive/`, sub-agents' in `subagents/<sessionId>/agent-<id>.jsonl`;
 * docs/transcript-formats.md#qwen-code): one record per line, `{uuid, parentUuid, sessionId, timestamp, type,
 * cwd, message: {role, parts}}`, the message in Gemini's Part form (Qwen Code is a fork of Gemini CLI).
 * `user` records hold the prompt (and prompts typed mid-turn), `assistant` records text, thoughts and
 * function calls, `tool_result` records the function responses; `system` records (telemetry, attribution
 * snapshots, compression checkpoints…) are the CLI's bookkeeping and are counted by subtype.
 */
import { ArgumentSerializer, makeBlock } from "./blocks.js";
import { markQwenInjected } from "./boilerplate.js";
import type { ParseContext } from "./claude.js";
import { readParts } from "./gemini-parts.js";
import { compactJson } from "./json-compact.js";
import { asObject, asString, parseJsonl, readGuarded, type TranscriptText } from "./jsonl.js";
import { fallbackWorkdir, fileStem, isBlank, mungeCwd } from "./text.js";
import { collectStream, streamTwoPass } from "./two-pass.js";
import {
  type Block,
  countSkip,
  type SkipCounts,
  type StreamedUnit,
  type Turn,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

const ROLES = new Map([
  ["user", "user"],
  ["assistant", "assistant"],
  ["tool_result", "tool"],
]);

/** One message: the lines Qwen wrote under one uuid (it writes a message in pieces, each with a part list). */
interface Message {
  uuid: string | null;
  parentUuid: string | null;
  /** The record type of its first piece. */
  type: string;
  role: string;
  ts: string;
  blocks: Block[];
  /**
   * Each piece's part list as compact JSON, once the message has a second piece (a piece written again
   * whole is read once): a Set, so a message of n pieces costs n serializations and lookups, not n².
   */
  pieces: Set<string> | null;
  /** The first piece's part list, serialized only when a second piece comes. */
  firstParts: unknown;
}

/**
 * Parses one Qwen Code JSONL session. A message written in several lines under one uuid (Qwen writes a
 * thought, then the calls and text that follow it) is one turn of every piece's parts in order, as Qwen's
 * own loader joins them; a piece written again whole is counted, not read twice.
 */
export function parseQwenSession(text: TranscriptText, ctx: ParseContext): UnitRead {
  return collectStream(streamQwenSession(text, ctx));
}

/**
 * Reads a Qwen Code session a turn at a time, in two passes: the first learns the session's facts and the
 * last line of each message's pieces, the second gives each message once its last piece is read (in the
 * order messages begin; pieces are written together, so little is held at once).
 */
export function streamQwenSession(text: TranscriptText, ctx: ParseContext): StreamedUnit {
  return streamTwoPass<QwenFacts>({
    pass: (skipped, unreadable, known) => qwenTurns(text, { ctx, skipped, unreadable, known }),
    session: (facts) => {
      // A sub-agent's transcript (`subagents/<session>/agent-<id>.jsonl`) carries its parent's session id:
      // it is a session of its own, named by its file, as Claude Code's sub-agents are.
      const id = facts.sidechain ? fileStem(ctx.path) : (facts.sessionId ?? fileStem(ctx.path));
      const munged = facts.cwd === null ? null : mungeCwd(facts.cwd);
      const workdir = munged ?? fallbackWorkdir(ctx.path);
      return { sessionId: id, workdir, cwd: munged === null ? null : facts.cwd, isSubagent: facts.sidechain };
    },
    backfillNames: true,
  });
}

/** What only the whole session says. */
interface QwenFacts {
  records: number;
  sessionId: string | null;
  cwd: string | null;
  sidechain: boolean;
  /** The line of each uuid's last piece. */
  lastLine: Map<string, number>;
}

/**
 * One pass over a session. The first (`known` null) gives each piece's blocks as a turn of its own, for the
 * tool names, and learns the facts; the second gives each message whole, once its last piece is read.
 */
function* qwenTurns(
  text: TranscriptText,
  o: { ctx: ParseContext; skipped: SkipCounts; unreadable: UnreadableRecord[]; known: QwenFacts | null },
): Generator<Turn, QwenFacts> {
  const { ctx, skipped, unreadable, known } = o;
  const facts: QwenFacts = { records: 0, sessionId: null, cwd: null, sidechain: false, lastLine: new Map() };
  // Messages begun and not yet given, in the order they began, from `head` on (a queue without shifts).
  const open: (Message | null)[] = [];
  let head = 0;
  const byUuid = new Map<string, Message>();
  let seq = 0;
  const turnOf = (m: Message, n: number): Turn => ({
    sessionId: "",
    workdir: "",
    turnUuid: m.uuid ?? `${fileStem(ctx.path)}-${n}`,
    parentUuid: m.parentUuid,
    seq: n,
    ts: m.ts,
    role: m.role,
    blocks: m.blocks,
    sourcePath: ctx.path,
    harness: "qwen",
  });
  /** The messages at the front whose last piece is read (all of them at the end), as turns. */
  function* closed(line: number): Generator<Turn> {
    for (let m = open[head]; m !== undefined && m !== null; m = open[head]) {
      if (m.uuid !== null && (known?.lastLine.get(m.uuid) ?? 0) > line) return;
      open[head++] = null;
      if (m.uuid !== null) byUuid.delete(m.uuid);
      if (m.blocks.length === 0) countSkip(skipped, `${m.type} record with no indexable content`);
      else yield turnOf(m, seq++);
    }
    open.length = 0;
    head = 0;
  }
  for (const { value: r, raw, line } of parseJsonl(text, skipped)) {
    facts.records++;
    const type = asString(r.type) ?? "(none)";
    facts.sessionId ??= asString(r.sessionId);
    facts.sidechain ||= r.isSidechain === true;
    facts.cwd ??= asString(r.cwd);
    const role = ROLES.get(type);
    const message = asObject(r.message);
    if (role === undefined || message === null) {
      countSkip(
        skipped,
        type === "system" ? `system record "${asString(r.subtype) ?? "(none)"}"` : `record type "${type}"`,
      );
      continue;
    }
    const uuid = asString(r.uuid);
    if (uuid !== null) facts.lastLine.set(uuid, line);
    const m = uuid === null || known === null ? undefined : byUuid.get(uuid);
    // Read before anything is kept, so a record that cannot be read leaves no trace but its count.
    const read = readGuarded(line, skipped, unreadable, () => {
      // Serialized only for a uuid seen before (rare), never for every record.
      const piece = m === undefined ? null : compactJson(message.parts ?? null);
      if (m !== undefined && m.pieces === null) m.pieces = new Set([compactJson(m.firstParts ?? null)]);
      if (piece !== null && m?.pieces?.has(piece) === true) return "again";
      const args = new ArgumentSerializer(raw);
      return { piece, parts: readParts(message.parts, args, ["message", "parts"], skipped) };
    });
    if (read === "again") countSkip(skipped, "record written again (read once)");
    if (read !== null && read !== "again") {
      const { parts } = read;
      for (const a of parts.responses)
        if (isBlank(a.text)) countSkip(skipped, 'content part "functionResponse" that is empty');
        else parts.blocks.push(makeBlock("tool_result", a.text, a.name, a.callId));
      if (role === "user")
        markQwenInjected(
          { subtype: asString(r.subtype), provenance: asString(r.provenance) },
          parts.blocks,
          skipped,
        );
      const ts = asString(r.timestamp);
      if (m === undefined) {
        const fresh: Message = {
          uuid,
          parentUuid: asString(r.parentUuid),
          type,
          role,
          ts: ts ?? "",
          blocks: parts.blocks,
          pieces: null,
          firstParts: message.parts,
        };
        // The first pass gives each piece's blocks at once (for tool names); the second holds the message.
        if (known === null) yield turnOf(fresh, 0);
        else {
          open.push(fresh);
          if (uuid !== null) byUuid.set(uuid, fresh);
        }
      } else {
        countSkip(skipped, "record continuing a message (joined to it)");
        if (ts !== null && ts > m.ts) m.ts = ts;
        if (read.piece !== null) m.pieces?.add(read.piece);
        for (const b of parts.blocks) m.blocks.push(b);
      }
    }
    if (known !== null) yield* closed(line);
  }
  yield* closed(Number.POSITIVE_INFINITY);
  return facts;
}
