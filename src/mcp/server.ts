/**
 * `funes mcp [memory]`: a stdio MCP server with five tools, recall, get, sessions, scan and status, each returning
 * the same agent-format text the CLI prints. Models load once, on first use, and stay warm. Nothing but the
 * protocol goes to stdout; a tool's failure is a tool result saying what went wrong, not a protocol error.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { AGENT_NAMES, orList } from "../agents/index.js";
import type { ModelSession, ModelsConfig, ReadContext } from "../commands/index.js";
import {
  formatGetAgent,
  formatRangeAgent,
  formatRecallAgent,
  formatScanAgent,
  formatSessionsAgent,
  formatStatus,
  messageLine,
  safeText,
} from "../format/index.js";

/**
 * The commands layer, loaded on the first tool call: Lance, Arrow and the rest cost ~150 ms to import, and
 * an agent waits for the server's tool list before its session starts.
 */
const commands = () => import("../commands/index.js");

/** What the server needs. */
export interface McpContext extends ReadContext {
  /** The memory named on the command line (a tool call's `memory` overrides it). */
  memory: string | undefined;
  models: ModelsConfig;
  /** The models, loaded once and kept warm (created on first use). */
  session: () => Promise<ModelSession>;
  now: () => number;
  version: string;
  /** Runs once before the first tool call does any work (the network environment: proxy, offline). */
  prepare?: (() => Promise<void>) | undefined;
}

const RECALL_DESCRIPTION = `Recall passages from past coding-agent sessions (Claude Code, Codex, pi, Hermes, Gemini CLI, Qwen Code, OpenCode, Copilot CLI): the decisions made, why, what was tried and rejected, errors met before and how they were fixed, and what research or sub-agents found. Hybrid search (meaning + keywords), cross-encoder rerank and recency; each hit shows when and where it happened and a "→ get <session> <turn>" line to read around it.
Call it when the user refers to earlier work ("like last time", "why did we…"), before re-deriving how a library or system behaves, and before asserting the history of anything (that something was never built, was dropped, or is out of scope). Pass \`memory\` to search another memory, such as a team's Hub dataset.`;

const GET_DESCRIPTION = `Read a recalled turn in full with the turns around it (seq ± window), reassembled from its pieces. Pass the session_id and turn_uuid from a recall hit's "→ get" line, and the same memory the hit names.
Or read a stretch of a session by position in one call: session_id with from and/or to instead of turn_uuid (turn positions, the seq numbers in each turn's header, both included; from alone reads 20 turns on, to alone the 20 up to it, session_id alone the session's first 20). A read stops past 40,000 characters and its last line says where to go on.`;

const SCAN_DESCRIPTION = `Find an exact text in one session's turns, in order: a literal (not ranked, not split into words, never a pattern), so when it is not there the answer says so with the number of turns read ("… not found in 412 turns of session …") — how to check whether something was ever said in a session, which recall cannot prove. Each match shows its turn's position (seq), a "→ get" line and the text around it. session_id may be an unambiguous start of the id (from sessions or a recall hit); ignore_case matches any case; context adds turns before and after each match; from/to limit the positions scanned.`;

const STATUS_DESCRIPTION =
  "Show what a memory holds: chunks and sessions by agent, rows with vectors, sessions not indexed yet, and when it was last indexed.";

const SESSIONS_DESCRIPTION = `List the sessions a memory holds, newest first: when each started, its agent, repo, turn count, a "→ get <session> <turn>" line for its opening turn, and the prompt it opened with. Use it to find a session without a query (the sessions of a repo, of last week, the one before a given day); filter with repo, since and until, and page with limit and offset.`;

/**
 * Every tool only reads: agents (Codex with `approval_policy = "never"`, Claude's permission modes) run a
 * tool hinted read-only without asking. Open world: a Hub memory is read over the network.
 */
const READ_ONLY = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
});

/**
 * A tool result. The formatters already keep each field on its line; this last pass makes sure no control
 * character of any text (a stranger's memory, an error naming one of its files) reaches the agent raw.
 */
async function text(t: string) {
  return { content: [{ type: "text" as const, text: safeText(t) }] };
}

/**
 * A tool's answer; a failure is a tool result with `isError: true` (so the agent knows the call failed) whose
 * text is the CLI's one line for the same failure (commands' `describeFailure`: no stack, a next step),
 * except that a bad argument is named as the tool's own (`since`), never as the CLI flag (`--since`).
 */
async function answerTool(prefix: string, fn: () => Promise<string>) {
  try {
    return await text(await fn());
  } catch (err) {
    const { BadArgumentError, describeFailure } = await commands();
    const message = err instanceof BadArgumentError ? err.messageForArg() : describeFailure(err).message;
    // One line, as on the CLI: a stranger's value quoted in the message cannot add a line of its own.
    return { ...(await text(`${prefix} error: ${messageLine(message)}`)), isError: true };
  }
}

/**
 * A count argument (`k`, `window`): agents send numbers, and often numbers as strings ("5"); both are taken.
 * Anything but plain digits within the range is a tool error saying what the argument takes.
 */
async function countArg(
  value: number | string | undefined,
  o: { arg: string; min: number; max: number; fallback: number },
): Promise<number> {
  if (value === undefined) return o.fallback;
  const s = String(value).trim();
  const n = /^\d+$/.test(s) ? Number(s) : Number.NaN;
  if (n >= o.min && n <= o.max) return n;
  const { FunesError } = await commands();
  throw new FunesError(
    "bad_input",
    `${o.arg} takes a whole number from ${o.min} to ${o.max}, not ${JSON.stringify(value)} — pass e.g. ${o.arg}: ${o.fallback}, or leave it out`,
  );
}

/** A turn position (`from`, `to`): a whole number from 0, as a number or a string of digits. */
async function positionArg(value: number | string, arg: "from" | "to"): Promise<number> {
  const s = String(value).trim();
  const n = /^\d+$/.test(s) ? Number(s) : Number.NaN;
  if (Number.isSafeInteger(n)) return n;
  const { FunesError } = await commands();
  throw new FunesError(
    "bad_input",
    `${arg} takes a turn position (a whole number from 0, the seq in a turn's header), not ${JSON.stringify(value)} — pass e.g. ${arg}: 0, or leave it out`,
  );
}

/** Session and turn ids as a tool got them: both must say something (a range read has no turn id). */
async function checkIds(sessionId: string, turnUuid: string | undefined): Promise<void> {
  if (sessionId.trim() !== "" && (turnUuid === undefined || turnUuid.trim() !== "")) return;
  const { FunesError } = await commands();
  throw new FunesError(
    "bad_input",
    "session_id and turn_uuid must not be empty — pass the two ids of a recall hit's → get line",
  );
}

/** Builds the server (not yet connected). */
export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(
    { name: "funes", version: ctx.version },
    {
      instructions:
        "funes is this user's memory of past agent sessions: hybrid search with reranking and recency over what was said and done. Call `recall` for prior decisions, rationale and context, for subject matter researched before, and before asserting the history of anything; then `get` to read around a hit (or a stretch of a session by position, with from/to); `sessions` lists sessions (by repo or time) when there is nothing to search for; `scan` finds an exact text in one session, or proves it is not there. Each takes an optional `memory`.",
    },
  );
  const memoryArg = z
    .string()
    .optional()
    .describe(
      "Which memory: org/repo (a Hub memory), a local memory directory, or `local`; defaults to the server's memory",
    );
  const recallMemoryArg = z
    .string()
    .optional()
    .describe(
      "Which memory: org/repo (a Hub memory), a local memory directory, or `local` — or several, comma-separated, searched together; defaults to the server's memory",
    );
  const sessionMemoryArg = z
    .string()
    .optional()
    .describe(
      "Which memory: org/repo (a Hub memory), a local memory directory, or `local` — or several, comma-separated, the first that holds the session answering; defaults to the server's memory",
    );
  let prepared: Promise<void> | null = null;
  const answer = (prefix: string, fn: () => Promise<string>) =>
    answerTool(prefix, async () => {
      prepared ??= ctx.prepare?.() ?? Promise.resolve();
      await prepared;
      return fn();
    });
  const settledFor = async (m: string | undefined) => {
    const { openReadTarget, settledTarget } = await commands();
    return settledTarget(await openReadTarget(m !== undefined && m.trim() !== "" ? m : ctx.memory, ctx));
  };

  server.registerTool(
    "recall",
    {
      title: "Recall past sessions",
      description: RECALL_DESCRIPTION,
      annotations: READ_ONLY("Recall past sessions"),
      // Strict: an argument the tool does not take (`top_k`, `limit`) is an error, never silently dropped.
      inputSchema: z.strictObject({
        query: z.string().describe("What to recall, in natural language"),
        k: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Number of results, a whole number from 1 to 50 (default 8)"),
        block_type: z.string().optional().describe("Only text, thinking, tool_use or tool_result"),
        harness: z
          .string()
          .optional()
          .describe(`Only ${orList(AGENT_NAMES)}`),
        since: z
          .string()
          .optional()
          .describe("Only turns at or after this date, timestamp, or span back from now (7d, 12h, 2w)"),
        until: z
          .string()
          .optional()
          .describe("Only turns at or before this date, timestamp, or span back from now"),
        memory: recallMemoryArg,
        echoes: z
          .boolean()
          .optional()
          .describe(
            "Also return funes's own outputs read back (earlier recalls that quote a passage); default false",
          ),
      }),
    },
    async (a) =>
      answer("recall", async () => {
        const { listValues, recallMemories, recallOptions } = await commands();
        return formatRecallAgent(
          await recallMemories(
            listValues(a.memory !== undefined && a.memory.trim() !== "" ? a.memory : ctx.memory),
            recallOptions(a.query, ctx.now(), {
              k: await countArg(a.k, { arg: "k", min: 1, max: 50, fallback: 8 }),
              blockType: a.block_type,
              harness: a.harness,
              since: a.since,
              until: a.until,
              echoes: a.echoes,
            }),
            ctx,
            await ctx.session(),
          ),
        );
      }),
  );

  server.registerTool(
    "get",
    {
      title: "Read a recalled turn",
      description: GET_DESCRIPTION,
      annotations: READ_ONLY("Read a recalled turn"),
      inputSchema: z.strictObject({
        session_id: z.string().describe("The session id from a hit's → get line (or from sessions)"),
        turn_uuid: z
          .string()
          .optional()
          .describe("The turn id from a hit's → get line; leave it out to read by position (from/to)"),
        window: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Turns either side of turn_uuid to include, a whole number from 0 to 50 (default 3)"),
        from: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Without turn_uuid: the first turn position (seq) to read"),
        to: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Without turn_uuid: the last turn position (seq) to read, included"),
        memory: sessionMemoryArg,
      }),
    },
    async (a) =>
      answer("get", async () => {
        const { FunesError, getTurn, listValues, rangeOfMemories, sessionHolder, settledMemories } =
          await commands();
        await checkIds(a.session_id, a.turn_uuid);
        const from = a.from === undefined ? undefined : await positionArg(a.from, "from");
        const to = a.to === undefined ? undefined : await positionArg(a.to, "to");
        const specs = listValues(a.memory !== undefined && a.memory.trim() !== "" ? a.memory : ctx.memory);
        if (a.turn_uuid === undefined) {
          if (a.window !== undefined)
            throw new FunesError(
              "bad_input",
              "window counts turns around turn_uuid — pass turn_uuid, or read a stretch with from/to instead",
            );
          return formatRangeAgent(await rangeOfMemories(specs, a.session_id, { from, to }, ctx));
        }
        if (from !== undefined || to !== undefined)
          throw new FunesError(
            "bad_input",
            "get takes turn_uuid or from/to, not both — pass turn_uuid to read around a turn, or from/to for a stretch by position",
          );
        const window = await countArg(a.window, { arg: "window", min: 0, max: 50, fallback: 3 });
        if (specs.length > 1) {
          // Several memories: the first that holds the session answers.
          const holder = await sessionHolder(await settledMemories(specs, ctx), a.session_id);
          return formatGetAgent(
            await getTurn(holder.memory, holder.sessionId, a.turn_uuid, window),
            holder.sessionId,
            a.turn_uuid,
            holder.notes,
          );
        }
        const { memory, notes } = await settledFor(a.memory);
        return formatGetAgent(
          await getTurn(memory, a.session_id, a.turn_uuid, window),
          a.session_id,
          a.turn_uuid,
          notes,
        );
      }),
  );

  server.registerTool(
    "scan",
    {
      title: "Scan a session for an exact text",
      description: SCAN_DESCRIPTION,
      annotations: READ_ONLY("Scan a session for an exact text"),
      inputSchema: z.strictObject({
        needle: z.string().describe("The exact text to find (a literal, not a pattern)"),
        session_id: z.string().describe("The session to scan: its id, or an unambiguous start of it"),
        ignore_case: z.boolean().optional().describe("Match any case (default false)"),
        context: z
          .union([z.number(), z.string()])
          .optional()
          .describe(
            "Turns to show before and after each matching turn, a whole number from 0 to 50 (default 0)",
          ),
        from: z
          .union([z.number(), z.string()])
          .optional()
          .describe("The first turn position (seq) to scan (default: the session's first)"),
        to: z
          .union([z.number(), z.string()])
          .optional()
          .describe("The last turn position (seq) to scan, included (default: the session's last)"),
        memory: sessionMemoryArg,
      }),
    },
    async (a) =>
      answer("scan", async () => {
        const { listValues, scanOfMemories } = await commands();
        const context = await countArg(a.context, { arg: "context", min: 0, max: 50, fallback: 0 });
        const from = a.from === undefined ? undefined : await positionArg(a.from, "from");
        const to = a.to === undefined ? undefined : await positionArg(a.to, "to");
        return formatScanAgent(
          await scanOfMemories(
            listValues(a.memory !== undefined && a.memory.trim() !== "" ? a.memory : ctx.memory),
            {
              needle: a.needle,
              sessionId: a.session_id,
              ignoreCase: a.ignore_case === true,
              context,
              from,
              to,
            },
            ctx,
          ),
        );
      }),
  );

  server.registerTool(
    "sessions",
    {
      title: "List sessions",
      description: SESSIONS_DESCRIPTION,
      annotations: READ_ONLY("List sessions"),
      inputSchema: z.strictObject({
        repo: z.string().optional().describe("Only sessions whose checkout resolved to this owner/name"),
        since: z
          .string()
          .optional()
          .describe(
            "Only sessions started at or after this date, timestamp, or span back from now (7d, 12h, 2w)",
          ),
        until: z
          .string()
          .optional()
          .describe("Only sessions started at or before this date, timestamp, or span back from now"),
        limit: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Sessions to list, a whole number from 1 to 200 (default 50)"),
        offset: z
          .union([z.number(), z.string()])
          .optional()
          .describe("Newest matches to skip, to walk back in time (default 0)"),
        memory: recallMemoryArg,
      }),
    },
    async (a) =>
      answer("sessions", async () => {
        const { listValues, sessionsOfMemories } = await commands();
        const limit = await countArg(a.limit, { arg: "limit", min: 1, max: 200, fallback: 50 });
        const offset = await countArg(a.offset, {
          arg: "offset",
          min: 0,
          max: 1_000_000,
          fallback: 0,
        });
        return formatSessionsAgent(
          await sessionsOfMemories(
            listValues(a.memory !== undefined && a.memory.trim() !== "" ? a.memory : ctx.memory),
            { repo: a.repo, since: a.since, until: a.until, limit, offset, now: ctx.now() },
            ctx,
          ),
        );
      }),
  );

  server.registerTool(
    "status",
    {
      title: "Memory status",
      description: STATUS_DESCRIPTION,
      annotations: READ_ONLY("Memory status"),
      inputSchema: z.strictObject({ memory: memoryArg }),
    },
    async (a) =>
      answer("status", async () => {
        const { memoryStatus } = await commands();
        const { memory, notes } = await settledFor(a.memory);
        const report = await memoryStatus(memory, ctx);
        return `${notes.map((n) => `${n}\n`).join("")}${formatStatus(report, ctx.now())}`;
      }),
  );
  return server;
}
