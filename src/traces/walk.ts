/**
 * Finding transcript files under a folder (docs/transcript-formats.md#sources-and-units): a recursive walk
 * that never enters a linked folder, unreadable folders passed over, sorted by path. An entry with a
 * transcript's name that is not a regular file (a link, a FIFO, a socket, a device) is listed too, unstamped,
 * so that reading it is refused with its reason (`agent-file.ts`) and the run reports it, where the reference
 * passed it over silently; nothing is ever read through it.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Transcript entries under `root` for which `wanted(name)` holds (or `root` itself when it is a file). */
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
      else if (wanted(e.name, dir)) out.push(p);
    }
  };
  await visit(root);
  return out.sort();
}

/** A file found by a walk, with its change stamp and size. */
export interface StampedFile {
  path: string;
  mtime: number;
  /**
   * `size:mtimeSecs`, the reference's signature; null when the entry could not be stat'ed or is not a
   * regular file (never recorded: it is reported again on every run).
   */
  signature: string | null;
  bytes: number;
}

/**
 * Stats every entry itself (a link is not followed; `root`, a file the user named, is), newest first (the
 * reference's unit order).
 */
export async function stampFiles(files: string[], root?: string): Promise<StampedFile[]> {
  const stamped = await Promise.all(
    files.map(async (path) => {
      try {
        const s = path === root ? await stat(path) : await lstat(path);
        if (!s.isFile()) return { path, mtime: s.mtimeMs, signature: null, bytes: 0 };
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
