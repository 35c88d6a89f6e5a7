/**
 * What the cache holds for Hub memories, checking it, and pruning it: per memory, its views (one per
 * commit) and the bytes of the Hugging Face cache blobs they use. Verifying hashes every view file against
 * the etag its marker recorded and every blob against its own name (sha256 or git blob sha). Pruning keeps
 * each memory's newest view, removes older ones, leftovers of processes that died (views built aside,
 * half-downloaded blobs), and everything that fails verification; blobs no kept view uses are removed
 * from that dataset's HF cache folder (with the snapshot links that pointed at them). Files that are not
 * funes's (a `.DS_Store`) are passed over.
 */
import { existsSync, lstatSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { unreferencedDataFiles } from "../local/index.js";
import { isCommitSha } from "../remote/index.js";
import { blobIntact, repoCacheDir } from "./blob-store.js";
import { processGone } from "./leftovers.js";
import { MARKER, readMarker } from "./snapshot-view.js";

/** One cached Hub memory. */
export interface CachedMemory {
  /** `owner--name/<prefix or _root>` as stored. */
  key: string;
  views: { sha: string; completedAt: number }[];
  /** Bytes of the files its newest view holds. */
  bytes: number;
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Subfolders of `dir`, skipping files and names starting with a dot. */
function subdirs(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir).filter((n) => !n.startsWith(".") && isDir(join(dir, n)));
}

function filesUnder(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return isDir(p) ? filesUnder(p) : [p];
  });
}

/** The views under a views root, newest first per memory. */
export function listCachedMemories(viewsRoot: string): CachedMemory[] {
  const out: CachedMemory[] = [];
  for (const repo of subdirs(viewsRoot))
    for (const place of subdirs(join(viewsRoot, repo))) {
      const root = join(viewsRoot, repo, place);
      const views = subdirs(root)
        .filter((sha) => isCommitSha(sha) && existsSync(join(root, sha, MARKER)))
        .map((sha) => ({ sha, completedAt: statSync(join(root, sha, MARKER)).mtimeMs }))
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

/** A cached file that does not hash to what it should. */
export interface VerifyFailure {
  /** `view` (a file of a view) or `blob` (a file of the HF cache). */
  kind: "view" | "blob";
  /** The file, as a path on this machine. */
  path: string;
  /** The view folder it belongs to (views only). */
  view?: string;
}

/** What verifying found: files checked, and those that failed. */
export interface VerifyResult {
  files: number;
  failures: VerifyFailure[];
}

/** The repos (`owner--name`) that have views. */
function viewRepos(viewsRoot: string): string[] {
  return subdirs(viewsRoot);
}

/** Re-hashes every file of every view and every blob of the datasets they come from. */
export async function verifyCache(viewsRoot: string, hubCache: string): Promise<VerifyResult> {
  const result: VerifyResult = { files: 0, failures: [] };
  for (const m of listCachedMemories(viewsRoot))
    for (const v of m.views) {
      const dir = join(viewsRoot, m.key, v.sha);
      const marker = readMarker(dir);
      if (marker === null) continue; // from before hashes were recorded: rebuilt on its next read
      for (const [rel, etag] of Object.entries(marker.files)) {
        const path = join(dir, rel);
        result.files++;
        if (!existsSync(path) || !(await blobIntact(path, etag)))
          result.failures.push({ kind: "view", path, view: dir });
      }
    }
  for (const repo of viewRepos(viewsRoot)) {
    const blobs = join(hubCache, `datasets--${repo}`, "blobs");
    if (!isDir(blobs)) continue;
    for (const name of readdirSync(blobs)) {
      if (name.includes(".")) continue; // a download in progress, or not ours
      const path = join(blobs, name);
      result.files++;
      if (!(await blobIntact(path, name))) result.failures.push({ kind: "blob", path });
    }
  }
  return result;
}

/** What pruning removed. */
export interface PruneResult {
  views: number;
  /** Files of kept views that no current row uses (rows a `funes forget` took out). */
  unused: number;
  blobs: number;
  bytes: number;
  /** Leftovers of processes that died (views built aside, stages, partial downloads). */
  leftovers: number;
  /** Files that failed verification (their views and blobs were removed). */
  damaged: number;
}

/**
 * Keeps each memory's newest intact view; removes older views, incomplete ones, dead processes'
 * leftovers, whatever fails verification, data files of the kept views that no current row uses, and
 * HF-cache blobs of those datasets that no remaining view and no snapshot link uses. `onlyRepo`
 * (`owner/name`) limits it to one repo.
 */
export async function pruneCache(
  viewsRoot: string,
  hubCache: string,
  onlyRepo?: string,
): Promise<PruneResult> {
  const result: PruneResult = { views: 0, unused: 0, blobs: 0, bytes: 0, leftovers: 0, damaged: 0 };
  const mine = (key: string) => onlyRepo === undefined || key === onlyRepo.replace("/", "--");
  const verified = await verifyCache(viewsRoot, hubCache);
  result.damaged = verified.failures.length;
  const damagedViews = new Set(verified.failures.flatMap((f) => (f.view === undefined ? [] : [f.view])));
  for (const f of verified.failures) if (f.kind === "blob") rmSync(f.path, { force: true });
  const keptInodes = new Set<number>();
  for (const m of listCachedMemories(viewsRoot)) {
    if (!mine(m.key.split("/")[0] as string)) continue;
    const root = join(viewsRoot, m.key);
    const newest = m.views.find((v) => !damagedViews.has(join(root, v.sha)))?.sha;
    for (const name of readdirSync(root)) {
      const path = join(root, name);
      if (name.startsWith(".")) {
        // `.build-<sha>-<pid>-…` of a process that died, `.trash-…` a crash left behind
        if ((name.startsWith(".build-") || name.startsWith(".trash-")) && processGone(name)) {
          rmSync(path, { recursive: true, force: true });
          result.leftovers++;
        }
        continue;
      }
      if (!isDir(path)) continue; // a stray file: not ours to judge
      if (name === `${newest}.ann`) continue; // the newest view's side index (federated recall)
      if (name === newest) {
        for (const f of unreferencedDataFiles(path)) {
          rmSync(f, { force: true });
          result.unused++;
        }
        for (const f of filesUnder(path)) keptInodes.add(statSync(f).ino);
        continue;
      }
      rmSync(path, { recursive: true, force: true });
      if (!name.includes(".")) result.views++;
    }
  }
  for (const repo of viewRepos(viewsRoot)) {
    if (!mine(repo)) continue;
    const cacheDir = repoCacheDir(hubCache, repo.replace("--", "/"));
    // A blob stays if a kept view hard-links it; blobs only older commits used go, with their snapshot links.
    for (const blob of filesUnder(join(cacheDir, "blobs"))) {
      const name = blob.slice(blob.lastIndexOf("/") + 1);
      if (name.endsWith(".incomplete")) {
        if (processGone(name)) {
          rmSync(blob, { force: true });
          result.leftovers++;
        }
        continue;
      }
      const st = statSync(blob);
      if (keptInodes.has(st.ino)) continue;
      rmSync(blob, { force: true });
      result.blobs++;
      result.bytes += st.size;
    }
    // Snapshot links that now point nowhere are removed too.
    for (const f of filesUnder(join(cacheDir, "snapshots")))
      if (lstatSync(f).isSymbolicLink() && !existsSync(f)) rmSync(f, { force: true });
  }
  return result;
}
