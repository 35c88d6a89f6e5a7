/**
 * The pi extension funes installs (`funes add pi` copies this module as `tsc` built it, with `FUNES` and
 * `HERE` filled in: agents/shipped.ts): `recall` and `get` tools backed by one long-lived `funes mcp`
 * process, spoken to in MCP's newline-delimited JSON-RPC. Self-contained (Node built-ins only), so pi loads
 * it without installing anything. The bound memory is read from `FUNES_MEMORY`, else the `memory` file
 * beside it. pi has no hooks, so the extension is its hook: when a session shuts down it runs the hook
 * script beside it — the boundary push (`funes-push.sh <memory> pi`, which indexes pi's sessions first)
 * with a memory bound, else `funes-index.sh pi` — detached, with no pipes open (a child with open pipes
 * would keep pi's print mode from exiting).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** funes as argv words (filled in by `funes add pi`). */
const FUNES: string[] = []; // funes:fill
/** The folder this extension is installed in (filled in by `funes add pi`). */
const HERE: string = ""; // funes:fill
const CALL_TIMEOUT_MS = 120_000;

/** What this extension uses of pi's extension API. */
export interface PiApi {
  registerTool(tool: {
    name: string;
    label: string;
    description: string;
    parameters: Record<string, unknown>;
    execute: (
      id: string,
      params: Record<string, unknown>,
    ) => Promise<{ content: { type: "text"; text: string }[]; details: Record<string, never> }>;
  }): void;
  on?: (event: string, handler: () => void) => void;
}

/** A JSON-RPC answer as `funes mcp` writes it. */
interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { message?: unknown };
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

function boundMemory(): string | null {
  const env = process.env.FUNES_MEMORY?.trim();
  if (env) return env;
  const file = join(HERE, "memory");
  const text = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  return text === "" ? null : text;
}

class FunesMcp {
  private child: ChildProcess | null = null;
  private buffer = "";
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private ready: Promise<void> | null = null;

  private start(): Promise<void> {
    const memory = boundMemory();
    const [bin, ...rest] = FUNES;
    const child = spawn(bin as string, [...rest, "mcp", ...(memory === null ? [] : [memory])], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child = child;
    // Neither the child nor its pipes keep pi's process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => this.read(d));
    const fail = (why: string) => {
      // A child closed earlier may exit after a new one started: only the current one's failure counts.
      if (this.child !== child) return;
      this.rejectAll(why);
      this.child = null;
      this.ready = null;
    };
    child.on("error", (e) =>
      fail(`could not start funes (${e.message}) — is it installed? Run \`funes add pi\` again`),
    );
    child.on("exit", (code) => fail(`funes mcp exited (${code})`));
    return this.request("initialize", {
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "funes-pi", version: "0.1.0" },
    }).then(() => this.notify("notifications/initialized"));
  }

  private rejectAll(why: string): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(why));
    }
    this.pending.clear();
    this.buffer = "";
  }

  private read(data: string): void {
    this.buffer += data;
    for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line === "") continue;
      let msg: Answer;
      try {
        msg = JSON.parse(line) as Answer;
      } catch {
        continue;
      }
      const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
      if (p === undefined) continue;
      this.pending.delete(msg.id as number);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(String(msg.error.message ?? "funes error")));
      else p.resolve(msg.result);
    }
  }

  private notify(method: string): void {
    this.child?.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`funes did not answer ${method} within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.child?.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  async call(tool: string, args: Record<string, unknown>): Promise<string> {
    if (this.ready === null) this.ready = this.start();
    await this.ready;
    const result = (await this.request("tools/call", { name: tool, arguments: args })) as {
      content?: unknown;
    } | null;
    const parts: unknown[] = Array.isArray(result?.content) ? result.content : [];
    return parts
      .filter((c): c is { type: "text"; text: unknown } => (c as { type?: unknown } | null)?.type === "text")
      .map((c) => String(c.text))
      .join("\n");
  }

  close(): void {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    this.ready = null;
    this.rejectAll("the pi session ended");
    child.stdin?.end();
    child.kill();
  }
}

/** Starts a hook script beside this file; it hands off to a background worker and returns at once. */
function runHook(script: string, args: string[]): void {
  const path = join(HERE, script);
  if (!existsSync(path)) return;
  try {
    const child = spawn("bash", [path, ...args], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // Publishing is best effort here: the next session, or `funes push`, catches up.
  }
}

export default function funes(pi: PiApi): void {
  const mcp = new FunesMcp();
  const run = (tool: string) => async (_id: string, params: Record<string, unknown>) => {
    const args = Object.fromEntries(
      Object.entries(params ?? {}).filter(([, v]) => v !== undefined && v !== ""),
    );
    const text = await mcp.call(tool, args);
    return { content: [{ type: "text" as const, text }], details: {} };
  };
  pi.registerTool({
    name: "recall",
    label: "Recall",
    description:
      "Search your past coding-agent sessions (funes memory) for passages relevant to a question: decisions, errors, commands, how something was done before. Returns passages with `get` hints.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for, in words" },
        k: { type: "number", description: "How many passages (default 8)" },
        memory: {
          type: "string",
          description: "Another memory to read (org/repo), instead of the bound one",
        },
      },
      required: ["query"],
    },
    execute: run("recall"),
  });
  pi.registerTool({
    name: "get",
    label: "Get turn",
    description:
      "Read a recalled turn and the turns around it, by the session id and turn uuid a recall hit names.",
    parameters: {
      type: "object",
      properties: {
        session_id: { type: "string" },
        turn_uuid: { type: "string" },
        window: { type: "number", description: "Turns either side (default 3)" },
        memory: { type: "string" },
      },
      required: ["session_id", "turn_uuid"],
    },
    execute: run("get"),
  });
  // pi's cleanup event (print mode never reaches process exit while a child's pipes are open): close the
  // funes mcp child, and, pi having no hooks, index the session (or publish it, with a memory bound).
  pi.on?.("session_shutdown", () => {
    mcp.close();
    const memory = boundMemory();
    if (memory === null) runHook("funes-index.sh", ["pi"]);
    else runHook("funes-push.sh", [memory, "pi"]);
  });
  process.once("exit", () => mcp.close());
}
