/**
 * Memory specs (shared/spec/remote.md §1): `local` or nothing → the default local memory; `hf://…` or
 * `org/repo` (no leading `/`, `.` or `~`, contains `/`) → a Hub memory; anything else → a local memory
 * directory (the folder holding `chunks.lance`).
 */
import { isAbsolute, join, resolve } from "node:path";
import { type LocalMemory, localMemory } from "./memory.js";
import { funesPaths } from "./paths.js";

/** What a spec names. */
export type ResolvedSpec = { kind: "local"; memory: LocalMemory } | { kind: "remote"; uri: string };

/** Resolves a spec against a funes home and the user's home (for `~/`). */
export function resolveMemorySpec(
  spec: string | undefined | null,
  ctx: { funesHome: string; home: string },
): ResolvedSpec {
  const s = spec?.trim() ?? "";
  if (s === "" || s === "local")
    return { kind: "local", memory: localMemory(funesPaths(ctx.funesHome).memory, true) };
  if (s.startsWith("hf://")) return { kind: "remote", uri: s };
  if (!/^[/.~]/.test(s) && s.includes("/") && !isAbsolute(s))
    return { kind: "remote", uri: `hf://datasets/${s}` };
  const dir = s.startsWith("~/") ? join(ctx.home, s.slice(2)) : resolve(s);
  return { kind: "local", memory: localMemory(dir, false) };
}

/**
 * Values given as a repeated flag and/or comma lists (`--memory a --memory b,c`, a tool's "a,b"),
 * flattened and trimmed; blanks dropped.
 */
export function listValues(value: unknown): string[] {
  const given = Array.isArray(value)
    ? value
    : value === undefined || value === null || value === false
      ? []
      : [value];
  return given
    .map(String)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}
