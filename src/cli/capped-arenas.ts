/**
 * `funes push` of a large memory runs again as a child process with glibc's malloc arenas capped
 * (`MALLOC_ARENA_MAX=2`), as `funes index`'s workers and the agents' hooks already do. Lance's threads each
 * take an arena of their own and keep what they freed: a first push of a million chunks peaked at 1.42 GB
 * with the default arenas and 1.14 GB capped. glibc reads the variable only when a process starts, hence
 * the second process; this one loads nothing else, waits, and ends as the child ended.
 */
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { funesHomeOf } from "./home.js";

/** Commands whose work grows with the memory. */
const HEAVY_COMMANDS = new Set(["push"]);

/** Bytes of a memory's data files per row (text, metadata and the 384-float vector: 1.6 KB measured at 1M). */
const DATA_BYTES_PER_ROW = 1600;

/** Rows from which heavy work leaves the first process (`FUNES_INDEX_WORKER_ROWS`, as for `funes index`). */
const DEFAULT_WORKER_ROWS = 200_000;

/** Bytes of the local memory's data files (0 when there is none). */
function memoryDataBytes(funesHome: string): number {
  const dir = join(funesHome, "memory", "chunks.lance", "data");
  let n = 0;
  try {
    for (const f of readdirSync(dir)) n += statSync(join(dir, f)).size;
  } catch {
    return n;
  }
  return n;
}

/** Whether `command` should run in a child with capped arenas, here and now. */
export function wantsCappedArenas(command: string | undefined, env: NodeJS.ProcessEnv): boolean {
  if (command === undefined || !HEAVY_COMMANDS.has(command)) return false;
  // Set already (by the user, a hook, or the parent of this process): nothing to gain.
  if (process.platform !== "linux" || (env.MALLOC_ARENA_MAX ?? "") !== "") return false;
  const rows = Number(env.FUNES_INDEX_WORKER_ROWS);
  const from = (env.FUNES_INDEX_WORKER_ROWS ?? "") !== "" && rows >= 0 ? rows : DEFAULT_WORKER_ROWS;
  return memoryDataBytes(funesHomeOf(env)) >= from * DATA_BYTES_PER_ROW;
}

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs this same command line in a child with `MALLOC_ARENA_MAX=2`, sharing the terminal (its prompts,
 * progress and output are the child's own); resolves to the exit code to end with. Signals sent to this
 * process reach the child; one the child died of is raised here again after.
 */
export function runWithCappedArenas(env: NodeJS.ProcessEnv): Promise<number> {
  const [script, ...args] = process.argv.slice(1);
  const child = spawn(process.execPath, [...process.execArgv, script ?? "", ...args], {
    stdio: "inherit",
    env: { ...env, MALLOC_ARENA_MAX: "2" },
  });
  const forward = (s: NodeJS.Signals) => () => {
    // A terminal's Ctrl-C reaches the whole process group, the child included: it decides what happens.
    if (s !== "SIGINT") child.kill(s);
  };
  const handlers = FORWARDED.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return new Promise((resolve) => {
    child.on("error", (err) => {
      process.stderr.write(
        `funes: could not start Node again for a large ${args[0] ?? "run"} (${err.message}) — run it with MALLOC_ARENA_MAX=2 set\n`,
      );
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      if (signal !== null) {
        process.kill(process.pid, signal);
        return;
      }
      resolve(code ?? 1);
    });
  });
}
