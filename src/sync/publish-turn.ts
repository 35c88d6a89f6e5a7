/**
 * Push and local forget taking turns around a push's commit. A push looks at the ids forgotten on this
 * machine for the last time after its uploads, just before its commit request, and again just after it;
 * it holds `$FUNES_HOME/publish.lock` from the first look to the second. A local forget writes its marker
 * first (forget-pending.ts: from then on its ids count as forgotten) and then waits for the turn, so it
 * knows whether a push was committing meanwhile and can say so: that push either saw the marker before its
 * commit (and staged again without the rows) or right after it (and takes them back out of the Hub).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireWriterLock, WriterBusyError, type WriterLock } from "../memory/index.js";

/** How often a waiting process tries the turn again, ms. */
const POLL_MS = 100;

/** `$FUNES_HOME/publish.lock`. */
function turnPath(funesHome: string): string {
  return join(funesHome, "publish.lock");
}

/** Beside the lock while a push holds it: the memory it commits to (for the forget's message). */
function holderPath(funesHome: string): string {
  return join(funesHome, "publish.lock.uri");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A held turn; `release` is idempotent. */
export interface PublishTurn {
  release(): Promise<void>;
}

/**
 * Takes the turn for a push's commit to `uri`, waiting for a forget that holds it (a forget holds it only
 * for a moment). After `maxWaitMs` the turn is taken anyway: a push never hangs on a lock left behind.
 */
export async function takePublishTurn(
  funesHome: string,
  uri: string,
  maxWaitMs = 60_000,
): Promise<PublishTurn> {
  const lock = await acquireWaiting(funesHome, maxWaitMs);
  try {
    writeFileSync(holderPath(funesHome), uri);
  } catch {
    // only the forget's message names it
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      rmSync(holderPath(funesHome), { force: true });
      await lock?.release();
    },
  };
}

/**
 * Waits until no push is between its last look at the forgotten ids and its commit (at most `maxWaitMs`);
 * returns the memory it waited for a push to commit to, or null when none was committing.
 */
export async function waitForPushCommits(funesHome: string, maxWaitMs = 300_000): Promise<string | null> {
  let uri: string | null = null;
  try {
    const first = await acquireWriterLock(turnPath(funesHome));
    await first.release();
    return null;
  } catch (err) {
    if (!(err instanceof WriterBusyError)) throw err;
    uri = readHolder(funesHome);
  }
  const lock = await acquireWaiting(funesHome, maxWaitMs);
  await lock?.release();
  return uri ?? "a Hub memory";
}

function readHolder(funesHome: string): string | null {
  try {
    return readFileSync(holderPath(funesHome), "utf8").trim() || null;
  } catch {
    return null;
  }
}

/** The lock, tried every {@link POLL_MS}; null when it stayed busy for `maxWaitMs`. */
async function acquireWaiting(funesHome: string, maxWaitMs: number): Promise<WriterLock | null> {
  for (let tries = Math.ceil(maxWaitMs / POLL_MS); ; tries--) {
    try {
      return await acquireWriterLock(turnPath(funesHome));
    } catch (err) {
      if (!(err instanceof WriterBusyError)) throw err;
      if (tries <= 0) return null;
    }
    await sleep(POLL_MS);
  }
}
