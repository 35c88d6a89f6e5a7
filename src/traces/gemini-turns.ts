/**
 * Gemini CLI messages to turns (docs/transcript-formats.md#gemini-cli), in the final list's order: user and
 * model messages, each tool's answer a turn of its own after its call (its id the call's), whichever copy of
 * an answer comes first. Fed one message at a time, it gives each turn as soon as nothing later can change
 * it: a call's turn waits only for the messages that may still answer it.
 */
import { ArgumentSerializer, makeBlock } from "./blocks.js";
import { type FunctionResponse, partList, readParts } from "./gemini-parts.js";
import { asObject, asString, readGuarded } from "./jsonl.js";
import { isBlank } from "./text.js";
import { type Block, countSkip, type SkipCounts, type UnreadableRecord } from "./types.js";

/** A message as last written: its record's raw line and where in that record it sits. */
export interface Stored {
  value: Record<string, unknown>;
  raw: string;
  path: (string | number)[];
  /** The file line it was written on. */
  line: number;
}

/** A turn before numbering. */
export interface Entry {
  uuid: string;
  parent: string | null;
  ts: string;
  role: string;
  blocks: Block[];
  /** The call a tool's turn answers, for a turn that holds (or waits for) an answer. */
  call?: string;
}

/** The CLI's own context messages, which open every session (`isIgnoredUserContent` in the CLI). */
const INJECTED = /^\s*<(session_context|hook_context)>/;

/** A call's turn once given: whether it held an answer. */
type Given = "answered" | "empty";

/**
 * The call ids a message may answer (its function responses and its calls' results), read from its record
 * without serializing anything: a superset of the answers {@link GeminiTurns} takes from it.
 */
export function answerIds(v: Record<string, unknown>): string[] {
  const ids: string[] = [];
  const responses = (parts: unknown) => {
    for (const p of partList(parts)) {
      const id = asString(asObject(asObject(p)?.functionResponse)?.id);
      if (id !== null) ids.push(id);
    }
  };
  responses(v.content);
  for (const c of Array.isArray(v.toolCalls) ? v.toolCalls : []) {
    const call = asObject(c);
    if (call === null || call.result === undefined || call.result === null) continue;
    const id = asString(call.id);
    if (typeof call.result === "string") {
      if (id !== null) ids.push(id);
    } else responses(call.result);
  }
  return ids;
}

/**
 * Turns from the final message list, fed in its order. `lastAnswer` (a streamed read's first pass) says
 * the last list position that may answer a call; without it every call's turn waits for {@link finish}.
 */
export class GeminiTurns {
  private readonly queue: Entry[] = [];
  private readonly answers = new Map<string, Entry | Given>();
  private previous: string | null = null;

  constructor(
    private readonly o: {
      skipped: SkipCounts;
      unreadable: UnreadableRecord[];
      firstTs: Map<string, string>;
      lastAnswer?: Map<string, number>;
    },
  ) {}

  /** Reads one message of the list. */
  add(id: string, m: Stored): void {
    const { skipped, unreadable } = this.o;
    const v = m.value;
    const type = asString(v.type) ?? "(none)";
    const ts = this.o.firstTs.get(id) ?? "";
    const args = new ArgumentSerializer(m.raw);
    if (type !== "user" && type !== "gemini") {
      countSkip(skipped, `message type "${type}" not indexed`);
      return;
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
    if (got === null) return;
    if (got === "injected") {
      countSkip(skipped, "gemini <session_context> (the CLI's, injected)");
      return;
    }
    const { read, blocks, results } = got;
    if (blocks.length > 0) {
      const role = type === "gemini" ? "assistant" : "user";
      this.queue.push({ uuid: id, parent: this.previous, ts, role, blocks });
      this.previous = id;
      for (const b of blocks)
        if (b.blockType === "tool_use" && b.toolUseId !== null && !this.answers.has(b.toolUseId)) {
          const slot = { uuid: b.toolUseId, parent: id, ts, role: "tool", blocks: [], call: b.toolUseId };
          this.queue.push(slot);
          this.answers.set(b.toolUseId, slot);
        }
    } else if (read.responses.length === 0) countSkip(skipped, `${type} message with no indexable content`);
    else countSkip(skipped, "user message of tool responses (each read after its call)");
    read.responses.forEach((r, k) => {
      this.answer(r, id, k, ts);
    });
    results.forEach((rs, i) => {
      for (const r of rs) this.answer(r, id, i, ts);
    });
  }

  /** The turns complete once the message at list position `pos` is read, in order (empty ones dropped). */
  *ready(pos: number): Generator<Entry> {
    let k = 0;
    for (; k < this.queue.length; k++) {
      const e = this.queue[k] as Entry;
      if (e.call !== undefined && e.blocks.length === 0 && (this.o.lastAnswer?.get(e.call) ?? -1) > pos)
        break;
    }
    yield* this.give(k);
  }

  /** Every turn left, in order (empty ones dropped). */
  *finish(): Generator<Entry> {
    yield* this.give(this.queue.length);
  }

  /** Gives the first `n` queued turns, keeping only whether a call's was answered. */
  private *give(n: number): Generator<Entry> {
    const out = this.queue.splice(0, n);
    for (const e of out) {
      if (e.call !== undefined && this.answers.get(e.call) === e)
        this.answers.set(e.call, e.blocks.length > 0 ? "answered" : "empty");
      if (e.blocks.length > 0) yield e;
    }
  }

  private answer(r: FunctionResponse, from: string, k: number, ts: string): void {
    if (isBlank(r.text)) {
      countSkip(this.o.skipped, 'content part "functionResponse" that is empty');
      return;
    }
    const block = makeBlock("tool_result", r.text, r.name, r.callId);
    const slot = r.callId === null ? undefined : this.answers.get(r.callId);
    if (slot === undefined) {
      // An answer whose call is not in the list (an older file, a rewound call): a turn where it stands.
      const e: Entry = { uuid: r.callId ?? `${from}:${k}`, parent: from, ts, role: "tool", blocks: [block] };
      if (r.callId !== null) e.call = r.callId;
      this.queue.push(e);
      if (r.callId !== null) this.answers.set(r.callId, e);
    } else if (slot === "answered" || slot === "empty" || slot.blocks.length > 0)
      // "empty" cannot be met: a call's turn is given empty only when no later message may answer it.
      countSkip(this.o.skipped, 'content part "functionResponse" already read with its call');
    else slot.blocks.push(block);
  }
}

/** The text of a stored thought (`{subject, description}`), as the CLI writes it back on resume. */
function thoughtText(t: unknown): string {
  const o = asObject(t);
  const subject = asString(o?.subject);
  const description = asString(o?.description) ?? "";
  return subject !== null && subject !== "" ? `**${subject}** ${description}` : description;
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
