/**
 * A writable copy of a remote memory's view to publish from. Files are hard links (Lance never writes into
 * an existing data, index or manifest file), except `latest_version_hint.json`, which Lance rewrites and
 * is therefore copied so the cached blob it came from stays intact. After Lance appends, the files the
 * copy gained are exactly what a commit must add.
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { processGone } from "./leftovers.js";
import { readMarker } from "./snapshot-view.js";

const HINT = "latest_version_hint.json";

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** A staged copy: the folder holding `chunks.lance`, and the paths (relative to it) it started with. */
export interface Stage {
  dir: string;
  base: Set<string>;
}

/** Copies the view folder `from` (holding `chunks.lance`, or null for a first publish) into `to`. */
export function stageFrom(from: string | null, to: string): Stage {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const base = new Set<string>();
  if (from === null) return { dir: to, base };
  for (const src of walk(join(from, "chunks.lance"))) {
    const rel = relative(from, src);
    const dst = join(to, rel);
    mkdirSync(dirname(dst), { recursive: true });
    if (basename(src) === HINT) copyFileSync(src, dst);
    else
      try {
        linkSync(src, dst);
      } catch {
        copyFileSync(src, dst);
      }
    base.add(rel);
  }
  return { dir: to, base };
}

/**
 * What a memory is made of: the table's own folders. Lance also leaves by-products in the folders it opens
 * (`connect()` makes `__manifest/`, a namespace dataset, beside the table; the version hint is rewritten
 * in place): they are not part of the memory and are never published.
 */
const MEMORY_FILE = /^chunks\.lance\/(?:data|_versions|_transactions|_indices|_deletions)\//;

/**
 * Files the stage gained since it was made (paths relative to its folder): only the table's own files,
 * never the version hint nor anything beside the table.
 */
export function addedFiles(stage: Stage): string[] {
  return walk(join(stage.dir, "chunks.lance"))
    .map((p) => relative(stage.dir, p))
    .filter((rel) => !stage.base.has(rel) && basename(rel) !== HINT && MEMORY_FILE.test(rel))
    .sort();
}

/**
 * What each file of a stage hashes to, for its view's marker: files it started with keep the etag the view
 * it came from recorded; files Lance added or rewrote are hashed (sha256) now.
 */
export function stageEtags(stage: Stage, fromView: string | null): Record<string, string> {
  const known = fromView === null ? {} : (readMarker(fromView)?.files ?? {});
  const out: Record<string, string> = {};
  for (const p of walk(join(stage.dir, "chunks.lance"))) {
    const rel = relative(stage.dir, p);
    const etag = stage.base.has(rel) && basename(rel) !== HINT ? known[rel] : undefined;
    out[rel] = etag ?? createHash("sha256").update(readFileSync(p)).digest("hex");
  }
  return out;
}

/**
 * Removes stages left by pushes that died (`kill -9`, a crash): folders under `stagingRoot` named
 * `<pid>-…` whose process no longer runs. Returns how many were removed.
 */
export function removeStaleStages(stagingRoot: string): number {
  if (!existsSync(stagingRoot)) return 0;
  let removed = 0;
  for (const name of readdirSync(stagingRoot)) {
    if (!processGone(name)) continue;
    rmSync(join(stagingRoot, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
