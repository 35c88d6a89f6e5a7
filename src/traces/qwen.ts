/**
 * Qwen Code sessions (`~/.qwen/projects/<munged cwd>/chats/<sessionId>.jsonl`, archived ones under
 * `chats/archive/`, sub-agents' in `subagents/<sessionId>/agent-<id>.jsonl`; shared/spec/agents-next.md
 * §3.2): one record per line, `{uuid, parentUuid, sessionId, timestamp, type, cwd, message: {role, parts}}`,
 * the message in Gemini's Part form (Qwen Code is a fork of Gemini CLI). `user` records hold the prompt (and
 * prompts typed mid-turn), `assistant` records text, thoughts and function calls, `tool_result` records the
 * function responses; `system` records (telemetry, attribution snapshots, compression checkpoints…) are
 * the CLI's bookkeeping and are counted by subtype.
 */
import { ArgumentSerializer, backfillToolNames, makeBlock } from "./blocks.js";
import { markQwenInjected } from "./boilerplate.js";
import type { ParseContext } from "./claude.js";
import { readParts } from "./gemini-parts.js";
import { compactJson } from "./json-compact.js";
import { asObject, asString, parseJsonl, readGuarded, type TranscriptText } from "./jsonl.js";
import { fallbackWorkdir, fileStem, isBlank, mungeCwd } from "./text.js";
import {
  type Block,
  countSkip,
  type SkipCounts,
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
  first: Record<string, unknown>;
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
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const messages: Message[] = [];
  const byUuid = new Map<string, Message>();
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let sidechain = false;
  let records = 0;
  for (const { value: r, raw, line } of parseJsonl(text, skipped)) {
    records++;
    const type = asString(r.type) ?? "(none)";
    sessionId ??= asString(r.sessionId);
    sidechain ||= r.isSidechain === true;
    cwd ??= asString(r.cwd);
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
    const m = uuid === null ? undefined : byUuid.get(uuid);
    // Read before anything is kept, so a record that cannot be read leaves no trace but its count.
    const read = readGuarded(line, skipped, unreadable, () => {
      // Serialized only for a uuid seen before (rare), never for every record.
      const piece = m === undefined ? null : compactJson(message.parts ?? null);
      if (m !== undefined && m.pieces === null) m.pieces = new Set([compactJson(m.firstParts ?? null)]);
      if (piece !== null && m?.pieces?.has(piece) === true) return "again";
      const args = new ArgumentSerializer(raw);
      return { piece, parts: readParts(message.parts, args, ["message", "parts"], skipped) };
    });
    if (read === null) continue;
    if (read === "again") {
      countSkip(skipped, "record written again (read once)");
      continue;
    }
    let msg = m;
    if (msg === undefined) {
      msg = {
        first: r,
        role,
        ts: asString(r.timestamp) ?? "",
        blocks: [],
        pieces: null,
        firstParts: message.parts,
      };
      messages.push(msg);
      if (uuid !== null) byUuid.set(uuid, msg);
    } else {
      countSkip(skipped, "record continuing a message (joined to it)");
      const ts = asString(r.timestamp);
      if (ts !== null && ts > msg.ts) msg.ts = ts;
      if (read.piece !== null) msg.pieces?.add(read.piece);
    }
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
    for (const b of parts.blocks) msg.blocks.push(b);
  }
  const turns: Turn[] = [];
  for (const m of messages) {
    const type = asString(m.first.type);
    if (m.blocks.length === 0) {
      countSkip(skipped, `${type} record with no indexable content`);
      continue;
    }
    const seq = turns.length;
    turns.push({
      sessionId: "",
      workdir: "",
      turnUuid: asString(m.first.uuid) ?? `${fileStem(ctx.path)}-${seq}`,
      parentUuid: asString(m.first.parentUuid),
      seq,
      ts: m.ts,
      role: m.role,
      blocks: m.blocks,
      sourcePath: ctx.path,
      harness: "qwen",
    });
  }
  backfillToolNames(turns);
  // A sub-agent's transcript (`subagents/<session>/agent-<id>.jsonl`) carries its parent's session id: it is
  // a session of its own, named by its file, as Claude Code's sub-agents are.
  const id = sidechain ? fileStem(ctx.path) : (sessionId ?? fileStem(ctx.path));
  const munged = cwd === null ? null : mungeCwd(cwd);
  const workdir = munged ?? fallbackWorkdir(ctx.path);
  for (const t of turns) {
    t.sessionId = id;
    t.workdir = workdir;
  }
  const session = { sessionId: id, workdir, cwd: munged === null ? null : cwd, turns, isSubagent: sidechain };
  return { sessions: [session], skipped, records, ...(unreadable.length > 0 ? { unreadable } : {}) };
}
