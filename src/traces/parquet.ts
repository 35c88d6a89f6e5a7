/**
 * Hub agent-trace parquet files, one row per session (docs/transcript-formats.md#hub-agent-traces-parquet):
 * `session_id` and a `messages` list of JSON-encoded chat messages, plus optional `sent_at`, `harness`,
 * `file_path` and `metadata`. Read with hyparquet (parquetjs-lite cannot read these files; same section).
 */
import { ArgumentSerializer, makeBlock } from "./blocks.js";
import { asObject, asString, readGuarded } from "./jsonl.js";
import { fileStem, isBlank, mungeCwd } from "./text.js";
import {
  type Block,
  countSkip,
  type Session,
  type SkipCounts,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
  type UnreadableRecord,
} from "./types.js";

/** A parquet file that does not have the agent-trace layout. */
export class ParquetLayoutError extends Error {}

const OPTIONAL = ["sent_at", "harness", "file_path", "metadata"] as const;

/** One local parquet file: a single unit, never recorded in state (always re-read; ids dedupe). */
export class ParquetSource implements TraceSource {
  readonly kind = "parquet" as const;
  readonly description: string;
  private limit: number | undefined;

  constructor(private readonly path: string) {
    this.description = `indexing parquet dataset ${path}`;
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    this.limit = limit;
    return [{ key: this.path, signature: null, isSubagent: false }];
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    return readTraceParquet(unit.key, { path: unit.key, limit: this.limit });
  }
}

/**
 * Reads the agent-trace parquet file at `file`; `ctx.path` is what rows without a `file_path` record as their
 * source (a Hub shard read from the cache records its `hf://` address, not the cache path).
 */
export async function readTraceParquet(file: string, ctx: TraceRowsContext): Promise<UnitRead> {
  // Loaded here, not at start: only parquet indexing needs them (~60 ms of imports).
  const [{ asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema }, { compressors }] =
    await Promise.all([import("hyparquet"), import("hyparquet-compressors")]);
  const buffer = await asyncBufferFromFile(file);
  const metadata = await parquetMetadataAsync(buffer);
  const names = new Set(parquetSchema(metadata).children.map((c) => c.element.name));
  for (const required of ["session_id", "messages"])
    if (!names.has(required))
      throw new ParquetLayoutError(`parquet file ${ctx.path} has no "${required}" column`);
  const columns = ["session_id", "messages", ...OPTIONAL.filter((c) => names.has(c))];
  const rows = (await parquetReadObjects({ file: buffer, metadata, columns, compressors })) as Record<
    string,
    unknown
  >[];
  return parseTraceRows(rows, ctx);
}

/** Where rows came from and how many sessions to keep. */
export interface TraceRowsContext {
  path: string;
  limit?: number | undefined;
}

/**
 * Maps agent-trace rows to sessions; the first N rows that yield a turn when `limit` is set. A message that
 * cannot be read (JSON nested too deep to walk) is passed over alone, named by its session and place.
 */
export function parseTraceRows(rows: Record<string, unknown>[], ctx: TraceRowsContext): UnitRead {
  const skipped: SkipCounts = {};
  const unreadable: UnreadableRecord[] = [];
  const sessions: Session[] = [];
  let records = 0;
  for (const row of rows) {
    if (ctx.limit !== undefined && sessions.length >= ctx.limit) break;
    const sessionId = asString(row.session_id);
    if (sessionId === null || row.messages === null || row.messages === undefined) {
      countSkip(skipped, "row with null session_id or messages");
      continue;
    }
    if (!Array.isArray(row.messages))
      throw new ParquetLayoutError(`parquet file ${ctx.path}: "messages" is not a list of strings`);
    records += row.messages.length;
    const session = rowSession(sessionId, row, { path: ctx.path, skipped, unreadable });
    if (session.turns.length === 0) countSkip(skipped, "row with no indexable message");
    else sessions.push(session);
  }
  return { sessions, skipped, records, ...(unreadable.length > 0 ? { unreadable } : {}) };
}

function rowSession(
  sessionId: string,
  row: Record<string, unknown>,
  { path, skipped, unreadable }: { path: string; skipped: SkipCounts; unreadable: UnreadableRecord[] },
): Session {
  const sentAt = row.sent_at instanceof Date ? row.sent_at.toISOString() : (asString(row.sent_at) ?? "");
  let cwd: string | null = null;
  const meta = asString(row.metadata);
  if (meta !== null) {
    try {
      cwd = asString(asObject(JSON.parse(meta))?.cwd);
    } catch {
      countSkip(skipped, "metadata that is not JSON");
    }
  }
  const workdir = (cwd === null ? null : mungeCwd(cwd)) ?? fileStem(path);
  const turns: Turn[] = [];
  for (const [i, el] of (row.messages as unknown[]).entries()) {
    if (typeof el !== "string") {
      if (el !== null) countSkip(skipped, "message element that is not a string");
      continue;
    }
    const got = readGuarded(`message ${i + 1} of session "${sessionId}"`, skipped, unreadable, () => {
      let msg: Record<string, unknown> | null;
      try {
        msg = asObject(JSON.parse(el));
      } catch {
        msg = null;
      }
      return msg === null ? "not an object" : { msg, blocks: messageBlocks(msg, el) };
    });
    if (got === null) continue;
    if (got === "not an object") {
      countSkip(skipped, "message element that is not a JSON object");
      continue;
    }
    const { msg, blocks } = got;
    if (blocks.length === 0) {
      countSkip(skipped, "message with no indexable content");
      continue;
    }
    const seq = turns.length;
    turns.push({
      sessionId,
      workdir,
      turnUuid: `${sessionId}-${seq}`,
      parentUuid: turns[seq - 1]?.turnUuid ?? null,
      seq,
      ts: sentAt,
      role: asString(msg.role) ?? "",
      blocks,
      sourcePath: asString(row.file_path) ?? path,
      harness: asString(row.harness) ?? "",
    });
  }
  return { sessionId, workdir, cwd: null, turns, isSubagent: false };
}

/** reasoning → thinking, content → text (tool messages too: no tool_result blocks here), calls → tool_use. */
function messageBlocks(msg: Record<string, unknown>, raw: string): Block[] {
  const blocks: Block[] = [];
  const reasoning = asString(msg.reasoning_content);
  if (reasoning !== null && !isBlank(reasoning)) blocks.push(makeBlock("thinking", reasoning));
  const content = asString(msg.content);
  if (content !== null && !isBlank(content)) blocks.push(makeBlock("text", content));
  if (Array.isArray(msg.tool_calls)) {
    const args = new ArgumentSerializer(raw);
    msg.tool_calls.forEach((c, i) => {
      const fn = asObject(asObject(c)?.function);
      const a = fn?.arguments;
      const text = typeof a === "string" ? a : args.serialize(a, ["tool_calls", i, "function", "arguments"]);
      blocks.push(makeBlock("tool_use", text, asString(fn?.name)));
    });
  }
  return blocks;
}
