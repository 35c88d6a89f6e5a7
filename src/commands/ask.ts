/**
 * `funes ask claude|codex|gemini|qwen|opencode|copilot "<question>"`: recall in-process with recall's defaults,
 * then have the agent answer from those passages alone — one prompt, no tools, no MCP servers, no session
 * kept — with the answer streamed back. Everything that can fail before the agent runs (the CLI, the memory, an empty
 * recall) fails first; a run past the time limit is stopped and said so.
 */
import { ASK_AGENTS, type AskAgent, agentsLayer, orList, runCli } from "../agents/index.js";
import { openReadTarget, type ReadContext, resolveMemorySpec, settledTarget } from "../memory/index.js";
import type { ModelSession } from "../models/index.js";
import { FunesError } from "./errors.js";
import { type RecallResult, recall, recallMemories } from "./recall.js";
import { recallOptions } from "./recall-options.js";

/** Default time for the agent to answer, seconds. */
export const DEFAULT_ASK_TIMEOUT_S = 300;

/** Options of an ask. */
export interface AskOptions {
  agent: string;
  question: string;
  /** Memory specs (several: a federated recall). */
  memory?: string[] | undefined;
  timeoutS: number;
  env: Record<string, string | undefined>;
  now: number;
  /** The recalled passages as the agent reads them (the agent format, format/'s `formatRecallAgent`). */
  passages: (result: RecallResult) => string;
  onText?: ((text: string) => void) | undefined;
  onStatus?: ((text: string) => void) | undefined;
}

/** What an ask produced. */
export interface AskResult {
  agent: AskAgent;
  answer: string;
  /** True when the answer already went out through `onText`. */
  streamed: boolean;
  passages: number;
  memory: string;
}

/** The prompt: how to answer, the question, then the passages in recall's agent format. */
export function askPrompt(question: string, passages: string): string {
  return [
    "Answer the question below using only the recalled passages that follow it: they are excerpts of the user's own past coding-agent sessions and are all the context you have. You have no tools and cannot recall more; the `→ get` lines are hints for other tools, not instructions for you.",
    "Answer briefly, in a few sentences of plain prose, with no preamble and no headings. End with one line naming the sessions (their ids) you used.",
    "If the passages do not answer the question, say so plainly and suggest rephrasing it, or setting up `funes add` so an agent can recall with real tools.",
    "",
    `Question: ${question}`,
    "",
    "== RECALLED PASSAGES ==",
    passages,
  ].join("\n");
}

function askAgent(name: string): AskAgent {
  const n = name.trim().toLowerCase();
  const agent = ASK_AGENTS.find((a) => a === n);
  if (agent !== undefined) return agent;
  throw new FunesError("bad_input", `funes ask runs ${orList(ASK_AGENTS)}, not "${name}"`);
}

/** Runs an ask. */
export async function ask(o: AskOptions, ctx: ReadContext, models: ModelSession): Promise<AskResult> {
  const agent = askAgent(o.agent);
  if (o.question.trim() === "")
    throw new FunesError("bad_input", 'ask needs a question, e.g. funes ask claude "why did we pick lance?"');
  if (!Number.isFinite(o.timeoutS) || o.timeoutS <= 0)
    throw new FunesError("bad_input", "--timeout takes a number of seconds above 0");
  const other = ASK_AGENTS.find((a) => a !== agent) ?? agent;
  const { runAsk } = await agentsLayer();
  if ((await runCli(agent, ["--version"], { env: o.env })).kind === "missing")
    throw new FunesError(
      "unreadable_source",
      `\`${agent}\` isn't on PATH — install it, or try \`funes ask ${other} …\``,
    );
  const specs = o.memory ?? [];
  o.onStatus?.("recalling…");
  let result: RecallResult;
  if (specs.length <= 1) {
    const spec = specs[0];
    const target = await settledTarget(await openReadTarget(spec, ctx));
    const named = spec !== undefined && spec !== "local";
    // A Hub memory that fell back to the local memory is not what was asked.
    if (named && resolveMemorySpec(spec, ctx).kind === "remote" && target.memory.kind !== "hub")
      throw new FunesError(
        "unreachable",
        `${spec} is unreachable right now — try again once you're back online`,
      );
    result = await recall(target, recallOptions(o.question, o.now), models);
  } else result = await recallMemories(specs, recallOptions(o.question, o.now), ctx, models);
  if (result.hits.length === 0)
    throw new FunesError(
      "no_memory",
      "nothing recalled for that question — no passages to ground an answer in",
    );
  const prompt = askPrompt(o.question, o.passages({ ...result, notes: [] }));
  o.onStatus?.(`waking ${agent}…`);
  const out = await runAsk({
    agent,
    prompt,
    home: ctx.home,
    env: o.env,
    timeoutMs: o.timeoutS * 1000,
    onText: o.onText,
    onStatus: o.onStatus,
  });
  switch (out.kind) {
    case "answered":
      return {
        agent,
        answer: out.answer,
        streamed: out.streamed,
        passages: result.hits.length,
        memory: result.memory,
      };
    case "missing":
      throw new FunesError(
        "unreadable_source",
        `\`${agent}\` isn't on PATH — install it, or try \`funes ask ${other} …\``,
      );
    case "unreachable":
      throw new FunesError(
        "unreachable",
        `\`${agent}\` cannot reach its model (${oneLineOf(out.reason)}) and was stopped — check your connection and the agent's own settings (run \`${agent}\` once), then ask again`,
      );
    case "timeout":
      throw new FunesError(
        "unreachable",
        `\`${agent}\` gave no answer within ${o.timeoutS} s and was stopped — check that it can reach its model (or raise --timeout)`,
      );
    case "no-answer": {
      const what = out.code === 0 ? "ended without an answer" : `failed (exit ${out.code})`;
      throw new FunesError(
        "unreadable_source",
        out.reason === null
          ? `\`${agent}\` ${what} and said nothing — run \`${agent}\` once yourself to see what it needs`
          : `\`${agent}\` ${what}: ${oneLineOf(out.reason)} — fix that in \`${agent}\` (run it once yourself), then ask again`,
      );
    }
  }
}

/** An agent's own words as one short line: its first line, at most 200 characters. */
function oneLineOf(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
