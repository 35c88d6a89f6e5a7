/**
 * Running `claude`, `codex`, `opencode` or `copilot` once to answer a question from given passages: no MCP
 * servers, no session left behind (Claude: `--no-session-persistence`; Codex: `--ephemeral`; OpenCode: its
 * database in memory, `OPENCODE_DB=:memory:`; Copilot: a session id of funes's, whose folder is deleted
 * after), no tools for Claude (`--tools ""`), OpenCode (`tools: {"*": false}`) and Copilot
 * (`--available-tools none`) and a read-only sandbox for Codex (which has no switch for none), the answer
 * read from the CLI's JSON event stream as it arrives, and a time limit that stops the child.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { copilotHome, copilotMcpServers } from "./copilot.js";
import { openCodeMcpServers } from "./opencode.js";
import { runCli } from "./run-cli.js";

/** The agents `ask` can run. */
export type AskAgent = "claude" | "codex" | "opencode" | "copilot";

/**
 * The MCP servers Codex has configured. `-c mcp_servers={}` does not remove them (0.171 merges the
 * override into the user's table), so `ask` switches each one off by name.
 */
export async function codexMcpServers(env: Record<string, string | undefined>): Promise<string[]> {
  const out = await runCli("codex", ["mcp", "list", "--json"], { env });
  if (out.kind !== "ran" || out.code !== 0) return [];
  try {
    const list = JSON.parse(out.stdout) as { name?: unknown }[];
    // Codex's `-c` takes bare dotted keys only (a quoted segment becomes part of the name).
    return list.map((s) => s.name).filter((n): n is string => typeof n === "string" && /^[\w-]+$/.test(n));
  } catch {
    return [];
  }
}

/**
 * The argv for one grounded answer with no MCP server (`mcpOff`: the agent's servers to switch off;
 * `session`: the id Copilot gives the session, deleted after).
 */
export function askArgs(agent: AskAgent, prompt: string, mcpOff: string[] = [], session = ""): string[] {
  if (agent === "opencode") return ["run", "--format", "json", prompt];
  if (agent === "copilot")
    return [
      "-p",
      prompt,
      "--output-format",
      "json",
      "--available-tools",
      "none",
      "--disable-builtin-mcps",
      ...mcpOff.flatMap((name) => ["--disable-mcp-server", name]),
      "--session-id",
      session,
    ];
  return agent === "claude"
    ? [
        "-p",
        prompt,
        "--tools",
        "",
        "--strict-mcp-config",
        "--mcp-config",
        '{"mcpServers":{}}',
        "--output-format",
        "stream-json",
        "--verbose",
        "--no-session-persistence",
      ]
    : [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--sandbox",
        "read-only",
        ...(mcpOff.length === 0
          ? ["-c", "mcp_servers={}"]
          : mcpOff.flatMap((name) => ["-c", `mcp_servers.${name}.enabled=false`])),
        "--",
        prompt,
      ];
}

/** What one line of the event stream says. */
export type AskEvent =
  | { kind: "text"; text: string }
  | { kind: "answer"; text: string }
  | { kind: "status"; text: string }
  | { kind: "none" };

/**
 * The environment of an ask run: `FUNES_ASK`, which funes's hook scripts take as "nothing to index" (Copilot
 * runs its agentStop hook, and OpenCode its plugin, in a one-shot run too); OpenCode keeps its database in
 * memory (no session stored) and gets a config with every tool off and each of its MCP servers disabled.
 */
export function askEnv(
  agent: AskAgent,
  env: Record<string, string | undefined>,
  mcpOff: string[],
): Record<string, string | undefined> {
  // funes's own hooks, should the agent run them, leave the ask alone (hook-scripts.ts).
  if (agent !== "opencode") return { ...env, FUNES_ASK: "1" };
  const mcp = Object.fromEntries(mcpOff.map((name) => [name, { enabled: false }]));
  return {
    ...env,
    FUNES_ASK: "1",
    OPENCODE_DB: ":memory:",
    OPENCODE_CONFIG_CONTENT: JSON.stringify({ tools: { "*": false }, mcp }),
  };
}

/** Reads one JSON line of `claude --output-format stream-json`, `codex exec --json`, `opencode run --format json` or `copilot --output-format json`. */
export function parseAskLine(agent: AskAgent, line: string): AskEvent {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: "none" };
  }
  const data = (e.data ?? e.part) as Record<string, unknown> | undefined;
  if (agent === "opencode") {
    if (e.type === "text" && typeof data?.text === "string") return { kind: "text", text: data.text };
    if (e.type === "step_start") return { kind: "status", text: "thinking…" };
    return { kind: "none" };
  }
  if (agent === "copilot") {
    if (e.type === "assistant.message_delta" && typeof data?.deltaContent === "string")
      return { kind: "text", text: data.deltaContent };
    if (e.type === "assistant.message" && typeof data?.content === "string" && data.content !== "")
      return { kind: "answer", text: data.content };
    if (e.type === "assistant.turn_start") return { kind: "status", text: "thinking…" };
    return { kind: "none" };
  }
  if (agent === "claude") {
    if (e.type === "result" && e.is_error === false && typeof e.result === "string")
      return { kind: "answer", text: e.result };
    if (e.type === "assistant") {
      const content = (e.message as { content?: unknown } | undefined)?.content;
      const blocks = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
      const text = blocks
        .filter((b) => b.type === "text" && typeof b.text === "string")
        .map((b) => b.text as string)
        .join("");
      if (text !== "") return { kind: "text", text };
      if (blocks.some((b) => b.type === "thinking")) return { kind: "status", text: "thinking…" };
    }
    return { kind: "none" };
  }
  const item = e.item as Record<string, unknown> | undefined;
  if (e.type === "item.completed" && item?.type === "agent_message" && typeof item.text === "string")
    return { kind: "answer", text: item.text };
  if (e.type === "turn.started" || item?.type === "reasoning") return { kind: "status", text: "thinking…" };
  return { kind: "none" };
}

/** How an ask run ended. */
export type AskOutcome =
  | { kind: "answered"; answer: string; streamed: boolean }
  | { kind: "no-answer"; code: number | null; output: string }
  | { kind: "timeout"; output: string }
  | { kind: "missing" };

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
  const where = { home: o.home, env: o.env };
  const off =
    o.agent === "codex"
      ? await codexMcpServers(o.env)
      : o.agent === "opencode"
        ? openCodeMcpServers(where)
        : o.agent === "copilot"
          ? copilotMcpServers(where)
          : [];
  const session = randomUUID();
  // Copilot keeps every session; the one funes started is deleted once it ends.
  const forget = () => {
    if (o.agent !== "copilot") return;
    const state = join(copilotHome(where), "session-state");
    rmSync(join(state, session), { recursive: true, force: true });
    rmSync(join(state, ".session-operation-locks", `${session}.lock`), { force: true });
  };
  return new Promise((resolve) => {
    const child = spawn(o.agent, askArgs(o.agent, o.prompt, off, session), {
      env: askEnv(o.agent, o.env, off) as NodeJS.ProcessEnv,
      cwd: o.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let pending = "";
    let answer: string | null = null;
    let streamed = "";
    let timedOut = false;
    let missing = false;
    const onLine = (line: string) => {
      const ev = parseAskLine(o.agent, line);
      if (ev.kind === "text") {
        streamed += ev.text;
        o.onText?.(ev.text);
      } else if (ev.kind === "answer") answer = ev.text;
      else if (ev.kind === "status") o.onStatus?.(ev.text);
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      output += d;
      pending += d;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    }, o.timeoutMs);
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") missing = true;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      forget();
      if (pending.trim() !== "") onLine(pending);
      if (missing) resolve({ kind: "missing" });
      else if (timedOut) resolve({ kind: "timeout", output });
      else if (code === 0 && (answer !== null || streamed !== ""))
        resolve({ kind: "answered", answer: answer ?? streamed, streamed: streamed !== "" });
      else resolve({ kind: "no-answer", code, output });
    });
  });
}
