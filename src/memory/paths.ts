/**
 * Where a funes home keeps things (shared/spec/core.md §3.1): the local memory, incremental state and the
 * writer lock.
 */
import { join } from "node:path";

/** Files and folders under `$FUNES_HOME`. */
export interface FunesPaths {
  home: string;
  /** The default local memory (holds `chunks.lance`). */
  memory: string;
  state: string;
  lock: string;
}

/** Paths under a funes home. */
export function funesPaths(funesHome: string): FunesPaths {
  return {
    home: funesHome,
    memory: join(funesHome, "memory"),
    state: join(funesHome, "state.json"),
    // Name kept from the reference so both tools contend for the same lock.
    lock: join(funesHome, "store.lock"),
  };
}
