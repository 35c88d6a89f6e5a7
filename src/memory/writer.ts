/**
 * Running a change to the local memory under the writer lock (shared with the reference's binary): taken
 * without waiting, a busy lock is a FunesError("busy") that says so, and it is always released.
 */
import { FunesError } from "./errors.js";
import { funesPaths } from "./paths.js";
import { acquireWriterLock, WriterBusyError } from "./writer-lock.js";

/** Runs `fn` holding the writer lock of the funes home. */
export async function withWriterLock<T>(funesHome: string, fn: () => Promise<T>): Promise<T> {
  let lock: Awaited<ReturnType<typeof acquireWriterLock>>;
  try {
    lock = await acquireWriterLock(funesPaths(funesHome).lock);
  } catch (err) {
    if (err instanceof WriterBusyError) throw new FunesError("busy", err.message);
    throw err;
  }
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
