/**
 * What a memory is: a memory on this machine, a Hub memory read at one commit (through its cached view), or
 * a federated set of them read as one. Only this layer tells local from remote: commands switch over
 * `kind`, never over a label's spelling.
 */

/** A memory directory on this machine (the folder holding `chunks.lance`). */
export interface LocalMemory {
  kind: "local";
  dir: string;
  /** Shown in `→ get … --memory <label>` lines and status: the directory. */
  label: string;
  /** True for `$FUNES_HOME/memory` (its messages point at `funes index` rather than a path). */
  isDefault: boolean;
}

/** A Hub memory at one commit, read through its cached view (a local folder named by the commit). */
export interface HubMemory {
  kind: "hub";
  /** The cached view's folder (holding `chunks.lance`). */
  dir: string;
  /** The memory's `hf://datasets/…` URI as given: shown in output, taken back by `get --memory`. */
  label: string;
  /** The commit read. */
  sha: string;
  isDefault: false;
}

/** One memory: local or a Hub memory at a commit. */
export type SingleMemory = LocalMemory | HubMemory;

/** The memory at `dir`. */
export function localMemory(dir: string, isDefault: boolean): LocalMemory {
  return { kind: "local", dir, label: dir, isDefault };
}

/** The Hub memory `uri` at commit `sha`, whose cached view is `dir`. */
export function hubMemory(uri: string, view: { dir: string; sha: string }): HubMemory {
  return { kind: "hub", dir: view.dir, label: uri, sha: view.sha, isDefault: false };
}

/** The message for a memory with no index. */
export function noIndexMessage(memory: SingleMemory): string {
  return memory.isDefault
    ? "no index yet — run `funes index` to build one, then recall your own history"
    : `no index found at ${memory.dir} — give the folder that holds chunks.lance, owner/name for a Hub memory, or local`;
}
