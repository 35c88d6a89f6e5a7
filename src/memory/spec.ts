/**
 * Memory specs (docs/commands.md#naming-a-memory): `local` or nothing → the default local memory; `hf://…` or
 * `org/repo` (no leading `/`, `.` or `~`, contains `/`) → a Hub memory; anything else → a local memory
 * directory (the folder holding `chunks.lance`).
 */
import { statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { FunesError } from "./errors.js";
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
  if (s.startsWith("hf://")) return { kind: "remote", uri: hubUriOf(s) };
  if (/^https?:\/\//i.test(s)) throw badSpec(s, "it is a web address", webAddressHint(s));
  if (!/^[/.~]/.test(s) && s.includes("/") && !isAbsolute(s)) {
    // `datasets/acme/x` (the Hub's own path) is acme/x: no Hub account is named "datasets".
    const rest = s.replace(/^datasets\//, "");
    if (/^(models|spaces)\//.test(rest))
      throw badSpec(
        s,
        `memories are Hub datasets, not ${rest.split("/")[0]}`,
        rest.split("/").slice(1).join("/"),
      );
    const segs = rest.split("/").filter((x) => x !== "");
    if (segs.length < 2) throw badSpec(s, "a Hub memory is owner/name");
    return { kind: "remote", uri: hubUriOf(`hf://datasets/${segs.join("/")}`) };
  }
  if (/^~[^/]/.test(s)) throw badSpec(s, "funes expands only ~/ (your own home)", "the full path");
  const given = s === "~" ? ctx.home : s.startsWith("~/") ? join(ctx.home, s.slice(2)) : resolve(s);
  // The table folder itself (`…/memory/chunks.lance`) names the memory that holds it.
  const dir = basename(given) === "chunks.lance" ? dirname(given) : given;
  if (isFile(dir)) throw badSpec(s, "it is a file", "the folder that holds chunks.lance");
  return { kind: "local", memory: localMemory(dir, false) };
}

/** True when `path` exists and is not a folder. */
function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `hf://datasets/o/n/` as `hf://datasets/o/n`; another repo type refused, naming the dataset form. */
function hubUriOf(uri: string): string {
  const m = /^hf:\/\/(models|spaces)\/(.*)$/.exec(uri);
  if (m !== null) throw badSpec(uri, `memories are Hub datasets, not ${m[1]}`, `hf://datasets/${m[2]}`);
  return uri.replace(/\/+$/, "");
}

/** What to write instead of a pasted web address of a dataset. */
function webAddressHint(s: string): string {
  const m = /\/datasets\/([^/?#]+)\/([^/?#]+)/.exec(s);
  return m === null ? DEFAULT_NEXT : `${m[1]}/${m[2]}`;
}

const DEFAULT_NEXT =
  "owner/name (e.g. acme/funes-memory), hf://datasets/owner/name[/path], a memory folder, or local";

/** A spec funes cannot read: why, and what to write instead (by default, the shapes a memory takes). */
function badSpec(spec: string, why: string, next = DEFAULT_NEXT): FunesError {
  return new FunesError("bad_input", `"${spec}" is not a memory: ${why} — write ${next}`);
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
