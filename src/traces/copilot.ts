/**
 * GitHub Copilot CLI's session log: `~/.copilot/session-state/<session>/events.jsonl` (`$COPILOT_HOME` moves
 * `~/.copilot`; docs/transcript-formats.md#copilot-cli). Every line is `{type, data, id, timestamp,
 * parentId}` (the package ships its JSON Schema, `schemas/session-events.schema.json`, 199 types in 1.0.102),
 * appended to on `--resume`. The conversation is `user.message` (the words typed: `content`, not the
 * `transformedContent` Copilot sends with its date header), `assistant.message` (text, `reasoningText`, and
 * `toolRequests`) and `tool.execution_complete` (a tool's result or error, one turn each). The system prompt
 * and the bookkeeping events (turn starts and ends, usage, permissions, hooks, shutdown) are counted, never
 * indexed.
 */
import { makeBlock } from "./blocks.js";
import type { ParseContext } from "./claude.js";
import { asObject, asString, parseJsonl, readGuarded, type TranscriptText } from "./jsonl.js";
import { fileStem, isBlank, mungeCwd } from "./text.js";
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

/** The blocks of one conversation event and its role; null for an event that holds none. */
function eventBlocks(
  type: string,
  data: Record<string, unknown>,
  toolNames: Map<string, string>,
): { role: string; blocks: Block[] } | null {
  switch (type) {
    case "user.message": {
      const text = asString(data.content) ?? "";
      return { role: "user", blocks: isBlank(text) ? [] : [makeBlock("text", text)] };
    }
    case "assistant.message": {
      const blocks: Block[] = [];
      const thinking = asString(data.reasoningText) ?? "";
      if (!isBlank(thinking)) blocks.push(makeBlock("thinking", thinking));
      const text = asString(data.content) ?? "";
      if (!isBlank(text)) blocks.push(makeBlock("text", text));
      for (const r of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
        const req = asObject(r);
        const id = asString(req?.toolCallId);
        const name = asString(req?.name);
        if (id !== null && name !== null) toolNames.set(id, name);
        const args = req?.arguments;
        const argText = typeof args === "string" ? args : JSON.stringify(args ?? {});
        blocks.push(makeBlock("tool_use", isBlank(argText) ? "{}" : argText, name, id));
      }
      return { role: "assistant", blocks };
    }
    case "tool.execution_complete": {
      const id = asString(data.toolCallId);
      const out =
        data.success === false
          ? asString(asObject(data.error)?.message)
          : asString(asObject(data.result)?.content);
      const name = id === null ? null : (toolNames.get(id) ?? null);
      return {
        role: "tool",
        blocks: out === null || isBlank(out) ? [] : [makeBlock("tool_result", out, name, id)],
      };
    }
    default:
      return null;
  }
}

/** Parses one `events.jsonl`. The session id is `session.start`'s, else the folder's name. */
export function parseCopilotEvents(text: TranscriptText, ctx: ParseContext): UnitRead {
  return collectStream(streamCopilotEvents(text, ctx));
}

/** Reads an `events.jsonl` a turn at a time (two passes: its session id and folder first, then its turns). */
export function streamCopilotEvents(text: TranscriptText, ctx: ParseContext): StreamedUnit {
  return streamTwoPass<CopilotFacts>({
    pass: (skipped, unreadable) => copilotTurns(text, ctx, skipped, unreadable),
    session: (facts) => {
      const sessionId = facts.sessionId ?? fileStem(ctx.path.replace(/[\\/]events\.jsonl$/, ""));
      const workdir = (facts.cwd === null ? null : mungeCwd(facts.cwd)) ?? "copilot";
      return { sessionId, workdir, cwd: workdir === "copilot" ? null : facts.cwd, isSubagent: false };
    },
    backfillNames: false,
  });
}

interface CopilotFacts {
  records: number;
  /** `session.start`'s id. */
  sessionId: string | null;
  /** The folder the last start or resume names. */
  cwd: string | null;
}

function* copilotTurns(
  text: TranscriptText,
  ctx: ParseContext,
  skipped: SkipCounts,
  unreadable: UnreadableRecord[],
): Generator<Turn, CopilotFacts> {
  let records = 0;
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let seq = 0;
  const toolNames = new Map<string, string>();
  for (const { value: r, line } of parseJsonl(text, skipped)) {
    records++;
    const type = asString(r.type) ?? "(none)";
    const data = asObject(r.data) ?? {};
    if (type === "session.start" || type === "session.resume") {
      sessionId ??= asString(data.sessionId);
      cwd = asString(asObject(data.context)?.cwd) ?? cwd;
    }
    if (type === "tool.execution_start") {
      const id = asString(data.toolCallId);
      const name = asString(data.toolName);
      if (id !== null && name !== null) toolNames.set(id, name);
    }
    const read = readGuarded(line, skipped, unreadable, () => ({ got: eventBlocks(type, data, toolNames) }));
    if (read === null) continue;
    const { got } = read;
    if (got === null) {
      countSkip(skipped, `copilot event "${type}" not indexed`);
      continue;
    }
    if (got.blocks.length === 0) {
      countSkip(skipped, `copilot ${type} with no indexable content`);
      continue;
    }
    yield {
      sessionId: "",
      workdir: "",
      turnUuid: asString(r.id) ?? `line-${seq}`,
      parentUuid: asString(r.parentId),
      seq: seq++,
      ts: asString(r.timestamp) ?? "",
      role: got.role,
      blocks: got.blocks,
      sourcePath: ctx.path,
      harness: "copilot",
    };
  }
  return { records, sessionId, cwd };
}
