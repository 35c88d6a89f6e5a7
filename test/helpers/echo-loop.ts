/**
 * A memory that recalls from itself (issue 28's loop, generated): planted decisions, 1–2 years old, in
 * Claude Code sessions, with newer look-alikes on the same subjects that lack the answer; then rounds of
 * agent sessions that ask memory each question. Each round's session is written in one of three agents'
 * formats (Claude Code, Codex, pi), calls recall under one of many spellings (every MCP naming scheme the
 * agents use, pi's bare tool, a shell running `funes recall`), receives funes's real output for that
 * question at that moment (the agent format, the terminal view or JSON), and restates it in prose citing
 * the session, as agents do. Indexed after each round, the memory holds more echoes every round.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatRecallHuman } from "../../src/cli/render-recall.js";
import {
  askPrompt,
  indexSessions,
  localMemoryFor,
  type ModelSession,
  type RecallResult,
  recall,
  recallOptions,
} from "../../src/commands/index.js";
import { formatRecallAgent } from "../../src/format/index.js";
import { forgetCandidateRows, LocalStore } from "../../src/local/index.js";
import type { ModelsConfig } from "../../src/models/index.js";
import { sessionKinds } from "../../src/search/index.js";
import { COMMON, claudeSession, Gen, rng } from "./heldout-corpus.js";

const DAY = 86_400_000;

/** One planted decision: the question put to memory, the session holding the answer, its coined word. */
export interface Decision {
  query: string;
  answerSession: string;
  answer: string;
}

/** Spellings of funes's recall tool, as the agents build them; `shell` runs the CLI. */
export const SPELLINGS = [
  "mcp__funes__recall",
  "mcp__plugin_funes_funes__recall",
  "funes___recall",
  "mcp_funes_recall",
  "funes_recall",
  "funes-recall",
  "recall",
  "shell",
] as const;

/** The formats a round's sessions are written in. */
export const LOOP_AGENTS = ["claude", "codex", "pi"] as const;
export type LoopAgent = (typeof LOOP_AGENTS)[number];

/**
 * How a round's sessions reach funes and carry its words (issue 38's held-back shapes):
 * - `spellings`: the agents and tool spellings above;
 * - `shell`: Codex running funes through other shell spellings (`npx -y funes@latest recall`, `node
 *   …/main.js recall`, an alias), its output inside Codex's exec envelope;
 * - `notes`: the agent also writes the passage it recalled to a notes file, and in the next exchange reads
 *   it back with `cat`;
 * - `paste`: beside each recall session, a session where the user pastes the passage alone.
 */
export type LoopStyle = "spellings" | "shell" | "notes" | "paste";

/** Shell spellings of a recall that name no funes tool (`shell` style). */
export const SHELL_SPELLINGS = [
  (q: string) => `npx -y funes@latest recall ${JSON.stringify(q)}`,
  (q: string) =>
    `node /home/dev/.npm/_npx/8f3c2a/node_modules/funes/dist/cli/main.js recall ${JSON.stringify(q)} -k 8`,
  (q: string) => `fr ${JSON.stringify(q)}`,
  (q: string) => `mem ${JSON.stringify(q)} --format agent`,
] as const;

/** Codex's exec tool output around a command's stdout. */
function execEnvelope(stdout: string): string {
  return `Chunk ID: 4f1c2a\nWall time: 0.8213 seconds\nProcess exited with code 0\nOriginal token count: 512\nOutput:\n${stdout}`;
}

/** What one question's recall returned, as the tool gave it to the agent. */
export interface RecallTurn {
  output: string;
  /** The first hit's session and text (what the agent restates). */
  first: { sessionId: string; text: string } | null;
}

/** Where each agent's sessions are written under a home. */
function dirs(home: string): Record<LoopAgent, string> {
  return {
    claude: join(home, ".claude", "projects", "-home-dev-loop"),
    codex: join(home, ".codex", "sessions", "2026", "11", "30"),
    pi: join(home, ".pi", "agent", "sessions", "--home-dev-loop--"),
  };
}

/** Writes the planted decisions and their look-alikes; returns the decisions and the clock to use. */
export function writeDecisions(
  home: string,
  o: { seed: number; count: number; lookalikes: number; close?: number },
) {
  const g = new Gen(rng(o.seed));
  const now = Date.parse("2026-11-30T18:00:00Z");
  const d = dirs(home);
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  const decisions: Decision[] = [];
  for (let i = 0; i < o.count; i++) {
    const [c1, c2, c3] = g.sample(COMMON, 3) as [string, string, string];
    const [sub, answer] = [g.coin(), g.coin()];
    const id = g.uuid();
    const age = 365 + g.r() * 365;
    writeFileSync(
      join(d.claude, `${id}.jsonl`),
      claudeSession(g, id, now - age * DAY, [
        { role: "user", text: `we need to settle how the ${sub} ${c1} handles the ${c2} ${g.filler(6)}` },
        {
          role: "assistant",
          text: `Decided: the ${sub} ${c1} goes through ${answer} for the ${c2}, and the ${c3} stays as it is. ${g.filler(8)}`,
        },
      ]),
    );
    decisions.push({ query: `what was decided about the ${sub} ${c1} ${c2}`, answerSession: id, answer });
    // Newer sessions on the same subject, none with the answer: by default they share one of the
    // question's words; the first `close` share most of them and score within a quarter of the answer.
    for (let j = 0; j < o.lookalikes; j++) {
      const lid = g.uuid();
      const close = j < (o.close ?? 0) * (0.5 + g.r());
      writeFileSync(
        join(d.claude, `${lid}.jsonl`),
        claudeSession(g, lid, now - g.r() * age * 0.5 * DAY, [
          close
            ? { role: "user", text: `the ${sub} ${c1} ${c2} needs another look ${g.filler(5)}` }
            : { role: "user", text: `the ${sub} needs another look ${g.filler(5)}` },
          close
            ? {
                role: "assistant",
                text: `Looked at the ${sub} ${c1} and the ${c3}; nothing decided yet. ${g.filler(6)}`,
              }
            : {
                role: "assistant",
                text: `Looked at the ${sub} and the ${c3}; nothing settled yet. ${g.filler(6)}`,
              },
        ]),
      );
    }
  }
  return { decisions, now, gen: g };
}

/** A tool call's arguments as the spelling's agent writes them. */
function callArgs(spelling: (typeof SPELLINGS)[number], query: string): { name: string; args: string } {
  if (spelling === "shell")
    return { name: "exec_command", args: JSON.stringify({ cmd: `funes recall ${JSON.stringify(query)}` }) };
  return { name: spelling, args: JSON.stringify({ query }) };
}

/** A call as a CLI agent writes it: a shell tool (named `shell`) gets `{command}`, an MCP tool its args. */
function toolInput(call: { name: string; args: string }, shell: string): { name: string; input: unknown } {
  if (call.name !== "exec_command") return { name: call.name, input: JSON.parse(call.args) };
  return { name: shell, input: { command: (JSON.parse(call.args) as { cmd: string }).cmd } };
}

/** The agent's prose after the tool result: what it recalled, citing the session. */
function restate(turn: RecallTurn): string {
  if (turn.first === null) return "From memory: nothing came back for that.";
  const words = turn.first.text.split(/\s+/).slice(0, 24).join(" ");
  return `From memory: ${words} (session ${turn.first.sessionId}).`;
}

function claudeLoop(
  g: Gen,
  id: string,
  at: number,
  q: string,
  call: { name: string; args: string },
  turn: RecallTurn,
  notes = false,
) {
  const useId = `toolu_${g.uuid().replaceAll("-", "")}`;
  let parent: string | null = null;
  const line = (type: "user" | "assistant", content: unknown, i: number) => {
    const uuid = g.uuid();
    const rec = {
      type,
      uuid,
      parentUuid: parent,
      sessionId: id,
      cwd: "/home/dev/loop",
      timestamp: new Date(at + i * 20_000).toISOString(),
      message: { role: type, content },
    };
    parent = uuid;
    return JSON.stringify(rec);
  };
  const { name, input } = toolInput(call, "Bash");
  const lines = [
    line("user", q, 0),
    line("assistant", [{ type: "tool_use", id: useId, name, input }], 1),
    line("user", [{ type: "tool_result", tool_use_id: useId, content: turn.output }], 2),
    line("assistant", [{ type: "text", text: restate(turn) }], 3),
  ];
  if (notes && turn.first !== null) {
    // The answer written to a notes file, then read back in the next exchange.
    const [w, c] = [`toolu_${g.uuid().replaceAll("-", "")}`, `toolu_${g.uuid().replaceAll("-", "")}`];
    const file = {
      file_path: "/home/dev/loop/notes/decisions.md",
      content: `# Decisions\n\n${turn.first.text}\n`,
    };
    lines.push(
      line("assistant", [{ type: "tool_use", id: w, name: "Write", input: file }], 4),
      line("user", [{ type: "tool_result", tool_use_id: w, content: "File created successfully" }], 5),
      line("user", "ok, show me what the notes file says now", 6),
      line(
        "assistant",
        [{ type: "tool_use", id: c, name: "Bash", input: { command: "cat notes/decisions.md" } }],
        7,
      ),
      line("user", [{ type: "tool_result", tool_use_id: c, content: file.content }], 8),
      line("assistant", [{ type: "text", text: `The notes file says:\n\n${turn.first.text}` }], 9),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A session where the user pastes a passage alone and asks about it (`paste` style). */
function pasteSession(g: Gen, id: string, at: number, passage: string): string {
  return claudeSession(g, id, at, [
    { role: "user", text: passage },
    { role: "assistant", text: "Yes, that still holds; nothing in the code contradicts it." },
  ]);
}

function codexLoop(
  g: Gen,
  id: string,
  at: number,
  q: string,
  call: { name: string; args: string },
  turn: RecallTurn,
  envelope = false,
) {
  const callId = `call_${g.uuid().replaceAll("-", "").slice(0, 24)}`;
  const ts = (i: number) => new Date(at + i * 20_000).toISOString();
  const item = (i: number, payload: unknown) =>
    JSON.stringify({ timestamp: ts(i), type: "response_item", payload });
  return `${[
    JSON.stringify({
      timestamp: ts(0),
      type: "session_meta",
      payload: {
        id,
        timestamp: ts(0),
        cwd: "/home/dev/loop",
        originator: "codex_exec",
        cli_version: "0.171.0",
      },
    }),
    item(0, { type: "message", role: "user", content: [{ type: "input_text", text: q }] }),
    item(1, { type: "function_call", name: call.name, arguments: call.args, call_id: callId }),
    item(2, {
      type: "function_call_output",
      call_id: callId,
      output: envelope ? execEnvelope(turn.output) : turn.output,
    }),
    item(3, { type: "message", role: "assistant", content: [{ type: "output_text", text: restate(turn) }] }),
  ].join("\n")}\n`;
}

function piLoop(
  g: Gen,
  id: string,
  at: number,
  q: string,
  call: { name: string; args: string },
  turn: RecallTurn,
) {
  const callId = `call_${g.uuid().replaceAll("-", "").slice(0, 24)}`;
  const ts = (i: number) => new Date(at + i * 20_000).toISOString();
  let parent: string | null = null;
  const msg = (i: number, message: unknown) => {
    const mid = g.uuid().slice(0, 8);
    const rec = { type: "message", id: mid, parentId: parent, timestamp: ts(i), message };
    parent = mid;
    return JSON.stringify(rec);
  };
  const { name, input: args } = toolInput(call, "bash");
  return `${[
    JSON.stringify({ type: "session", version: 3, id, timestamp: ts(0), cwd: "/home/dev/loop" }),
    msg(0, { role: "user", content: [{ type: "text", text: q }], timestamp: at }),
    msg(1, { role: "assistant", content: [{ type: "toolCall", id: callId, name, arguments: args }] }),
    msg(2, {
      role: "toolResult",
      toolCallId: callId,
      toolName: name,
      content: [{ type: "text", text: turn.output }],
    }),
    msg(3, { role: "assistant", content: [{ type: "text", text: restate(turn) }] }),
  ].join("\n")}\n`;
}

/**
 * Writes one round: a session per decision, asking its question at `at` (epoch ms), in the agent and
 * spelling the round and the decision's place choose, holding `recalled(i)` as the tool's output.
 */
export function writeRound(
  home: string,
  o: {
    gen: Gen;
    round: number;
    at: number;
    decisions: Decision[];
    recalled: (i: number, shell: boolean) => RecallTurn;
    style?: LoopStyle;
  },
): { agent: LoopAgent; spelling: string; sessionId: string }[] {
  const d = dirs(home);
  const style = o.style ?? "spellings";
  return o.decisions.map((dec, i) => {
    const agent =
      style === "shell"
        ? "codex"
        : style === "notes"
          ? "claude"
          : (LOOP_AGENTS[(i + o.round) % LOOP_AGENTS.length] as LoopAgent);
    const spelling =
      style === "shell"
        ? "shell"
        : (SPELLINGS[(i * 3 + o.round) % SPELLINGS.length] as (typeof SPELLINGS)[number]);
    const call =
      style === "shell"
        ? {
            name: "exec_command",
            args: JSON.stringify({
              cmd: (SHELL_SPELLINGS[(i + o.round) % SHELL_SPELLINGS.length] as (q: string) => string)(
                dec.query,
              ),
            }),
          }
        : callArgs(spelling, dec.query);
    // The shell style prints the agent format (what a pipe gets); the spellings' shell, the views people see.
    const turn = o.recalled(i, spelling === "shell" && style !== "shell");
    const id = o.gen.uuid();
    const at = o.at + i * 60_000;
    const question = `${dec.query}?`;
    if (style === "paste" && turn.first !== null) {
      const pid = o.gen.uuid();
      writeFileSync(join(d.claude, `${pid}.jsonl`), pasteSession(o.gen, pid, at + 30_000, turn.first.text));
    }
    if (agent === "claude")
      writeFileSync(
        join(d.claude, `${id}.jsonl`),
        claudeLoop(o.gen, id, at, question, call, turn, style === "notes"),
      );
    else if (agent === "codex")
      writeFileSync(
        join(d.codex, `rollout-2026-11-30T10-00-00-${id}.jsonl`),
        codexLoop(o.gen, id, at, question, call, turn, style === "shell"),
      );
    else
      writeFileSync(
        join(d.pi, `2026-11-30T10-00-00-000Z_${id}.jsonl`),
        piLoop(o.gen, id, at, question, call, turn),
      );
    return { agent, spelling, sessionId: id };
  });
}

/** What a loop measures at a checkpoint: each decision's original's rank per mode, ask's prompts, echoes. */
export interface LoopCheckpoint {
  /** Mode → rank (0-based) of each decision's original among the hits, null when not shown. */
  ranks: Record<"keyword" | "rerank", (number | null)[]>;
  /** ask's prompt for each decision (keyword-only recall). */
  prompts: string[];
  /** Rows in the memory, and how many are funes's own outputs read back. */
  rows: number;
  echoRows: number;
  /**
   * Decisions for which a question put to memory or an agent's restatement (among 30 keyword hits) is more
   * relevant than the original: how often these would bury it if they ranked as originals do.
   */
  outscored: number;
}

/** What `runEchoLoop` needs: the functions under test, passed in so bench and tests share the loop. */
export interface LoopDeps {
  index: (now: number) => Promise<unknown>;
  /** `wide`: keyword-only, 30 hits. */
  recall: (query: string, now: number, mode: "keyword" | "rerank" | "feed" | "wide") => Promise<RecallResult>;
  format: {
    agent: (r: RecallResult) => string;
    human: (r: RecallResult) => string;
    ask: (q: string, r: RecallResult) => string;
  };
  rows: () => Promise<SessionRowKey[]>;
}

/** A stored row as the echo count reads it. */
export interface SessionRowKey {
  sessionId: string;
  turnUuid: string;
  blockIdx: number;
  seq: number;
  text: string;
  role: string;
  blockType: string;
  toolName: string | null;
}

/** Rows of `rows` that are funes's own outputs read back (a block is when any of its pieces shows it). */
export function countEchoRows(rows: SessionRowKey[]): number {
  const sessions = new Map<string, SessionRowKey[]>();
  for (const r of rows) {
    const list = sessions.get(r.sessionId) ?? [];
    list.push(r);
    sessions.set(r.sessionId, list);
  }
  return [...sessions.values()].reduce(
    (n, s) => n + sessionKinds(s).kinds.filter((k) => k === "echo").length,
    0,
  );
}

/**
 * The loop: decisions, then `rounds` rounds of agent sessions recalling each question (with funes's output
 * at that moment), indexed after each; checkpoints after the rounds named in `at` (0: before any).
 */
export async function runEchoLoop(
  home: string,
  o: {
    seed: number;
    count: number;
    lookalikes: number;
    rounds: number;
    at: number[];
    deps: LoopDeps;
    style?: LoopStyle;
  },
): Promise<{ decisions: Decision[]; now: number; checkpoints: Map<number, LoopCheckpoint> }> {
  const { decisions, now, gen } = writeDecisions(home, o);
  const checkpoints = new Map<number, LoopCheckpoint>();
  const measure = async (round: number) => {
    const ranks: LoopCheckpoint["ranks"] = { keyword: [], rerank: [] };
    const prompts: string[] = [];
    for (const mode of ["keyword", "rerank"] as const)
      for (const d of decisions) {
        const r = await o.deps.recall(d.query, now, mode);
        const i = r.hits.findIndex((h) => h.sessionId === d.answerSession);
        ranks[mode].push(i < 0 ? null : i);
        if (mode === "keyword") prompts.push(o.deps.format.ask(d.query, r));
      }
    const rows = await o.deps.rows();
    let outscored = 0;
    for (const d of decisions) {
      const hits = (await o.deps.recall(d.query, now, "wide")).hits;
      const original = Math.max(
        0,
        ...hits.filter((h) => h.sessionId === d.answerSession).map((h) => h.relevance),
      );
      if (hits.some((h) => h.kind !== "original" && h.kind !== "echo" && h.relevance > original)) outscored++;
    }
    checkpoints.set(round, { ranks, prompts, rows: rows.length, echoRows: countEchoRows(rows), outscored });
  };
  await o.deps.index(now);
  if (o.at.includes(0)) await measure(0);
  for (let round = 1; round <= o.rounds; round++) {
    const results: RecallResult[] = [];
    for (const d of decisions) results.push(await o.deps.recall(d.query, now, "feed"));
    writeRound(home, {
      gen,
      style: o.style ?? "spellings",
      round,
      at: now - (o.rounds + 1 - round) * 3_600_000,
      decisions,
      recalled: (i, shell) => {
        const r = results[i] as RecallResult;
        const first = r.hits[0];
        const output = !shell
          ? o.deps.format.agent(r)
          : (i + round) % 2 === 0
            ? o.deps.format.human(r)
            : JSON.stringify(r, null, 2);
        return {
          output,
          first: first === undefined ? null : { sessionId: first.sessionId, text: first.text },
        };
      },
    });
    await o.deps.index(now);
    if (o.at.includes(round)) await measure(round);
  }
  return { decisions, now, checkpoints };
}

/**
 * The loop's functions over the local memory of `ctx`: funes's own index, recall (keyword-only with `bare`,
 * reranked with `withModels`), formats and rows, as the bench and the test both drive them.
 */
export function localLoopDeps(
  ctx: { funesHome: string; home: string; models: ModelsConfig },
  sessions: { bare: ModelSession; withModels: ModelSession },
): LoopDeps {
  const target = () => ({ memory: localMemoryFor(undefined, ctx), notes: [] });
  return {
    index: (at) => indexSessions({ thinking: true, vectorBudgetMs: null, now: () => at, ...ctx }),
    recall: (query, at, mode) =>
      recall(
        target(),
        recallOptions(query, at, {
          rerankBudgetMs: mode === "rerank" ? 60_000 : 0,
          k: mode === "wide" ? 30 : 8,
        }),
        mode === "rerank" ? sessions.withModels : sessions.bare,
      ),
    format: {
      agent: formatRecallAgent,
      human: (r) => formatRecallHuman(r, { width: 100, color: false, defaultMemory: "" }),
      ask: (q, r) => askPrompt(q, formatRecallAgent({ ...r, notes: [] })),
    },
    rows: async () => {
      const store = await LocalStore.open(join(ctx.funesHome, "memory"));
      if (store === null) return [];
      try {
        return await forgetCandidateRows(store);
      } finally {
        store.close();
      }
    },
  };
}
