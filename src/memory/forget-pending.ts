/**
 * A local forget that survives a kill at any step. Before it changes anything, a forget writes
 * `$FUNES_HOME/forget-pending.json`: the memory folder, the ids to take out and the entries to remember in
 * `forgotten.json`. The forget itself then runs {@link finishForget}, which remembers the ids, rewrites the
 * data files that held the rows, rebuilds the indexes, removes every older version's files, and only then
 * removes the marker. Every step can run again, so a forget cut short (kill -9, a full disk) is finished by
 * the next write of any kind: `withWriterLock` runs `finishForget` before its work (index, forget, scrub),
 * and a push runs it when the lock is free. Until then the marker's ids count as forgotten (a push leaves
 * them out) but not as gone (status says the forget is unfinished).
 */
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { removeStaleStages } from "../cache/index.js";
import { LocalStore, purgeForgotten } from "../local/index.js";
import { writeFileAtomic } from "./atomic-file.js";
import { FunesError } from "./errors.js";
import { type ForgottenEntry, readForgotten, writeForgotten } from "./forgotten.js";
import { reachStep } from "./steps.js";

/** A forget begun and not yet finished. */
export interface PendingForget {
  /** The memory folder it takes rows out of. */
  dir: string;
  /** The ids to take out. */
  ids: string[];
  /** Entries to add to `$FUNES_HOME/forgotten.json` (none for `--allow-reindex` or a folder memory). */
  remember: Record<string, ForgottenEntry>;
}

const MARKER_VERSION = 1;

/**
 * "Older than" for the cleanup of a forget being finished: the end of time, so every version but the newest
 * goes (the versions this run wrote included) without reading a clock below cli/.
 */
const END_OF_TIME = () => Date.UTC(9999, 0, 1);

/** `$FUNES_HOME/forget-pending.json`. */
export function pendingForgetPath(funesHome: string): string {
  return join(funesHome, "forget-pending.json");
}

/** Records a forget about to begin (atomically: temp file, then rename). */
export async function markForget(funesHome: string, p: PendingForget): Promise<void> {
  await writeFileAtomic(
    pendingForgetPath(funesHome),
    `${JSON.stringify({ version: MARKER_VERSION, ...p })}\n`,
  );
}

/**
 * The forget begun and not finished, or null. A marker that cannot be read is refused (fail closed: its ids
 * would otherwise be published or indexed again).
 */
export function readPendingForget(funesHome: string): PendingForget | null {
  const path = pendingForgetPath(funesHome);
  let raw: Partial<PendingForget> & { version?: unknown };
  try {
    raw = JSON.parse(readFileSync(path, "utf8")) as typeof raw;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    raw = {};
  }
  if (
    raw.version !== MARKER_VERSION ||
    typeof raw.dir !== "string" ||
    !Array.isArray(raw.ids) ||
    !raw.ids.every((x) => typeof x === "string") ||
    typeof raw.remember !== "object" ||
    raw.remember === null
  )
    throw new FunesError(
      "bad_input",
      `${path} is damaged (it records a forget that did not finish) — move it aside, then run that forget again`,
    );
  return { dir: raw.dir, ids: raw.ids, remember: raw.remember };
}

/** The ids this machine has forgotten or is forgetting: `forgotten.json` and an unfinished forget's. */
export function locallyForgottenIds(funesHome: string): Set<string> {
  const ids = new Set(readForgotten(funesHome).keys());
  for (const id of readPendingForget(funesHome)?.ids ?? []) ids.add(id);
  return ids;
}

/**
 * Finishes the forget recorded in the marker, if any (see the file header), and removes stages of
 * publishes and Hub forgets that were killed (they hold copies of rows, forgotten ones included). Call it
 * holding the writer lock. Null when no forget was pending.
 */
export async function finishForget(
  funesHome: string,
): Promise<{ rewritten: number; bytesRemoved: number } | null> {
  removeStaleStages(join(funesHome, "staging"));
  const p = readPendingForget(funesHome);
  if (p === null) return null;
  const entries = Object.entries(p.remember);
  if (entries.length > 0) {
    const known = readForgotten(funesHome);
    if (entries.some(([id]) => !known.has(id))) {
      for (const [id, e] of entries) known.set(id, e);
      await writeForgotten(funesHome, known);
    }
  }
  reachStep("forget:remembered");
  let done = { rewritten: 0, bytesRemoved: 0 };
  const store = existsSync(p.dir) ? await LocalStore.open(p.dir) : null;
  if (store !== null)
    try {
      done = await purgeForgotten(store, new Set(p.ids), END_OF_TIME, reachStep);
    } finally {
      store.close();
    }
  await rm(pendingForgetPath(funesHome), { force: true });
  return done;
}
