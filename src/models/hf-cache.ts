/**
 * Model files in the standard Hugging Face cache (`models--org--name/{blobs,snapshots,refs}`), shared with
 * Python tools: a model pulled by either is found by both.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ModelSpec } from "./specs.js";

const COMMIT = /^[0-9a-f]{40}$/;

/** `<hub cache>/models--org--name`. */
export function repoCacheDir(hubCache: string, repo: string): string {
  return join(hubCache, `models--${repo.replaceAll("/", "--")}`);
}

/** The commit a spec's revision names in the cache: itself when a commit, else what `refs/<rev>` records. */
export function cachedCommit(hubCache: string, spec: ModelSpec): string | null {
  if (COMMIT.test(spec.revision)) return spec.revision;
  try {
    const sha = readFileSync(join(repoCacheDir(hubCache, spec.repo), "refs", spec.revision), "utf8").trim();
    return COMMIT.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

/** Files of the spec missing from a folder. */
export function missingFiles(dir: string, spec: ModelSpec): string[] {
  return spec.files.filter((f) => !existsSync(join(dir, f)));
}

/** Where the model sits in the cache, complete; null when any file is missing. */
export function cachedModelDir(hubCache: string, spec: ModelSpec): string | null {
  const commit = cachedCommit(hubCache, spec);
  if (commit === null) return null;
  const dir = join(repoCacheDir(hubCache, spec.repo), "snapshots", commit);
  return missingFiles(dir, spec).length === 0 ? dir : null;
}

/** The commits of a repo's snapshots in the cache (any revision), newest-modified first; [] when none. */
export function cachedSnapshots(hubCache: string, repo: string): string[] {
  const dir = join(repoCacheDir(hubCache, repo), "snapshots");
  try {
    return readdirSync(dir)
      .filter((c) => COMMIT.test(c))
      .map((c) => ({ c, t: statSync(join(dir, c)).mtimeMs }))
      .sort((a, b) => b.t - a.t)
      .map((x) => x.c);
  } catch {
    return [];
  }
}

/** Whether `dir` is a folder. */
export function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
