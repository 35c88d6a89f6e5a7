/**
 * A remote memory at one commit, presented to Lance as a local folder. Files are fetched whole into the
 * Hugging Face cache (content-addressed: a file is downloaded once, ever), then the folder is made of hard
 * links to those blobs: Lance cannot open a symlinked manifest (it takes the link's size), and hard links
 * cost no space. A view is marked complete only after every file is linked, so a half-fetched view is never
 * opened; the next command finishes it.
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fetchToCache, type HubClient, type HubLocation, lancePath, listTree } from "../remote/index.js";

const MARKER = ".funes-complete";

/** A materialised view: `dir` holds `chunks.lance`. */
export interface SnapshotView {
  dir: string;
  sha: string;
  files: number;
}

/** Where views of a repo live. */
function repoViews(viewsRoot: string, loc: HubLocation): string {
  return join(
    viewsRoot,
    loc.repo.replace("/", "--"),
    loc.prefix === "" ? "_root" : loc.prefix.replaceAll("/", "--"),
  );
}

/** Progress while fetching a view. */
export interface ViewProgress {
  done: number;
  total: number;
  file: string;
}

/**
 * The view of `loc` at `sha`, fetching what the cache lacks. Null when the commit holds no `chunks.lance`
 * (an empty remote). An existing complete view costs no request at all.
 */
export async function materializeView(o: {
  client: HubClient;
  hubCache: string;
  viewsRoot: string;
  loc: HubLocation;
  sha: string;
  onProgress?: (p: ViewProgress) => void;
}): Promise<SnapshotView | null> {
  const dir = join(repoViews(o.viewsRoot, o.loc), o.sha);
  if (existsSync(join(dir, MARKER))) return { dir, sha: o.sha, files: -1 };
  const base = lancePath(o.loc);
  const files = await listTree(o.client, o.loc.repo, o.sha, base);
  if (files.length === 0) return null;
  rmSync(dir, { recursive: true, force: true });
  let done = 0;
  for (const f of files) {
    const blob = await fetchWhole(o, f);
    const target = join(dir, "chunks.lance", relative(base, f.path));
    mkdirSync(dirname(target), { recursive: true });
    try {
      linkSync(blob, target);
    } catch {
      copyFileSync(blob, target); // another filesystem: a copy is the price
    }
    o.onProgress?.({ done: ++done, total: files.length, file: f.path });
  }
  writeFileSync(join(dir, MARKER), JSON.stringify({ sha: o.sha, files: files.length }));
  return { dir, sha: o.sha, files: files.length };
}

/** A file in the cache is shorter or longer than the Hub says, even after fetching it again. */
export class IncompleteDownloadError extends Error {}

/**
 * The cached blob of `f`, checked against the size the Hub lists: a blob cut short (an interrupted download,
 * a damaged cache) is removed and fetched again once.
 */
async function fetchWhole(
  o: { client: HubClient; hubCache: string; loc: HubLocation; sha: string },
  f: { path: string; size: number },
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const cached = await fetchToCache(o.client, o.hubCache, o.loc.repo, o.sha, f.path);
    const blob = realpathSync(cached);
    const size = statSync(blob).size;
    if (size === f.size) return blob;
    rmSync(blob, { force: true });
    rmSync(cached, { force: true });
    if (attempt === 2)
      throw new IncompleteDownloadError(
        `${f.path} of ${o.loc.repo} arrived with ${size} of ${f.size} bytes — run the command again`,
      );
  }
}

/**
 * Keeps a published stage as the view of the commit it became: the next read or push of that commit then
 * needs no download at all (the stage holds exactly the commit's files).
 */
export function adoptAsView(
  stageDir: string,
  viewsRoot: string,
  loc: HubLocation,
  sha: string,
): SnapshotView {
  const dir = join(repoViews(viewsRoot, loc), sha);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  renameSync(stageDir, dir);
  writeFileSync(join(dir, MARKER), JSON.stringify({ sha, files: -1, from: "push" }));
  return { dir, sha, files: -1 };
}

/** The complete view of `loc` at `sha` already on this machine, or null; never a request. */
export function cachedView(viewsRoot: string, loc: HubLocation, sha: string): SnapshotView | null {
  const dir = join(repoViews(viewsRoot, loc), sha);
  return existsSync(join(dir, MARKER)) ? { dir, sha, files: -1 } : null;
}

/** The most recently completed view of `loc`, for reading while the Hub is unreachable. */
export function newestView(viewsRoot: string, loc: HubLocation): SnapshotView | null {
  const root = repoViews(viewsRoot, loc);
  if (!existsSync(root)) return null;
  let best: { sha: string; t: number } | null = null;
  for (const sha of readdirSync(root)) {
    const marker = join(root, sha, MARKER);
    if (!existsSync(marker)) continue;
    const t = statSync(marker).mtimeMs;
    if (best === null || t > best.t) best = { sha, t };
  }
  return best === null ? null : { dir: join(root, best.sha), sha: best.sha, files: -1 };
}
