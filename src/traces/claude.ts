/**
 * Claude Code transcripts: `~/.claude/projects/<munged-cwd>/<session>.jsonl` and sub-agent files
 * (shared/spec/core.md §1.5, shared/spec/trace-formats.md §1). One record per content block of a streamed
 * response is kept as its own turn, as the reference does (no merge by message id).
 */
import { ArgumentSerializer, backfillToolNames, flattenToolContent, makeBlock } from "./blocks.js";
import { markClaudeInjected } from "./boilerplate.js";
import { asObject, asString, parseJsonl } from "./jsonl.js";
import { addPersistedOutputs } from "./persisted-output.js";
import { fallbackWorkdir, fileStem, isBlank, mungeCwd } from "./text.js";
import { type Block, countSkip, type Session, type Turn, type UnitRead } from "./types.js";

/** What a parser needs to know about where the text came from. */
export interface ParseContext {
  /** The transcript's path as walked (becomes `source_path`). */
  path: string;
  /**
   * Claude Code only: the text of an externalised tool output, `<session>/tool-results/<file>` beside the
   * transcript (null when absent). Without it, only the transcript's preview is indexed.
   */
  readToolResult?: (sessionFolder: string, file: string) => string | null;
}

/** True for a sub-agent transcript (session id starts with exactly `agent-`). */
export function isSubagentId(sessionId: string): boolean {
  return sessionId.startsWith("agent-");
}

/** Parses one Claude Code JSONL transcript. */
export function parseClaudeTranscript(text: string, ctx: ParseContext): UnitRead {
  const skipped = {};
  const sessionId = fileStem(ctx.path);
  const turns: Turn[] = [];
  let cwd: string | null = null;
  let workdir: string | null = null;
  let records = 0;
  for (const rec of parseJsonl(text, skipped)) {
    records++;
    const r = rec.value;
    const recCwd = asString(r.cwd);
    if (workdir === null && recCwd !== null) {
      workdir = mungeCwd(recCwd);
      if (workdir !== null) cwd = recCwd;
    }
    const type = asString(r.type) ?? "(none)";
    if (type !== "user" && type !== "assistant") {
      countSkip(skipped, `record type "${type}"`);
      continue;
    }
    const message = asObject(r.message);
    const blocks = claudeBlocks(message?.content, new ArgumentSerializer(rec.raw), skipped);
    markClaudeInjected(asString(message?.role) ?? type, r.isMeta === true, blocks, skipped);
    if (ctx.readToolResult !== undefined)
      addPersistedOutputs(blocks, ctx.readToolResult, skipped, asString(asObject(r.toolUseResult)?.stdout));
    if (blocks.length === 0) {
      countSkip(skipped, `${type} record with no indexable content`);
      continue;
    }
    turns.push({
      sessionId,
      workdir: "",
      turnUuid: asString(r.uuid) ?? "",
      parentUuid: asString(r.parentUuid),
      seq: turns.length,
      ts: asString(r.timestamp) ?? "",
      role: asString(message?.role) ?? type,
      blocks,
      sourcePath: ctx.path,
      harness: "claude_code",
    });
  }
  const wd = workdir ?? fallbackWorkdir(ctx.path);
  for (const t of turns) t.workdir = wd;
  backfillToolNames(turns);
  const session: Session = { sessionId, workdir: wd, cwd, turns, isSubagent: isSubagentId(sessionId) };
  return { sessions: [session], skipped, records };
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
