/**
 * Finding transcript files under a folder (shared/spec/core.md §1.3): a recursive walk, regular files
 * only (symlinks are not followed), unreadable folders passed over, sorted by path.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Transcript files under `root` for which `wanted(name)` holds (or `root` itself when it is a file). */
export async function walkFiles(
  root: string,
  wanted: (name: string, dir: string) => boolean,
): Promise<string[]> {
  const s = await stat(root);
  if (s.isFile()) return [root];
  const out: string[] = [];
  const visit = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await visit(p);
      else if (e.isFile() && wanted(e.name, dir)) out.push(p);
    }
  };
  await visit(root);
  return out.sort();
}

/** A file found by a walk, with its change stamp and size. */
export interface StampedFile {
  path: string;
  mtime: number;
  /** `size:mtimeSecs`, the reference's signature; null when the file could not be stat'ed. */
  signature: string | null;
  bytes: number;
}

/** Stats every file, newest first (the reference's unit order). */
export async function stampFiles(files: string[]): Promise<StampedFile[]> {
  const stamped = await Promise.all(
    files.map(async (path) => {
      try {
        const s = await stat(path);
        return {
          path,
          mtime: s.mtimeMs,
          signature: `${s.size}:${Math.floor(s.mtimeMs / 1000)}`,
          bytes: s.size,
        };
      } catch {
        return { path, mtime: 0, signature: null, bytes: 0 };
      }
    }),
  );
  return stamped.sort((a, b) => b.mtime - a.mtime);
}
