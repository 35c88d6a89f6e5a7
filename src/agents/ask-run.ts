/**
 * Running an agent once to answer a question from given passages (`funes ask`): its argv, environment and
 * folder from its folder's `AskSpec` (agent.ts), `FUNES_ASK=1` so funes's own hooks, should the agent run
 * them, leave the run alone (hook-scripts.ts), the answer read from the CLI's JSON event stream as it
 * arrives, and a time limit that stops the child.
 */
import { spawn } from "node:child_process";
import type { AskEvent, AskRun, AskSpec } from "./agent.js";
import { AGENTS, type AskAgent } from "./registry.js";
import { AgentSetupError } from "./setup.js";

/** Reads one JSON line of an agent's event stream through its parser; anything else says nothing. */
export function parseAskLine(parse: AskSpec["parse"], line: string): AskEvent {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: "none" };
  }
  if (e === null || typeof e !== "object") return { kind: "none" };
  return parse(e);
}

/** The one-shot run of an agent `funes ask` runs. */
export async function askSpec(agent: AskAgent): Promise<AskSpec> {
  const spec = (await AGENTS.find((a) => a.name === agent)?.load())?.ask;
  if (spec === undefined)
    throw new AgentSetupError(`${agent} has no one-shot run in its folder — add an AskSpec to its module`);
  return spec;
}

/**
 * Failed connections to its model after which an agent is stopped rather than left retrying until the time
 * limit: claude's third retry comes about 4 s in (it would go on to 10, over minutes); codex says "waiting
 * for network" or counts its reconnects.
 */
export const NETWORK_RETRIES = 3;

/** How an ask run ended. `reason`: the agent's own one line on why, when it gave one. */
export type AskOutcome =
  | { kind: "answered"; answer: string; streamed: boolean }
  | { kind: "no-answer"; code: number | null; reason: string | null }
  | { kind: "unreachable"; reason: string }
  | { kind: "timeout" }
  | { kind: "missing" };

/** The last line of an agent's stderr that reads as a message (not a JSON event, not a log line's prefix). */
function lastMessageLine(stderr: string): string | null {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("{") && !/^Reading additional input/.test(l));
  return lines.at(-1) ?? null;
}

/** Runs the agent; `onText` gets answer text as it arrives (Claude), `onStatus` progress words. */
export async function runAsk(o: {
  agent: AskAgent;
  prompt: string;
  /** The user's home (where OpenCode's and Copilot's configs name their MCP servers). */
  home: string;
  env: Record<string, string | undefined>;
  cwd?: string | undefined;
  timeoutMs: number;
  onText?: ((text: string) => void) | undefined;
  onStatus?: ((text: string) => void) | undefined;
}): Promise<AskOutcome> {
  const spec = await askSpec(o.agent);
  const run = await spec.prepare({ prompt: o.prompt, home: o.home, env: o.env });
  try {
    return await spawnAsk(o, run, spec.parse);
  } finally {
    run.cleanup?.();
  }
}

function spawnAsk(
  o: Parameters<typeof runAsk>[0],
  run: AskRun,
  parse: AskSpec["parse"],
): Promise<AskOutcome> {
  return new Promise((resolve) => {
    const child = spawn(o.agent, run.args, {
      env: { ...o.env, FUNES_ASK: "1", ...run.env } as NodeJS.ProcessEnv,
      cwd: run.cwd ?? o.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let pending = "";
    let failure: string | null = null;
    let unreachable: string | null = null;
    let networkRetries = 0;
    let answer: string | null = null;
    let streamed = "";
    let timedOut = false;
    let missing = false;
    const onLine = (line: string) => {
      const ev = parseAskLine(parse, line);
      if (ev.kind === "text") {
        streamed += ev.text;
        o.onText?.(ev.text);
      } else if (ev.kind === "answer") answer = ev.text;
      else if (ev.kind === "status") o.onStatus?.(ev.text);
      else if (ev.kind === "failed") failure = ev.text;
      else if (ev.kind === "retry") {
        o.onStatus?.(`${o.agent} cannot reach its model (${ev.text})…`);
        if (ev.network) networkRetries++;
        if (
          unreachable === null &&
          (networkRetries >= NETWORK_RETRIES || /waiting for network/i.test(ev.text))
        ) {
          unreachable = ev.text;
          stop();
        }
      }
    };
    const stop = () => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      pending += d;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      // Only its end is ever shown.
      stderr = (stderr + d).slice(-4096);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") missing = true;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (pending.trim() !== "") onLine(pending);
      if (missing) resolve({ kind: "missing" });
      else if (unreachable !== null) resolve({ kind: "unreachable", reason: unreachable });
      else if (timedOut) resolve({ kind: "timeout" });
      // An answer counts even after an error event (codex reports some it recovers from).
      else if (code === 0 && (answer !== null || streamed !== ""))
        resolve({ kind: "answered", answer: answer ?? streamed, streamed: streamed !== "" });
      else resolve({ kind: "no-answer", code, reason: failure ?? lastMessageLine(stderr) });
    });
  });
}
