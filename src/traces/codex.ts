/**
 * Codex rollouts (docs/transcript-formats.md#codex): the current
 * `{timestamp,type,payload}` envelope, the headerless 2025 JSONL, and the single-file `.json` generation.
 * Only response items become turns; `event_msg` copies of the same messages are skipped so nothing is
 * counted twice. A file that holds the user's prompts only as `event_msg/user_message` (no user response
 * item at all: a real published rollout was trimmed so) takes its prompts from those events, in place,
 * rather than losing them; a file with any user response item reads exactly what the reference reads.
 * Turn ids are `<session_id>-<seq>`, as the reference makes them.
 */
import { backfillToolNames, makeBlock } from "./blocks.js";
import { markCodexInjected } from "./boilerplate.js";
import type { ParseContext } from "./claude.js";
import { compactJson } from "./json-compact.js";
import {
  asObject,
  asString,
  type JsonRecord,
  parseJsonl,
  type RecordPlace,
  readGuarded,
  SKIP_MALFORMED,
  type TranscriptText,
  wholeText,
} from "./jsonl.js";
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

/** Skip reason for a message content part that is not a typed object. */
const NOT_TYPED = "content part that is not a typed object";

interface CodexItem {
  payload: Record<string, unknown>;
  ts: string;
  /** The file line it came from; in a single-file `.json`, `item <n>` of its list. */
  at: RecordPlace;
  /** A user prompt recorded only as an event: a turn only when the file has no user response item. */
  fromEvent?: true;
}

const SKIP_EVENT = 'record type "event_msg"';

/** Parses a Codex rollout in any of its three on-disk generations. */
export function parseCodexRollout(text: TranscriptText, ctx: ParseContext): UnitRead {
  return collectStream(streamCodexRollout(text, ctx) ?? singleJson(text, ctx));
}

/**
 * Reads a JSONL rollout a turn at a time (two passes: its session, folder, and whether any user message
 * item exists first, then its turns); null for the single-file `.json` generation, read whole.
 */
export function streamCodexRollout(text: TranscriptText, ctx: ParseContext): StreamedUnit | null {
  if (isSingleJson(ctx)) return null;
  return streamTwoPass<CodexFacts>({
    pass: (skipped, unreadable, known) => codexTurns(text, { ctx, skipped, unreadable, known }),
    session: (facts) => {
      const sessionId = facts.sessionId ?? fileStem(ctx.path);
      const munged = facts.cwd === null ? null : mungeCwd(facts.cwd);
      const workdir = munged ?? fallbackWorkdir(ctx.path);
      return { sessionId, workdir, cwd: munged === null ? null : facts.cwd, isSubagent: false };
    },
    backfillNames: true,
  });
}

function isSingleJson(ctx: ParseContext): boolean {
  return ctx.path.toLowerCase().endsWith(".json");
}

/** The single-file `.json` generation, read whole, as a stream of its one session. */
function singleJson(text: TranscriptText, ctx: ParseContext): StreamedUnit {
  const { sessions, ...read } = parseSingleJson(wholeText(text), ctx, {});
  return { sessions, read };
}

/** What only the whole rollout says. */
interface CodexFacts {
  records: number;
  sessionId: string | null;
  cwd: string | null;
  /** The headerless 2025 JSONL (its first line a bare header). */
  legacy: boolean;
  /** Some response item holds a user message (prompts recorded only as events are then copies). */
  hasUserItem: boolean;
}

/** One pass over a JSONL rollout; `known` (the first pass's facts) decides ids and event-only prompts. */
function* codexTurns(
  text: TranscriptText,
  o: { ctx: ParseContext; skipped: SkipCounts; unreadable: UnreadableRecord[]; known: CodexFacts | null },
): Generator<Turn, CodexFacts> {
  const { ctx, skipped, known } = o;
  const facts: CodexFacts = { records: 0, sessionId: null, cwd: null, legacy: false, hasUserItem: false };
  const sessionId = known?.sessionId ?? fileStem(ctx.path);
  let headerTs = "";
  let seq = 0;
  for (const rec of parseJsonl(text, skipped)) {
    facts.records++;
    const r = rec.value;
    const type = asString(r.type);
    const payload = asObject(r.payload);
    let item: CodexItem | null = null;
    if (payload !== null && type !== null && "payload" in r) {
      // Envelope generation.
      if (type === "session_meta") {
        if (facts.sessionId === null) {
          facts.sessionId = asString(payload.id);
          facts.cwd = asString(payload.cwd);
        }
        countSkip(skipped, 'record type "session_meta"');
      } else if (type === "response_item") item = { payload, ts: asString(r.timestamp) ?? "", at: rec.line };
      else if (type === "event_msg" && payload.type === "user_message" && asString(payload.message) !== null)
        item = {
          payload: promptOf(payload),
          ts: asString(r.timestamp) ?? "",
          at: rec.line,
          fromEvent: true,
        };
      else countSkip(skipped, `record type "${type}"`);
    } else {
      const got = legacyLine(rec, facts.records, skipped, headerTs);
      if (got !== null && "header" in got) {
        facts.sessionId ??= got.header.id;
        headerTs = got.header.ts;
        facts.legacy = true;
      } else item = got;
    }
    if (item === null) continue;
    if (!item.fromEvent && item.payload.type === "message" && item.payload.role === "user")
      facts.hasUserItem = true;
    // A prompt recorded only as an event is a turn when no user message item holds it (known in pass two).
    if (item.fromEvent && (known === null || known.hasUserItem)) {
      if (known !== null) countSkip(skipped, SKIP_EVENT);
      continue;
    }
    const { payload: p, at } = item;
    const legacy = known?.legacy ?? facts.legacy;
    const mapped = readGuarded(at, skipped, o.unreadable, () => itemTurn(p, { legacy, skipped }));
    if (mapped === null) continue;
    if (typeof mapped === "string") {
      countSkip(skipped, mapped);
      continue;
    }
    markCodexInjected(mapped.role, mapped.blocks, skipped);
    yield {
      sessionId,
      workdir: "",
      turnUuid: `${sessionId}-${seq}`,
      parentUuid: null,
      seq: seq++,
      ts: item.ts,
      role: mapped.role,
      blocks: mapped.blocks,
      sourcePath: ctx.path,
      harness: "codex",
    };
  }
  return facts;
}

/** An `event_msg/user_message` as the user message response item Codex normally writes beside it. */
function promptOf(payload: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: asString(payload.message) ?? "" }],
  };
}

/**
 * One line of the headerless 2025 JSONL: a bare header line, then bare response items with no timestamps
 * (they take the header's). Returns the header or the item this line is, null for neither.
 */
function legacyLine(
  rec: JsonRecord,
  recordNo: number,
  skipped: SkipCounts,
  headerTs: string,
): { header: { id: string | null; ts: string } } | CodexItem | null {
  const r = rec.value;
  if (recordNo === 1 && asString(r.type) === null && "id" in r) {
    countSkip(skipped, "session header");
    return { header: { id: asString(r.id), ts: asString(r.timestamp) ?? "" } };
  }
  if (r.record_type !== undefined) countSkip(skipped, `record_type "${String(r.record_type)}"`);
  else if (asString(r.type) !== null) return { payload: r, ts: headerTs, at: rec.line };
  else countSkip(skipped, "record without a type");
  return null;
}

function parseSingleJson(text: string, ctx: ParseContext, skipped: SkipCounts): UnitRead {
  let doc: Record<string, unknown> | null = null;
  try {
    doc = asObject(JSON.parse(text));
  } catch {
    countSkip(skipped, SKIP_MALFORMED);
  }
  const session = asObject(doc?.session);
  const ts = asString(session?.timestamp) ?? "";
  const raw = Array.isArray(doc?.items) ? (doc.items as unknown[]) : [];
  const items: CodexItem[] = [];
  raw.forEach((el, i) => {
    const item = asObject(el);
    if (item === null) countSkip(skipped, "item that is not an object");
    else
      items.push({
        payload: item.type === undefined && "role" in item ? { ...item, type: "message" } : item,
        ts,
        at: `item ${i + 1}`,
      });
  });
  const sessionId = asString(session?.id);
  return buildSession(items, { ctx, sessionId, cwd: null, skipped, records: raw.length, legacy: true });
}

interface BuildOptions {
  ctx: ParseContext;
  sessionId: string | null;
  cwd: string | null;
  skipped: SkipCounts;
  records: number;
  legacy: boolean;
}

function buildSession(items: CodexItem[], o: BuildOptions): UnitRead {
  const sessionId = o.sessionId ?? fileStem(o.ctx.path);
  const munged = o.cwd === null ? null : mungeCwd(o.cwd);
  const workdir = munged ?? fallbackWorkdir(o.ctx.path);
  const turns: Turn[] = [];
  const unreadable: UnreadableRecord[] = [];
  for (const { payload, ts, at } of items) {
    const mapped = readGuarded(at, o.skipped, unreadable, () =>
      itemTurn(payload, { legacy: o.legacy, skipped: o.skipped }),
    );
    if (mapped === null) continue;
    if (typeof mapped === "string") {
      countSkip(o.skipped, mapped);
      continue;
    }
    markCodexInjected(mapped.role, mapped.blocks, o.skipped);
    const seq = turns.length;
    turns.push({
      sessionId,
      workdir,
      turnUuid: `${sessionId}-${seq}`,
      parentUuid: null,
      seq,
      ts,
      role: mapped.role,
      blocks: mapped.blocks,
      sourcePath: o.ctx.path,
      harness: "codex",
    });
  }
  backfillToolNames(turns);
  const session = { sessionId, workdir, cwd: munged === null ? null : o.cwd, turns, isSubagent: false };
  return {
    sessions: [session],
    skipped: o.skipped,
    records: o.records,
    ...(unreadable.length > 0 ? { unreadable } : {}),
  };
}

/**
 * Maps one response item to a role and its blocks, or to the reason it yields no turn. Message parts that
 * are not text (a pasted `input_image`) are counted in `skipped`, as Claude's image parts are.
 */
function itemTurn(
  p: Record<string, unknown>,
  o: { legacy: boolean; skipped: SkipCounts },
): { role: string; blocks: Block[] } | string {
  const { legacy } = o;
  const type = asString(p.type) ?? "(none)";
  const blocks: Block[] = [];
  let role = "assistant";
  switch (type) {
    case "message": {
      role = asString(p.role) ?? "";
      if (typeof p.content === "string") {
        if (!isBlank(p.content)) blocks.push(makeBlock("text", p.content));
      } else if (Array.isArray(p.content)) {
        for (const el of p.content) {
          const part = asObject(el);
          const kind = asString(part?.type);
          const t = asString(part?.text);
          const textual = kind === "input_text" || kind === "output_text" || (legacy && kind === "text");
          if (!textual)
            countSkip(o.skipped, kind === null ? NOT_TYPED : `content part "${kind}" not indexed`);
          else if (t !== null && !isBlank(t)) blocks.push(makeBlock("text", t));
        }
      }
      break;
    }
    case "reasoning": {
      const summary = Array.isArray(p.summary) ? p.summary : [];
      let t = textsOfType(summary, "summary_text");
      // The 2025 JSONL kept reasoning in `content`; the reference reads only `summary` (envelope files).
      if (legacy && isBlank(t) && Array.isArray(p.content)) t = textsOfType(p.content, "reasoning_text");
      if (!isBlank(t)) blocks.push(makeBlock("thinking", t));
      break;
    }
    case "function_call":
    case "custom_tool_call": {
      const args = "arguments" in p ? (asString(p.arguments) ?? "{}") : (asString(p.input) ?? "{}");
      blocks.push(makeBlock("tool_use", args, asString(p.name), asString(p.call_id)));
      break;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      role = "tool";
      const out = p.output;
      const t = typeof out === "string" ? out : out === null || out === undefined ? "" : compactJson(out);
      if (!isBlank(t)) blocks.push(makeBlock("tool_result", t, null, asString(p.call_id)));
      break;
    }
    default:
      return `response_item "${type}" not indexed`;
  }
  return blocks.length === 0 ? `${type} item with no indexable content` : { role, blocks };
}

function textsOfType(parts: unknown[], kind: string): string {
  const out: string[] = [];
  for (const el of parts) {
    const part = asObject(el);
    const t = asString(part?.text);
    if (asString(part?.type) === kind && t !== null) out.push(t);
  }
  return out.join("\n");
}
