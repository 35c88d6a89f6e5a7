/**
 * Where a funes home keeps things (docs/memory-format.md#where-a-funes-home-keeps-things): the local memory,
 * incremental state and the writer lock.
 */
import { join } from "node:path";
import type { HubLocation } from "../remote/index.js";

/** Files and folders under `$FUNES_HOME`. */
export interface FunesPaths {
  home: string;
  /** The default local memory (holds `chunks.lance`). */
  memory: string;
  state: string;
  lock: string;
}

/** The name of this machine's files about a Hub memory (receipts, curation): `owner--name[--prefix]`. */
export function remoteFileName(loc: HubLocation): string {
  return `${loc.repo.replace("/", "--")}${loc.prefix === "" ? "" : `--${loc.prefix.replaceAll("/", "--")}`}`;
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
