/**
 * `--memory` values to memories. `local` or nothing → the default local memory; a path → that memory
 * directory. Hub specs (`org/repo`, `hf://…`) are recognised and refused until Hub sync exists.
 */
import { isAbsolute, join, resolve } from "node:path";
import { FunesError } from "../commands/index.js";
import { funesPaths, type LocalMemory, localMemory } from "../memory/index.js";
import type { CliConfig } from "./config.js";

/** Resolves a memory spec. */
export function resolveMemorySpec(spec: string | undefined, cfg: CliConfig): LocalMemory {
  const s = spec?.trim() ?? "";
  if (s === "" || s === "local") return localMemory(funesPaths(cfg.funesHome).memory, true);
  const remote = s.startsWith("hf://") || (!/^[/.~]/.test(s) && s.includes("/") && !isAbsolute(s));
  if (remote)
    throw new FunesError(
      "bad_input",
      `"${s}" names a Hub memory; this build reads local memories only — pass a memory directory or "local"`,
    );
  const dir = s.startsWith("~/") ? join(cfg.home, s.slice(2)) : resolve(s);
  return localMemory(dir, false);
}
