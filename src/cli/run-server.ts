/**
 * `funes server status|start|stop|run`: the shared model server (models/model-server.ts), and the link the
 * CLI and the MCP server use to reach it (started on demand, in the background, with its own log).
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FunesError, ModelSession, type ServerLink } from "../commands/index.js";
import { ModelClient, modelSocketPath, serveModels } from "../models/index.js";
import type { CliConfig } from "./config.js";

/** The server's log, beside the hook logs. */
function logPath(cfg: CliConfig): string {
  return join(cfg.funesHome, "logs", "model-server.log");
}

/** Starts `funes server run` detached from this process, its output appended to the server log. */
function startDetached(cfg: CliConfig): void {
  mkdirSync(join(cfg.funesHome, "logs"), { recursive: true });
  const out = openSync(logPath(cfg), "a");
  const script = process.argv[1];
  if (script === undefined) return;
  const child = spawn(process.execPath, [script, "server", "run"], {
    detached: true,
    stdio: ["ignore", out, out],
    env: { ...cfg.env, FUNES_HOME: cfg.funesHome },
  });
  child.on("error", () => {});
  child.unref();
}

/** How this process reaches the model server, or null when `FUNES_SERVER=0`. */
export function serverLink(cfg: CliConfig): ServerLink | null {
  if (!cfg.server.enabled) return null;
  return { socketPath: modelSocketPath(cfg.funesHome), start: () => startDetached(cfg), waitMs: 3000 };
}

/** A model session for recall-like commands: through the shared server when it is on. */
export function recallModels(cfg: CliConfig, reranker?: unknown): ModelSession {
  const models = reranker === undefined ? cfg.models : { ...cfg.models, reranker: String(reranker) };
  return new ModelSession(models, serverLink(cfg));
}

/** Flags of `funes server`. */
export interface ServerFlags {
  json?: boolean;
}

/** Runs a `funes server` action. */
export async function runServer(action: unknown, flags: ServerFlags, cfg: CliConfig): Promise<void> {
  const socketPath = modelSocketPath(cfg.funesHome);
  const what = action === undefined ? "status" : String(action);
  switch (what) {
    case "run": {
      const stamp = () => new Date(cfg.now()).toISOString();
      const ran = await serveModels({
        socketPath,
        load: { threads: cfg.models.threads },
        idleMs: cfg.server.idleMs,
        now: cfg.now,
        log: (line) => process.stderr.write(`${stamp()} ${line}\n`),
        // The package's own files: `npm uninstall -g funes` (or a rebuild) removes them.
        program: fileURLToPath(import.meta.url),
      });
      if (!ran) process.stderr.write(`${stamp()} another model server already answers on ${socketPath}\n`);
      return;
    }
    case "start": {
      const running = await ModelClient.connect(socketPath, 500);
      if (running === null) {
        startDetached(cfg);
        for (
          let i = 0;
          i < 100 &&
          (await ModelClient.connect(socketPath, 500).then((c) => {
            c?.close();
            return c;
          })) === null;
          i++
        )
          await new Promise((r) => setTimeout(r, 50));
      } else running.close();
      return printStatus(socketPath, flags, cfg);
    }
    case "status":
      return printStatus(socketPath, flags, cfg);
    case "stop": {
      const c = await ModelClient.connect(socketPath, 500);
      if (c === null) {
        process.stdout.write(flags.json === true ? '{"running":false}\n' : "model server: not running\n");
        return;
      }
      await c.stop().catch(() => {});
      c.close();
      process.stdout.write(
        flags.json === true ? '{"running":false,"stopped":true}\n' : "model server: stopped\n",
      );
      return;
    }
    default:
      throw new FunesError(
        "bad_input",
        `unknown server action "${what}" (expected status, start, stop or run)`,
      );
  }
}

async function printStatus(socketPath: string, flags: ServerFlags, cfg: CliConfig): Promise<void> {
  const c = await ModelClient.connect(socketPath, 500);
  if (c === null) {
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify({ running: false, socket: socketPath, enabled: cfg.server.enabled })}\n`
        : `model server: not running${cfg.server.enabled ? " (starts on the next recall that needs models)" : " (FUNES_SERVER=0: recall loads models in-process)"}\n`,
    );
    return;
  }
  try {
    const s = await c.status();
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ running: true, socket: socketPath, ...s })}\n`);
      return;
    }
    const up = Math.round((cfg.now() - s.startedAt) / 1000);
    process.stdout.write(
      [
        `model server: running (pid ${s.pid}, up ${up} s, ${s.requests} requests, ${s.reused} of ${s.scored + s.reused} passage scores reused, ${(s.rssBytes / 1048576).toFixed(0)} MiB)`,
        `socket: ${socketPath} (owner only)`,
        `models: ${s.models.length === 0 ? "none loaded yet" : s.models.join("; ")}`,
        `exits after ${Math.round(s.idleMs / 1000)} s without a request; log: ${logPath(cfg)}`,
        "",
      ].join("\n"),
    );
  } finally {
    c.close();
  }
}
