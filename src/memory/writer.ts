/**
 * Running a change to the local memory under the writer lock (shared with the reference's binary): taken
 * without waiting, a busy lock is a FunesError("busy") that says so, and it is always released. Every write
 * first finishes a forget that an earlier run began and did not finish (memory/forget-pending.ts).
 */
import { FunesError } from "./errors.js";
import { finishForget, readPendingForget } from "./forget-pending.js";
import { funesPaths } from "./paths.js";
import { acquireWriterLock, WriterBusyError } from "./writer-lock.js";

/** Runs `fn` holding the writer lock of the funes home, after finishing an unfinished forget. */
export async function withWriterLock<T>(funesHome: string, fn: () => Promise<T>): Promise<T> {
  let lock: Awaited<ReturnType<typeof acquireWriterLock>>;
  try {
    lock = await acquireWriterLock(funesPaths(funesHome).lock);
  } catch (err) {
    if (err instanceof WriterBusyError) throw new FunesError("busy", err.message);
    throw err;
  }
  try {
    await finishForget(funesHome);
    return await fn();
  } finally {
    await lock.release();
  }
}

/**
 * For a write that does not hold the writer lock (a push): finishes an unfinished forget when the lock is
 * free. A busy lock is left to its holder, which finishes it; an unfinished forget's rows are never published
 * either way (a push leaves out the ids it lists).
 */
export async function finishForgetIfFree(funesHome: string): Promise<void> {
  if (readPendingForget(funesHome) === null) return;
  try {
    await withWriterLock(funesHome, async () => {});
  } catch (err) {
    if (!(err instanceof FunesError && err.code === "busy")) throw err;
  }
}
