/** Waiting on what another process does, with margins that hold on a loaded machine. */
import { readdirSync } from "node:fs";

/** Polls `check` every `every` ms until it holds or `ms` pass; returns whether it held. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
  every = 100,
): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, every)))
    if (await check()) return true;
  return check();
}

/**
 * Whether no hook worker in `dir` (the folder of funes's hook scripts) holds its job's lock. A log line alone
 * can't say the hooks are done: a turn's index worker lets go of its lock before its push worker takes one,
 * and an earlier push's outcome (SessionStart's) is already in the log then.
 */
export function hooksIdle(dir: string): boolean {
  return !readdirSync(dir).some((f) => /^\.(index-[\w-]+|push)\.lock$/.test(f));
}
