/**
 * `funes server status|start|stop|run`: the shared model server (models/model-server.ts), and the link the
 * CLI and the MCP server use to reach it (started on demand, in the background, with its own log).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FunesError, ModelSession, type ServerLink } from "../commands/index.js";
import {
  ModelClient,
  ModelServerError,
  modelSocketPath,
  releaseSocket,
  type ServerStatus,
  serveModels,
} from "../models/index.js";
import type { CliConfig } from "./config.js";

/** The server's log, beside the hook logs. */
function logPath(cfg: CliConfig): string {
  return join(cfg.funesHome, "logs", "model-server.log");
}

/** Where this FUNES_HOME's model server listens. */
function socketPathOf(cfg: CliConfig): string {
  return modelSocketPath(cfg.funesHome, cfg.server.places);
}

/**
 * Starts `funes server run` detached from this process, its output appended to the server log. Settles
 * when that process ends (at once for one that found another server, or could not start).
 */
function startDetached(cfg: CliConfig): Promise<void> {
  mkdirSync(join(cfg.funesHome, "logs"), { recursive: true });
  const out = openSync(logPath(cfg), "a");
  const script = cfg.script;
  if (script === undefined) return Promise.resolve();
  const child = spawn(process.execPath, [script, "server", "run"], {
    detached: true,
    stdio: ["ignore", out, out],
    env: { ...cfg.env, FUNES_HOME: cfg.funesHome },
  });
  closeSync(out);
  const ended = new Promise<void>((resolve) => {
    child.on("error", () => resolve());
    child.on("exit", () => resolve());
  });
  child.unref();
  return ended;
}

/** How this process reaches the model server, or null when `FUNES_SERVER=0`. */
export function serverLink(cfg: CliConfig): ServerLink | null {
  if (!cfg.server.enabled) return null;
  return { socketPath: socketPathOf(cfg), start: () => startDetached(cfg), waitMs: 3000 };
}

/**
 * A model session for recall-like commands: through the shared server when it is on. With `startAfter`
 * (a one-shot command), a server that is not running is not waited for: the models load in this process,
 * and the server starts when the session closes, for the next command.
 */
export function recallModels(
  cfg: CliConfig,
  reranker?: unknown,
  o: { startAfter?: boolean } = {},
): ModelSession {
  const models = reranker === undefined ? cfg.models : { ...cfg.models, reranker: String(reranker) };
  const link = serverLink(cfg);
  return new ModelSession(
    models,
    link === null || o.startAfter !== true ? link : { ...link, startAfter: true },
  );
}

/** Flags of `funes server`. */
export interface ServerFlags {
  json?: boolean;
}

/** The error for a socket place funes refuses (a stranger's folder, something else at the path). */
function refusedPlace(socketPath: string, reason: string): FunesError {
  return new FunesError(
    "unreadable_source",
    `the model server will not use "${socketPath}": ${reason} — remove it if it is yours, or set XDG_RUNTIME_DIR or TMPDIR to a folder only you can write (or use a shorter FUNES_HOME)`,
  );
}

/** The last line of the server's log (why it did not start), or "" without one. */
function lastLogLine(cfg: CliConfig): string {
  try {
    const text = readFileSync(logPath(cfg), "utf8").slice(-4096).trimEnd();
    return text.slice(text.lastIndexOf("\n") + 1);
  } catch {
    return "";
  }
}

/** Runs a `funes server` action. */
export async function runServer(action: unknown, flags: ServerFlags, cfg: CliConfig): Promise<void> {
  const socketPath = socketPathOf(cfg);
  const what = action === undefined ? "status" : String(action);
  switch (what) {
    case "run": {
      const stamp = () => new Date(cfg.now()).toISOString();
      const ran = await serveModels({
        socketPath,
        funesHome: cfg.funesHome,
        load: { threads: cfg.models.threads },
        idleMs: cfg.server.idleMs,
        now: cfg.now,
        log: (line) => process.stderr.write(`${stamp()} ${line}\n`),
        // The package's own files: `npm uninstall -g funes` (or a rebuild) removes them.
        program: fileURLToPath(import.meta.url),
      });
      if (ran.kind === "held")
        process.stderr.write(`${stamp()} another model server already answers on ${socketPath}\n`);
      if (ran.kind === "refused") throw refusedPlace(socketPath, ran.reason);
      return;
    }
    case "start": {
      let c = await ModelClient.connect(socketPath);
      // A refused place too: the server makes a `run` folder of the user's own owner-only, or says why not.
      if (c.kind !== "connected") {
        const ended = startDetached(cfg);
        let gone = false;
        void ended.then(() => (gone = true));
        // Until it answers, or its process ended (then once more: it may have found another server).
        for (let i = 0; i < 200 && c.kind !== "connected"; i++) {
          const last = gone;
          await new Promise((r) => setTimeout(r, 50));
          c = await ModelClient.connect(socketPath);
          if (last) break;
        }
      }
      if (c.kind === "refused") throw refusedPlace(socketPath, c.reason);
      if (c.kind === "absent") {
        const why = lastLogLine(cfg);
        throw new FunesError(
          "unreadable_source",
          `the model server did not start${why === "" ? "" : ` (its log ends: ${why.slice(0, 300)})`} — see ${logPath(cfg)}, or set FUNES_SERVER=0 to load models in each process`,
        );
      }
      c.client.close();
      return printStatus(socketPath, flags, cfg, true);
    }
    case "status":
      return printStatus(socketPath, flags, cfg, false);
    case "stop": {
      const c = await ModelClient.connect(socketPath);
      if (c.kind !== "connected") {
        const problem = c.kind === "refused" ? ` — ${c.reason}` : "";
        process.stdout.write(
          flags.json === true
            ? `${JSON.stringify({ running: false, ...(c.kind === "refused" ? { problem: c.reason } : {}) })}\n`
            : `model server: not running${problem}\n`,
        );
        return;
      }
      try {
        await c.client.stop();
        process.stdout.write(
          flags.json === true ? '{"running":false,"stopped":true}\n' : "model server: stopped\n",
        );
      } catch (err) {
        if (!(err instanceof ModelServerError)) throw err;
        // A server that does not answer (stopped, hung) cannot be asked: its socket goes, so nothing
        // reaches it any more, the next recall starts a new one, and it exits as soon as it runs again.
        releaseSocket(socketPath, c.client.ino);
        process.stdout.write(
          flags.json === true
            ? `${JSON.stringify({ running: false, stopped: false, problem: err.message, socketRemoved: true })}\n`
            : `model server: ${err.message} — its socket was removed: nothing reaches it now, and it exits as soon as it runs again\n`,
        );
      } finally {
        c.client.close();
      }
      return;
    }
    default:
      throw new FunesError(
        "bad_input",
        `unknown server action "${what}" (expected status, start, stop or run)`,
      );
  }
}

async function printStatus(
  socketPath: string,
  flags: ServerFlags,
  cfg: CliConfig,
  starting: boolean,
): Promise<void> {
  const c = await ModelClient.connect(socketPath);
  if (c.kind === "refused" && starting) throw refusedPlace(socketPath, c.reason);
  if (c.kind !== "connected") {
    const problem = c.kind === "refused" ? c.reason : null;
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify({ running: false, socket: socketPath, enabled: cfg.server.enabled, ...(problem === null ? {} : { problem }) })}\n`
        : problem !== null
          ? `model server: not running — ${problem}\n`
          : `model server: not running${cfg.server.enabled ? " (starts on the next recall that needs models)" : " (FUNES_SERVER=0: recall loads models in-process)"}\n`,
    );
    return;
  }
  try {
    let s: ServerStatus;
    try {
      s = await c.client.status();
    } catch (err) {
      if (!(err instanceof ModelServerError)) throw err;
      if (starting)
        throw new FunesError(
          "unreadable_source",
          `the model server on "${socketPath}" does not answer (${err.message}) — run \`funes server stop\`, then start it again`,
        );
      process.stdout.write(
        flags.json === true
          ? `${JSON.stringify({ running: true, answering: false, socket: socketPath, problem: err.message })}\n`
          : `model server: not answering (${err.message}; stopped or hung) — \`funes server stop\` removes its socket, and the next recall starts a new one\n`,
      );
      return;
    }
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
    c.client.close();
  }
}
