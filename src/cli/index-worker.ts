/**
 * The work of `funes index` on a large memory (its text pass, the backfill, the index upkeep), one step per
 * worker process (commands/index-sessions.ts says why). The parent runs `funes __index-step`, sends it the step over an IPC channel and relays the events it sends
 * back. A worker exits as soon as its parent is gone (the channel closes), so killing `funes index` never
 * leaves one writing; each of its writes is one atomic Lance commit, so a kill at any point leaves a valid
 * memory and the next run carries on.
 */
import { spawn } from "node:child_process";
import {
  FunesError,
  type FunesErrorCode,
  type IndexEvent,
  type IsolatedResult,
  type IsolatedStep,
  type Isolation,
  runIsolatedStep,
} from "../commands/index.js";
import { collectGarbage } from "../heap/index.js";
import type { CliConfig } from "./config.js";

/** The hidden command a worker runs. */
export const INDEX_STEP_COMMAND = "__index-step";

/** What a worker sends its parent. */
type WorkerMessage =
  | { event: IndexEvent }
  | { result: IsolatedResult }
  | { error: string; code?: FunesErrorCode | undefined };

/** How `funes index` runs isolated steps: this Node and this script, glibc's arenas capped (docs/env.md). */
export function indexIsolation(cfg: CliConfig): Isolation | undefined {
  const script = cfg.script;
  if (script === undefined) return undefined;
  return {
    fromRows: cfg.indexWorkerRows,
    run: (step, emit) => runWorker(script, cfg, step, emit),
  };
}

function runWorker(
  script: string,
  cfg: CliConfig,
  step: IsolatedStep,
  emit: (e: IndexEvent) => void,
): Promise<IsolatedResult> {
  // `funes index` waits idle while its workers run, and an idle process never collects: what the text
  // pass left (its id sets, ≈ 150 MB each at 1M chunks) would stay resident beside every worker.
  collectGarbage();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, INDEX_STEP_COMMAND], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: { ...cfg.env, MALLOC_ARENA_MAX: cfg.env.MALLOC_ARENA_MAX ?? "2" },
    });
    let result: IsolatedResult | null = null;
    let error: string | null = null;
    let code: FunesErrorCode | undefined;
    child.on("message", (m: WorkerMessage) => {
      if ("event" in m) emit(m.event);
      else if ("result" in m) result = m.result;
      else {
        error = m.error;
        code = m.code;
      }
    });
    child.on("error", (err) => reject(new Error(`could not start an index worker: ${err.message}`)));
    // "close", not "exit": it waits for the channel, so every message the worker sent has been read.
    child.on("close", (exit, signal) => {
      if (result !== null && exit === 0) resolve(result);
      // A refusal the step meant (nothing readable, say) keeps its meaning and its words.
      else if (error !== null && code !== undefined) reject(new FunesError(code, error));
      else
        reject(
          new Error(
            `an index worker (${step.kind}) ${error === null ? (signal !== null ? `was killed (${signal})` : `exited with code ${exit}`) : `failed: ${error}`}`,
          ),
        );
    });
    child.send(step);
  });
}

/** The worker's side: runs the step it is sent, reports, exits. */
export function serveIndexStep(): void {
  // The parent is gone (killed, or its channel closed): stop at once rather than write on unsupervised.
  process.on("disconnect", () => process.exit(1));
  if (!process.connected) process.exit(1);
  process.once("message", (step: IsolatedStep) => {
    const send = (m: WorkerMessage) => new Promise<void>((done) => process.send?.(m, () => done()));
    runIsolatedStep(step, (event) => void send({ event }))
      .then(async (result) => {
        await send({ result });
        process.exit(0);
      })
      .catch(async (err: unknown) => {
        await send({
          error: err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err),
          code: err instanceof FunesError ? err.code : undefined,
        });
        process.exit(1);
      });
  });
}
