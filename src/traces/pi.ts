/**
 * pi sessions (docs/transcript-formats.md#pi): format v1 (linear, no ids)
 * and v2/v3 (id/parentId tree). The session id is the file stem, timestamp prefix included, as the
 * reference takes it.
 */
import { ArgumentSerializer, flattenToolContent, makeBlock } from "./blocks.js";
import type { ParseContext } from "./claude.js";
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

/** Parses one pi JSONL session. */
export function parsePiSession(text: TranscriptText, ctx: ParseContext): UnitRead {
  return collectStream(streamPiSession(text, ctx));
}

/** Reads a pi session a turn at a time (two passes: its working folder first, then its turns). */
export function streamPiSession(text: TranscriptText, ctx: ParseContext): StreamedUnit {
  const sessionId = fileStem(ctx.path);
  return streamTwoPass<PiFacts>({
    pass: (skipped, unreadable) => piTurns(text, ctx, skipped, unreadable),
    session: ({ cwd }) => {
      const munged = cwd === null ? null : mungeCwd(cwd);
      const workdir = munged ?? fallbackWorkdir(ctx.path);
      return { sessionId, workdir, cwd: munged === null ? null : cwd, isSubagent: false };
    },
    backfillNames: false,
  });
}

interface PiFacts {
  records: number;
  /** The session header's working folder. */
  cwd: string | null;
}

function* piTurns(
  text: TranscriptText,
  ctx: ParseContext,
  skipped: SkipCounts,
  unreadable: UnreadableRecord[],
): Generator<Turn, PiFacts> {
  const sessionId = fileStem(ctx.path);
  let cwd: string | null = null;
  let sawHeader = false;
  let records = 0;
  let seq = 0;
  let previous: string | null = null;
  for (const rec of parseJsonl(text, skipped)) {
    records++;
    const r = rec.value;
    const type = asString(r.type) ?? "(none)";
    if (type === "session" && !sawHeader) {
      sawHeader = true;
      cwd = asString(r.cwd);
    }
    const message = asObject(r.message);
    if (type !== "message" || message === null) {
      countSkip(skipped, `record type "${type}"`);
      continue;
    }
    const role = asString(message.role) ?? "(none)";
    const read = readGuarded(rec.line, skipped, unreadable, () => ({
      blocks: piBlocks(role, message, new ArgumentSerializer(rec.raw), skipped),
    }));
    if (read === null) continue;
    const { blocks } = read;
    if (blocks === null) {
      countSkip(skipped, `message role "${role}" not indexed`);
      continue;
    }
    if (blocks.length === 0) {
      countSkip(skipped, `${role} message with no indexable content`);
      continue;
    }
    const ts = typeof r.timestamp === "number" ? String(r.timestamp) : (asString(r.timestamp) ?? "");
    // Format v1 entries have no ids: without one made up, every turn of the file would share one chunk id
    // (the reference's behaviour, which keeps only the first turn). v1 is linear, so parents are implied.
    const id = asString(r.id);
    const turnUuid = id ?? `${sessionId}-${seq}`;
    yield {
      sessionId,
      workdir: "",
      turnUuid,
      parentUuid: id !== null || "parentId" in r ? asString(r.parentId) : previous,
      seq: seq++,
      ts,
      role: role === "toolResult" ? "tool" : role,
      blocks,
      sourcePath: ctx.path,
      harness: "pi",
    };
    previous = turnUuid;
  }
  return { records, cwd };
}

/** Blocks of one message by role; null for a role pi writes that holds no conversation for us. */
function piBlocks(
  role: string,
  m: Record<string, unknown>,
  args: ArgumentSerializer,
  skipped: SkipCounts,
): Block[] | null {
  const parts = Array.isArray(m.content) ? (m.content as unknown[]) : [];
  const blocks: Block[] = [];
  switch (role) {
    case "user":
      // A string `content` yields nothing, as in the reference.
      for (const el of parts) {
        const part = asObject(el);
        const kind = asString(part?.type);
        const t = asString(part?.text);
        if (kind === "text") {
          if (t !== null && !isBlank(t)) blocks.push(makeBlock("text", t));
        } else
          countSkip(
            skipped,
            kind === null ? "content part that is not a typed object" : `content part "${kind}" not indexed`,
          );
      }
      return blocks;
    case "assistant":
      parts.forEach((el, i) => {
        const part = asObject(el);
        const kind = asString(part?.type);
        if (part === null || kind === null) {
          countSkip(skipped, "content part that is not a typed object");
          return;
        }
        if (kind === "thinking" || kind === "text") {
          const t = asString(part[kind]);
          if (t !== null && !isBlank(t)) blocks.push(makeBlock(kind, t));
        } else if (kind === "toolCall") {
          const text = args.serialize(part.arguments, ["message", "content", i, "arguments"]);
          blocks.push(makeBlock("tool_use", text, asString(part.name), asString(part.id)));
        } else countSkip(skipped, `content part "${kind}" not indexed`);
      });
      return blocks;
    case "toolResult": {
      const t = flattenToolContent(m.content, skipped);
      if (!isBlank(t)) blocks.push(makeBlock("tool_result", t, asString(m.toolName), asString(m.toolCallId)));
      return blocks;
    }
    default:
      return null;
  }
}
