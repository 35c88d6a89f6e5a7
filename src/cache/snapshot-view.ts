/**
 * A remote memory at one commit, presented to Lance as a local folder. Files are fetched whole into the
 * Hugging Face cache (content-addressed, each checked against the hash the Hub lists), then the folder is
 * made of hard links to those blobs: Lance cannot open a symlinked manifest (it takes the link's size), and
 * hard links cost no space. A view is built aside under a name of its own, its manifests are checked to
 * name nothing outside it, and only then is it marked complete and renamed into place: a reader never sees
 * a half-built view, and any number of processes may build the same one at once (the first rename wins,
 * the others use it).
 *
 * A view is slim (docs/publish-protocol.md, "What a reader downloads"): Lance opens a table's newest
 * manifest and reads only the files it names, so the view holds that manifest and those files (data,
 * deletion and index files), never older manifests, transactions, or data files no current fragment uses.
 * A manifest funes cannot read files from is fetched with everything else, as before, for the checks below
 * to judge.
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import {
  checkManifests,
  checkRowBounds,
  isManifestName,
  manifestTooLarge,
  newestManifestName,
  OversizeMemoryError,
  REQUIRED_COLUMNS,
  UnsafeManifestError,
  UnsupportedManifestError,
  versionFiles,
} from "../local/index.js";
import {
  type HubClient,
  type HubLocation,
  isCommitSha,
  ListingTooLongError,
  lancePath,
  listTree,
  type RemoteFile,
} from "../remote/index.js";
import { cachedBlob, DownloadCapError, keepAsBlobs, uniqueSuffix } from "./blob-store.js";

/** Marks a complete view; holds `{sha, files: {path: etag}, checked}`. */
export const MARKER = ".funes-complete";

/**
 * Marker version of views whose manifests were checked and whose files' hashes are recorded. Views with an
 * older marker (written before those checks) are built again.
 */
const CHECKED = 2;

/** The default download cap per memory, bytes: well above real memories (~1.7 KB per row). */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 4 * 1024 ** 3;

/** A materialised view: `dir` holds `chunks.lance`. */
export interface SnapshotView {
  dir: string;
  sha: string;
  files: number;
  /** Files the commit lists under the memory's folder (a slim view holds fewer), when known. */
  listed?: number | undefined;
}

/** What a complete view's marker records. */
export interface ViewMarker {
  sha: string;
  /** Repo-relative-to-view paths (`chunks.lance/…`) → the etag (sha256 or git blob sha) of their content. */
  files: Record<string, string>;
  checked: number;
  from?: "push";
  /** Files the commit lists under the memory's folder, when known. */
  listed?: number;
}

/** Reads a view's marker; null when absent, unreadable or from before the checks. */
export function readMarker(viewDir: string): ViewMarker | null {
  try {
    const m = JSON.parse(readFileSync(join(viewDir, MARKER), "utf8")) as Partial<ViewMarker>;
    return m.checked === CHECKED && typeof m.files === "object" && m.files !== null
      ? (m as ViewMarker)
      : null;
  } catch {
    return null;
  }
}

/** Where views of a repo live. */
export function repoViews(viewsRoot: string, loc: HubLocation): string {
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

/** What to do about a memory far larger inside than funes writes (a decompression bomb, or not a memory). */
const OVERSIZE_NEXT = "funes reads only memories shaped as it writes them; check who published it";

/** A Hub memory funes refuses to open: a manifest naming files outside it, or holding far more than funes writes. */
export class UnsafeMemoryError extends Error {}

/**
 * Moves a finished folder into place as `dir`. If another process got there first with a complete view,
 * ours is dropped and theirs used; a leftover without a marker (from an older funes) is moved aside first.
 */
function moveIntoPlace(built: string, dir: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      renameSync(built, dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "EISDIR") throw err;
      if (readMarker(dir) !== null) {
        rmSync(built, { recursive: true, force: true });
        return;
      }
      const aside = join(dirname(dir), `.trash-${uniqueSuffix()}`);
      try {
        renameSync(dir, aside);
      } catch {
        // someone else moved it: try again
      }
      rmSync(aside, { recursive: true, force: true });
    }
  }
  rmSync(built, { recursive: true, force: true });
  if (readMarker(dir) === null) throw new Error(`could not put the view of ${dir} in place`);
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
  /** Bytes a memory may hold before funes refuses to download it. */
  maxBytes?: number | undefined;
  onProgress?: (p: ViewProgress) => void;
}): Promise<SnapshotView | null> {
  if (!isCommitSha(o.sha)) throw new Error(`not a commit id: ${JSON.stringify(o.sha)}`);
  const root = repoViews(o.viewsRoot, o.loc);
  const dir = join(root, o.sha);
  const known = readMarker(dir);
  if (known !== null)
    return { dir, sha: o.sha, files: Object.keys(known.files).length, listed: known.listed };
  const base = lancePath(o.loc);
  const cap = o.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
  // A listing of more files than the cap can hold (each counts a block) is over it already: stop reading
  // it there, rather than hold an endless listing in memory first.
  const maxEntries = Math.floor(cap / MIN_FILE_BYTES);
  let files: Awaited<ReturnType<typeof listTree>>;
  try {
    files = await listTree({ client: o.client, repo: o.loc.repo, sha: o.sha, folder: base, maxEntries });
  } catch (err) {
    if (!(err instanceof ListingTooLongError)) throw err;
    throw new DownloadCapError(
      `${o.loc.uri} lists more than ${maxEntries} files, over the ${mib(cap)} MiB download cap (each file counts at least ${MIN_FILE_BYTES / 1024} KiB) — set FUNES_MAX_DOWNLOAD_MB to a larger number of MiB to read it`,
    );
  }
  if (files.length === 0) return null;
  const clash = listingClash(files.map((f) => f.path));
  if (clash !== null)
    throw new UnsafeMemoryError(
      `${o.loc.uri} lists ${clash} — funes builds a memory only from a listing where every file has one place`,
    );
  // A manifest is read whole and decoded: one larger than funes ever writes is refused before it is fetched.
  for (const f of files) {
    const big = isManifestName(f.path.slice(f.path.lastIndexOf("/") + 1)) ? manifestTooLarge(f.size) : null;
    if (big !== null) throw new UnsafeMemoryError(`${f.path} ${big.reason} — ${OVERSIZE_NEXT}`);
  }
  const wanted = await newestVersionOnly(o, files, base);
  // Every file takes at least a block on disk: a listing of a million empty files counts as 4 GiB.
  const total = wanted.reduce((n, f) => n + Math.max(f.size, MIN_FILE_BYTES), 0);
  if (total > cap)
    throw new DownloadCapError(
      `${o.loc.uri} holds ${mib(total)} MiB, over the ${mib(cap)} MiB download cap — set FUNES_MAX_DOWNLOAD_MB to a larger number of MiB to read it`,
    );
  const built = join(root, `.build-${o.sha}-${uniqueSuffix()}`);
  mkdirSync(built, { recursive: true });
  try {
    const recorded: Record<string, string> = {};
    let done = 0;
    for (const f of wanted) {
      const blob = await cachedBlob({
        client: o.client,
        hubCache: o.hubCache,
        repo: o.loc.repo,
        sha: o.sha,
        file: f,
      });
      const rel = join("chunks.lance", relative(base, f.path));
      const target = join(built, rel);
      mkdirSync(dirname(target), { recursive: true });
      try {
        linkSync(blob, target);
      } catch {
        copyFileSync(blob, target); // another filesystem: a copy is the price
      }
      recorded[rel] = f.etag;
      o.onProgress?.({ done: ++done, total: wanted.length, file: f.path });
    }
    try {
      checkManifests(join(built, "chunks.lance"), REQUIRED_COLUMNS);
    } catch (err) {
      if (!(err instanceof UnsafeManifestError)) throw err;
      throw new UnsafeMemoryError(
        err.kind === "columns"
          ? `${base}/${err.file} ${err.reason} — read it with the tool that wrote it`
          : err.kind === "oversize"
            ? `${base}/${err.file} ${err.reason} — ${OVERSIZE_NEXT}`
            : `${base}/${err.file} ${err.reason} — funes opens nothing outside a memory's own files`,
      );
    }
    // Bounded by what funes writes before anything reads it for real (a decompression bomb stops here).
    try {
      await checkRowBounds(built);
    } catch (err) {
      if (!(err instanceof OversizeMemoryError)) throw err;
      throw new UnsafeMemoryError(`${base} ${err.message} — ${OVERSIZE_NEXT}`);
    }
    const marker: ViewMarker = { sha: o.sha, files: recorded, checked: CHECKED, listed: files.length };
    writeFileSync(join(built, MARKER), JSON.stringify(marker));
    moveIntoPlace(built, dir);
  } finally {
    rmSync(built, { recursive: true, force: true });
  }
  return { dir, sha: o.sha, files: wanted.length, listed: files.length };
}

/**
 * The files of `files` (a commit's listing under the table folder `base`) that opening its newest version
 * needs: that manifest (fetched first, to read) and the data, deletion and index files it names. Every file
 * when the manifests cannot be read that way (no manifest, an unusual naming, a manifest that does not
 * decode): the checks that follow then say what is wrong, as they always did.
 */
async function newestVersionOnly(
  o: { client: HubClient; hubCache: string; loc: HubLocation; sha: string },
  files: RemoteFile[],
  base: string,
): Promise<RemoteFile[]> {
  const rel = (f: RemoteFile) => f.path.slice(base.length + 1);
  // A manifest anywhere but `_versions/` (an old table's `_latest.manifest`, a branch's, a copy) is not
  // what funes writes: fetched whole, the manifest check names it.
  const stray = files.some((f) => isManifestName(basename(f.path)) && !/^_versions\/[^/]+$/.test(rel(f)));
  if (stray) return files;
  const versions = files.filter((f) => rel(f).startsWith("_versions/")).map((f) => rel(f).slice(10));
  let name: string | null;
  try {
    name = newestManifestName(versions);
  } catch (err) {
    if (err instanceof UnsupportedManifestError) return files;
    throw err;
  }
  const manifest = files.find((f) => rel(f) === `_versions/${name}`);
  if (name === null || manifest === undefined) return files;
  const blob = await cachedBlob({
    client: o.client,
    hubCache: o.hubCache,
    repo: o.loc.repo,
    sha: o.sha,
    file: manifest,
  });
  let version: ReturnType<typeof versionFiles>;
  try {
    version = versionFiles(`_versions/${name}`, readFileSync(blob));
  } catch {
    // Undecodable, oversized or naming what funes does not read: fetched whole, for the checks to judge.
    return files;
  }
  // A transaction only says how a version was made; readers and writers never read it.
  return files.filter((f) => version.has(rel(f)) && !rel(f).startsWith("_transactions/"));
}

const mib = (n: number) => (n / 1048576).toFixed(1);

/** What one file counts against the download cap at least (a filesystem block, bytes). */
const MIN_FILE_BYTES = 4096;

/**
 * A listing that cannot be laid out as files: a path listed twice, two paths that differ only in case (one
 * file on a case-insensitive disk, as macOS and Windows have; Lance writes lower-case names), or a path that
 * is a file and also a folder of other files. Null when every file has one place; else the clash, quoted.
 */
export function listingClash(paths: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const p of paths) {
    const key = p.toLowerCase();
    if (seen.has(key)) return `${JSON.stringify(p)} twice (letter case aside)`;
    seen.add(key);
  }
  for (const p of paths) {
    const segs = p.toLowerCase().split("/");
    for (let i = 1; i < segs.length; i++) {
      const folder = segs.slice(0, i).join("/");
      if (seen.has(folder))
        return `${JSON.stringify(folder)} as a file and as the folder of ${JSON.stringify(p)}`;
    }
  }
  return null;
}

/**
 * Keeps a published stage as the view of the commit it became: the next read or push of that commit then
 * needs no download at all (the stage holds the files of the commit's newest version). `etags` records what
 * the stage's files hash to (those it was built from, and those it added); `listed`, how many files the
 * commit lists under the memory's folder, when the caller knows.
 */
export function adoptAsView(
  stageDir: string,
  viewsRoot: string,
  loc: HubLocation,
  sha: string,
  o: {
    etags?: Record<string, string>;
    listed?: number | null;
    /** Also keep its files as blobs of the repo in this Hugging Face cache (see `keepAsBlobs`). */
    hubCache?: string;
  } = {},
): SnapshotView {
  if (!isCommitSha(sha)) throw new Error(`not a commit id: ${JSON.stringify(sha)}`);
  const dir = join(repoViews(viewsRoot, loc), sha);
  mkdirSync(dirname(dir), { recursive: true });
  const listed = o.listed ?? undefined;
  const marker: ViewMarker = {
    sha,
    files: o.etags ?? {},
    checked: CHECKED,
    from: "push",
    ...(listed === undefined ? {} : { listed }),
  };
  writeFileSync(join(stageDir, MARKER), JSON.stringify(marker));
  moveIntoPlace(stageDir, dir);
  if (o.hubCache !== undefined)
    keepAsBlobs(
      o.hubCache,
      loc.repo,
      Object.entries(marker.files).map(([rel, sha256]) => ({ path: join(dir, rel), sha256 })),
    );
  return { dir, sha, files: -1, listed };
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
    if (!isCommitSha(sha) || readMarker(join(root, sha)) === null) continue;
    const t = statSync(join(root, sha, MARKER)).mtimeMs;
    if (best === null || t > best.t) best = { sha, t };
  }
  return best === null ? null : { dir: join(root, best.sha), sha: best.sha, files: -1 };
}
