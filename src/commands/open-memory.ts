/**
 * A memory spec to a local memory the read commands can open, or a FunesError saying why not.
 */
import { type LocalMemory, resolveMemorySpec } from "../memory/index.js";
import { FunesError } from "./errors.js";

/** Where funes lives, for resolving specs. */
export interface HomeContext {
  funesHome: string;
  home: string;
}

/** The local memory a spec names; Hub memories are refused until Hub sync exists. */
export function localMemoryFor(spec: string | undefined | null, ctx: HomeContext): LocalMemory {
  const r = resolveMemorySpec(spec, ctx);
  if (r.kind === "remote")
    throw new FunesError(
      "bad_input",
      `"${r.uri}" is a Hub memory; this build reads local memories only — pass a memory directory or "local"`,
    );
  return r.memory;
}

/** The message for a memory with no index. */
export function noIndexMessage(memory: LocalMemory): string {
  return memory.isDefault
    ? "no index yet — run `funes index` to build one, then recall your own history"
    : `no index found at ${memory.dir}`;
}
