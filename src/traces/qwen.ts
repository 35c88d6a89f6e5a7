/**
 * Qwen Code sessions (`~/.qwen/projects/<munged cwd>/chats/<sessionId>.jsonl`; shared/spec/agents-next.md
 * §3.2): one record per line, `{uuid, parentUuid, sessionId, timestamp, type, cwd, message: {role, parts}}`,
 * the message in Gemini's Part form (Qwen Code is a fork of Gemini CLI). `user` records hold the prompt (and
 * prompts typed mid-turn), `assistant` records text, thoughts and function calls, `tool_result` records the
 * function responses; `system` records (telemetry, attribution snapshots, compression checkpoints…) are
 * the CLI's bookkeeping and are counted by subtype.
 */
import { ArgumentSerializer, backfillToolNames, makeBlock } from "./blocks.js";
import type { ParseContext } from "./claude.js";
import { readParts } from "./gemini-parts.js";
import { asObject, asString, parseJsonl } from "./jsonl.js";
import { fallbackWorkdir, fileStem, isBlank, mungeCwd } from "./text.js";
import { countSkip, type SkipCounts, type Turn, type UnitRead } from "./types.js";

const ROLES: Record<string, string> = { user: "user", assistant: "assistant", tool_result: "tool" };

/** Parses one Qwen Code JSONL session. */
export function parseQwenSession(text: string, ctx: ParseContext): UnitRead {
  const skipped: SkipCounts = {};
  const turns: Turn[] = [];
  const seen = new Set<string>();
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let records = 0;
  for (const { value: r, raw } of parseJsonl(text, skipped)) {
    records++;
    const type = asString(r.type) ?? "(none)";
    sessionId ??= asString(r.sessionId);
    cwd ??= asString(r.cwd);
    const role = ROLES[type];
    const message = asObject(r.message);
    if (role === undefined || message === null) {
      countSkip(
        skipped,
        type === "system" ? `system record "${asString(r.subtype) ?? "(none)"}"` : `record type "${type}"`,
      );
      continue;
    }
    const uuid = asString(r.uuid);
    if (uuid !== null && seen.has(uuid)) {
      countSkip(skipped, "record written again (the first is read)");
      continue;
    }
    const read = readParts(message.parts, new ArgumentSerializer(raw), ["message", "parts"], skipped);
    const blocks = read.blocks;
    for (const a of read.responses)
      if (isBlank(a.text)) countSkip(skipped, 'content part "functionResponse" that is empty');
      else blocks.push(makeBlock("tool_result", a.text, a.name, a.callId));
    if (blocks.length === 0) {
      countSkip(skipped, `${type} record with no indexable content`);
      continue;
    }
    if (uuid !== null) seen.add(uuid);
    const seq = turns.length;
    turns.push({
      sessionId: "",
      workdir: "",
      turnUuid: uuid ?? `${fileStem(ctx.path)}-${seq}`,
      parentUuid: asString(r.parentUuid),
      seq,
      ts: asString(r.timestamp) ?? "",
      role,
      blocks,
      sourcePath: ctx.path,
      harness: "qwen",
    });
  }
  backfillToolNames(turns);
  const id = sessionId ?? fileStem(ctx.path);
  const munged = cwd === null ? null : mungeCwd(cwd);
  const workdir = munged ?? fallbackWorkdir(ctx.path);
  for (const t of turns) {
    t.sessionId = id;
    t.workdir = workdir;
  }
  const session = { sessionId: id, workdir, cwd: munged === null ? null : cwd, turns, isSubagent: false };
  return { sessions: [session], skipped, records };
}
