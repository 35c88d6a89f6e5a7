/**
 * Running `claude`, `codex`, `gemini`, `qwen`, `opencode` or `copilot` once to answer a question from given
 * passages: no MCP servers, no hooks of funes at work, no session left behind (Claude:
 * `--no-session-persistence`; Codex: `--ephemeral`; Qwen: `--safe-mode --chat-recording=false`; Gemini, which
 * has no such switch and runs its hooks whatever the workspace says: a throw-away `GEMINI_CLI_HOME` holding
 * the user's settings without hooks and MCP servers, and their credentials; OpenCode: its database in memory,
 * `OPENCODE_DB=:memory:`; Copilot: a session id of funes's, whose folder is deleted after), no tools for
 * Claude (`--tools ""`), OpenCode (`tools: {"*": false}`) and Copilot (`--available-tools none`) and
 * read-only ones for the others (which have no switch for none), the answer read from the CLI's JSON event
 * stream as it arrives, and a time limit that stops the child.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copilotHome, copilotMcpServers } from "./copilot.js";
import { geminiDir } from "./gemini.js";
import { openCodeMcpServers } from "./opencode.js";
import type { AskAgent } from "./registry.js";
import { runCli } from "./run-cli.js";

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
  if (agent === "gemini")
    return [
      "--skip-trust",
      "--approval-mode",
      "plan",
      // No server has this name: none starts.
      "--allowed-mcp-server-names",
      "funes-ask-none",
      "-e",
      "none",
      "-o",
      "stream-json",
      "-p",
      prompt,
    ];
  if (agent === "qwen")
    return ["--safe-mode", "--chat-recording=false", "--approval-mode", "plan", "-o", "stream-json", prompt];
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
  /** The agent says why it cannot answer (not logged in, a refused request): its own words. */
  | { kind: "failed"; text: string }
  /** The agent could not reach its model and tries again; `network`: the connection itself failed. */
  | { kind: "retry"; text: string; network: boolean }
  | { kind: "none" };

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

function parseClaudeLine(e: Record<string, unknown>): AskEvent {
  if (e.type === "result") {
    if (e.is_error === false && typeof e.result === "string") return { kind: "answer", text: e.result };
    if (e.is_error === true) return { kind: "failed", text: str(e.result) ?? String(e.subtype ?? "error") };
  }
  // Each retry of an API call; no HTTP status means the connection itself failed.
  if (e.type === "system" && e.subtype === "api_retry") {
    const network = e.error_status === null || e.error_status === undefined;
    const why = network ? "connection failed" : `HTTP ${String(e.error_status)}`;
    const of = typeof e.max_retries === "number" ? ` of ${e.max_retries}` : "";
    return { kind: "retry", text: `${why}, retry ${String(e.attempt ?? "?")}${of}`, network };
  }
  if (e.type === "assistant") {
    const content = (e.message as { content?: unknown } | undefined)?.content;
    const blocks = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
    const text = blocks
      .filter((b) => b.type === "text" && typeof b.text === "string")
      .map((b) => b.text as string)
      .join("");
    // A message claude made up itself to say it failed ("Not logged in · Please run /login") is no answer.
    if (str(e.error) !== null) return { kind: "failed", text: str(text) ?? String(e.error) };
    if (text !== "") return { kind: "text", text };
    if (blocks.some((b) => b.type === "thinking")) return { kind: "status", text: "thinking…" };
  }
  return { kind: "none" };
}

function parseCodexLine(e: Record<string, unknown>): AskEvent {
  const item = e.item as Record<string, unknown> | undefined;
  if (e.type === "item.completed" && item?.type === "agent_message" && typeof item.text === "string")
    return { kind: "answer", text: item.text };
  // `Reconnecting... 2/5 (stream disconnected …)`, `Reconnecting... waiting for network (…)`.
  const message = str(e.message);
  if (e.type === "error" && message !== null) {
    const retry = /^Reconnecting\.*\s*(.*?)\s*(?:\((.*)\))?$/s.exec(message);
    if (retry === null) return { kind: "failed", text: message };
    const why = retry[2] ?? "connection failed";
    const when = retry[1] ?? "";
    const text = `${why}, ${when === "" ? "retrying" : /^\d/.test(when) ? `retry ${when}` : when}`;
    return { kind: "retry", text, network: true };
  }
  if (e.type === "turn.failed") {
    const text = str((e.error as { message?: unknown } | undefined)?.message);
    return { kind: "failed", text: text ?? "the turn failed" };
  }
  if (e.type === "turn.started" || item?.type === "reasoning") return { kind: "status", text: "thinking…" };
  return { kind: "none" };
}

/** The payload of an OpenCode (`part`) or Copilot (`data`) event. */
const payload = (e: Record<string, unknown>) => (e.data ?? e.part) as Record<string, unknown> | undefined;

/** `opencode run --format json`. */
function parseOpenCodeLine(e: Record<string, unknown>): AskEvent {
  const part = payload(e);
  if (e.type === "text" && typeof part?.text === "string") return { kind: "text", text: part.text };
  if (e.type === "step_start") return { kind: "status", text: "thinking…" };
  return { kind: "none" };
}

/** `copilot --output-format json`. */
function parseCopilotLine(e: Record<string, unknown>): AskEvent {
  const data = payload(e);
  if (e.type === "assistant.message_delta" && typeof data?.deltaContent === "string")
    return { kind: "text", text: data.deltaContent };
  if (e.type === "assistant.message" && typeof data?.content === "string" && data.content !== "")
    return { kind: "answer", text: data.content };
  if (e.type === "assistant.turn_start") return { kind: "status", text: "thinking…" };
  return { kind: "none" };
}

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

/**
 * Reads one JSON line of `claude --output-format stream-json`, `codex exec --json`, `gemini -o stream-json`,
 * `qwen -o stream-json` (Claude's events), `opencode run --format json` or `copilot --output-format json`.
 */
export function parseAskLine(agent: AskAgent, line: string): AskEvent {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: "none" };
  }
  if (e === null || typeof e !== "object") return { kind: "none" };
  if (agent === "gemini") {
    if (e.type === "message" && e.role === "assistant" && typeof e.content === "string")
      return { kind: "text", text: e.content };
    return e.type === "init" ? { kind: "status", text: "thinking…" } : { kind: "none" };
  }
  if (agent === "opencode") return parseOpenCodeLine(e);
  if (agent === "copilot") return parseCopilotLine(e);
  return agent === "claude" || agent === "qwen" ? parseClaudeLine(e) : parseCodexLine(e);
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
  const aside = o.agent === "gemini" ? geminiAside(o.env) : null;
  try {
    return await spawnAsk(o, off, session, aside);
  } finally {
    if (aside !== null) rmSync(aside, { recursive: true, force: true });
    // Copilot keeps every session; the one funes started is deleted once it ends.
    if (o.agent === "copilot") {
      const state = join(copilotHome(where), "session-state");
      rmSync(join(state, session), { recursive: true, force: true });
      rmSync(join(state, ".session-operation-locks", `${session}.lock`), { force: true });
    }
  }
}

/** Gemini CLI's files a run needs to sign in as the user (settings, a `.env`, the Google login). */
const GEMINI_CREDENTIALS = [".env", "oauth_creds.json", "google_accounts.json", "installation_id"];

/**
 * A throw-away home for one Gemini run: `.gemini/settings.json` is the user's without hooks and MCP servers,
 * and the credential files are copied beside it (mode 0700 folder), so the run signs in as the user but
 * writes its session, and fires hooks, nowhere the user's memory is read from.
 */
function geminiAside(env: Record<string, string | undefined>): string {
  const home = mkdtempSync(join(tmpdir(), "funes-ask-gemini-"));
  const from = geminiDir({ home: env.HOME ?? "", env });
  const to = join(home, ".gemini");
  mkdirSync(to, { recursive: true, mode: 0o700 });
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(readFileSync(join(from, "settings.json"), "utf8")) as Record<string, unknown>;
  } catch {
    // No settings (or ones with comments): Gemini's defaults, with the key from the environment.
  }
  const { hooks: _hooks, mcpServers: _servers, ...kept } = settings;
  writeFileSync(join(to, "settings.json"), JSON.stringify(kept), { mode: 0o600 });
  for (const f of GEMINI_CREDENTIALS) if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  return home;
}

function spawnAsk(
  o: Parameters<typeof runAsk>[0],
  off: string[],
  session: string,
  aside: string | null,
): Promise<AskOutcome> {
  return new Promise((resolve) => {
    const env = askEnv(o.agent, o.env, off);
    const child = spawn(o.agent, askArgs(o.agent, o.prompt, off, session), {
      env: (aside === null ? env : { ...env, GEMINI_CLI_HOME: aside }) as NodeJS.ProcessEnv,
      cwd: aside ?? o.cwd,
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
      const ev = parseAskLine(o.agent, line);
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
