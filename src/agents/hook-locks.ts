/**
 * The hook workers' locks as `doctor` sees them. A worker holds its job's turn with a folder beside the hook
 * scripts (`.index-<harness>.lock`, `.push.lock`) whose `pid` file names it: its pid and when it started
 * (hook-scripts.ts writes both, and reads them back the same way before it waits on a lock). A pid alone
 * is not enough: a worker killed without cleaning up leaves its pid to be given to another process, and
 * the lock then looked held forever, each hook leaving a note and going, so indexing and pushing stopped
 * without a word. A lock whose worker is gone is taken over by the next hook; this says which are.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Env } from "./agent.js";
import { hookLogPaths } from "./hook-log.js";

/** A lock a hook worker holds, or left. */
export interface HookLock {
  /** The lock folder. */
  path: string;
  /** `index-<harness>` or `push`. */
  job: string;
  /** The pid it names (null: none written yet). */
  pid: number | null;
  /** `stale`: the worker it names is gone (the next hook takes it over). */
  state: "held" | "stale";
}

/** A lock that names no worker yet is one being taken; after an hour, one whose worker never got going. */
const UNNAMED_MS = 60 * 60 * 1000;

const LOCK = /^\.(index-[\w-]+|push)\.lock$/;

/**
 * When process `pid` started, as the hook scripts record it: field 22 of `/proc/<pid>/stat` on Linux (clock
 * ticks after boot, counted after the command name, which may hold spaces and parentheses), else `ps -o
 * lstart=` with its spaces squeezed. Null when it is not running, or nothing can say.
 */
export function processStart(pid: number): string | null {
  let stat: string | null = null;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // not Linux, or no such process
  }
  if (stat !== null) {
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    return fields[19] ?? null;
  }
  const ps = spawnSync("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8" });
  const out = (ps.stdout ?? "").trim().replace(/\s+/g, " ");
  return out === "" ? null : out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the worker a lock names still runs: its pid started when the lock says (a lock of an older funes
 * records no start: its pid alive, until the lock is an hour old). The same rule as the scripts' own.
 */
export function lockState(path: string, now: number): HookLock["state"] {
  let text = "";
  try {
    text = readFileSync(join(path, "pid"), "utf8");
  } catch {
    // not written yet
  }
  const [pidText = "", ...start] = text.trim().split(/\s+/);
  const recorded = start.join(" ");
  const pid = Number(pidText);
  const age = now - statSync(path).mtimeMs;
  if (!Number.isInteger(pid) || pid <= 0) return age > UNNAMED_MS ? "stale" : "held";
  const started = processStart(pid);
  if (started === null) return alive(pid) ? "held" : "stale";
  if (recorded !== "") return started === recorded ? "held" : "stale";
  return age > UNNAMED_MS ? "stale" : "held";
}

/** Every hook worker's lock beside the hook scripts of every agent, held or stale. */
export async function readHookLocks(o: { home: string; env: Env; now: number }): Promise<HookLock[]> {
  const out: HookLock[] = [];
  for (const dir of new Set((await hookLogPaths(o)).map((log) => dirname(log)))) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => LOCK.test(n));
    } catch {
      continue; // that agent is not wired
    }
    for (const name of names) {
      const path = join(dir, name);
      let state: HookLock["state"];
      try {
        state = lockState(path, o.now);
      } catch {
        continue; // let go of meanwhile
      }
      let pid: number | null = null;
      try {
        pid = Number(readFileSync(join(path, "pid"), "utf8").trim().split(/\s+/)[0]) || null;
      } catch {}
      out.push({ path, job: (LOCK.exec(name) as RegExpExecArray)[1] as string, pid, state });
    }
  }
  return out;
}
