/**
 * What the cache holds for Hub memories, and pruning it: per memory, its views (one per commit) and the
 * bytes of the Hugging Face cache blobs they use. Pruning keeps each memory's newest view; blobs no kept
 * view uses are removed from that dataset's HF cache folder (with the snapshot links that pointed at them).
 */
import { existsSync, lstatSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { unreferencedDataFiles } from "../local/index.js";

/** One cached Hub memory. */
export interface CachedMemory {
  /** `owner--name/<prefix or _root>` as stored. */
  key: string;
  views: { sha: string; completedAt: number }[];
  /** Bytes of the files its newest view holds. */
  bytes: number;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const st = lstatSync(p);
    return st.isDirectory() ? filesUnder(p) : [p];
  });
}

/** The views under a views root, newest first per memory. */
export function listCachedMemories(viewsRoot: string): CachedMemory[] {
  if (!existsSync(viewsRoot)) return [];
  const out: CachedMemory[] = [];
  for (const repo of readdirSync(viewsRoot))
    for (const place of readdirSync(join(viewsRoot, repo))) {
      const root = join(viewsRoot, repo, place);
      const views = readdirSync(root)
        .filter((sha) => existsSync(join(root, sha, ".funes-complete")))
        .map((sha) => ({ sha, completedAt: statSync(join(root, sha, ".funes-complete")).mtimeMs }))
        .sort((a, b) => b.completedAt - a.completedAt);
      const newest = views[0];
      const bytes =
        newest === undefined
          ? 0
          : filesUnder(join(root, newest.sha)).reduce((n, f) => n + statSync(f).size, 0);
      out.push({ key: `${repo}/${place}`, views, bytes });
    }
  return out;
}

/** What pruning removed. */
export interface PruneResult {
  views: number;
  /** Files of kept views that no current row uses (rows a `funes forget` took out). */
  unused: number;
  blobs: number;
  bytes: number;
}

/**
 * Keeps each memory's newest view; removes older views, incomplete ones, and HF-cache blobs of those
 * datasets that no remaining view and no snapshot link uses. `onlyRepo` (`owner/name`) limits it to one repo.
 */
export function pruneCache(viewsRoot: string, hubCache: string, onlyRepo?: string): PruneResult {
  const result: PruneResult = { views: 0, unused: 0, blobs: 0, bytes: 0 };
  const keptInodes = new Set<number>();
  const repos = new Set<string>();
  for (const m of listCachedMemories(viewsRoot)) {
    if (onlyRepo !== undefined && m.key.split("/")[0] !== onlyRepo.replace("/", "--")) continue;
    const root = join(viewsRoot, m.key);
    repos.add(m.key.split("/")[0] as string);
    const newest = m.views[0]?.sha;
    for (const sha of readdirSync(root)) {
      if (sha === `${newest}.ann`) continue; // the newest view's side index (federated recall)
      if (sha === newest) {
        for (const f of unreferencedDataFiles(join(root, sha))) {
          rmSync(f, { force: true });
          result.unused++;
        }
        for (const f of filesUnder(join(root, sha))) keptInodes.add(statSync(f).ino);
        continue;
      }
      rmSync(join(root, sha), { recursive: true, force: true });
      if (!sha.includes(".")) result.views++;
    }
  }
  for (const repo of repos) {
    const cacheDir = join(hubCache, `datasets--${repo}`);
    // A blob stays if a kept view hard-links it; blobs only older commits used go, with their snapshot links.
    const snapshots = join(cacheDir, "snapshots");
    for (const blob of filesUnder(join(cacheDir, "blobs"))) {
      const st = statSync(blob);
      if (keptInodes.has(st.ino)) continue;
      rmSync(blob, { force: true });
      result.blobs++;
      result.bytes += st.size;
    }
    // Snapshot links that now point nowhere are removed too.
    for (const f of filesUnder(snapshots))
      if (lstatSync(f).isSymbolicLink() && !existsSync(f)) rmSync(f, { force: true });
  }
  return result;
}
