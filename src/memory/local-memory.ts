/**
 * A memory on this machine: a directory holding `chunks.lance`. Its state is decided here, once, as a
 * value commands switch over.
 */
import { LocalStore, storeExists } from "../local/index.js";

/** What a memory is in, for the commands that read it. */
export type MemoryState = { kind: "ready"; chunks: number } | { kind: "empty" } | { kind: "missing" };

/** A local memory directory and how it is named in output. */
export interface LocalMemory {
  kind: "local";
  dir: string;
  /** Shown in `→ get … --memory <label>` lines and status. */
  label: string;
  /** True for `$FUNES_HOME/memory` (its messages point at `funes index` rather than a path). */
  isDefault: boolean;
}

/** The memory at `dir`. */
export function localMemory(dir: string, isDefault: boolean): LocalMemory {
  return { kind: "local", dir, label: dir, isDefault };
}

/** Ready (with rows), empty (a table without rows), or missing (no table). */
export async function memoryState(m: LocalMemory): Promise<MemoryState> {
  if (!storeExists(m.dir)) return { kind: "missing" };
  const store = await LocalStore.open(m.dir);
  if (store === null) return { kind: "missing" };
  try {
    const chunks = await store.rowCount();
    return chunks === 0 ? { kind: "empty" } : { kind: "ready", chunks };
  } finally {
    store.close();
  }
}
