/**
 * Blobs of Hub memories in the standard Hugging Face cache (`datasets--o--n/blobs/<etag>`, with
 * `snapshots/<sha>/<path>` links to them), shared with Python tools and Rust funes. Nothing enters the
 * cache unchecked: a download streams into a file of its own (so any number of processes can fetch the
 * same blob at once), is hashed as it arrives, and is linked into place only when its size and hash are
 * what the Hub lists (LFS sha256, else git blob sha). A blob already cached is hashed again before a new
 * view uses it, so a damaged copy is fetched again instead of served.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  createReadStream,
  existsSync,
  linkSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { type HubClient, openDownload, type RemoteFile } from "../remote/index.js";

/** A downloaded or cached file does not hash to what the Hub lists for it, even after fetching it again. */
export class IntegrityError extends Error {}

/** A memory is larger than the download cap allows. */
export class DownloadCapError extends Error {}

/** Hashes of some bytes, computed in one pass (the one asked for; the other is ""). */
interface Digest {
  size: number;
  sha256: string;
  gitOid: string;
}

/** Which hash a check needs: an LFS sha256, or a git blob sha1. */
type HashKind = "sha256" | "git";

/** The `kind` hash of a file on disk, streamed (the git blob header takes the size from stat). */
export async function hashFile(path: string, kind: HashKind): Promise<Digest> {
  const size = statSync(path).size;
  const h = kind === "sha256" ? createHash("sha256") : createHash("sha1").update(`blob ${size}\0`);
  let read = 0;
  for await (const c of createReadStream(path)) {
    h.update(c as Buffer);
    read += (c as Buffer).length;
  }
  const hex = h.digest("hex");
  return { size: read, sha256: kind === "sha256" ? hex : "", gitOid: kind === "git" ? hex : "" };
}

/** The hash a listed file is checked with. */
function kindOf(f: Pick<RemoteFile, "sha256">): HashKind {
  return f.sha256 !== null ? "sha256" : "git";
}

/** Whether a digest is what the listing says the file is. */
export function matches(d: Digest, f: Pick<RemoteFile, "size" | "sha256" | "gitOid">): boolean {
  if (d.size !== f.size) return false;
  if (f.sha256 !== null) return d.sha256 === f.sha256;
  return d.gitOid === f.gitOid;
}

/** Whether a blob named by its etag (64 hex: sha256; 40 hex: git blob sha) still has that content. */
export async function blobIntact(path: string, etag: string): Promise<boolean> {
  if (/^[0-9a-f]{64}$/.test(etag)) return (await hashFile(path, "sha256")).sha256 === etag;
  if (/^[0-9a-f]{40}$/.test(etag)) return (await hashFile(path, "git")).gitOid === etag;
  return true; // not a name funes gives; someone else's, left alone
}

/** The HF cache folder of a dataset repo. */
export function repoCacheDir(hubCache: string, repo: string): string {
  return join(hubCache, `datasets--${repo.replace("/", "--")}`);
}

/** A name no other process picks: for files written aside and renamed into place. */
export function uniqueSuffix(): string {
  return `${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Points `snapshots/<sha>/<path>` at the blob (relative, as the HF cache does), replacing atomically. */
function linkSnapshot(pointer: string, blob: string): void {
  mkdirSync(dirname(pointer), { recursive: true });
  const target = relative(dirname(pointer), blob);
  try {
    if (readlinkSync(pointer) === target) return;
  } catch {
    // absent, or not a link: replaced below
  }
  const tmp = `${pointer}.${uniqueSuffix()}.tmp`;
  symlinkSync(target, tmp);
  renameSync(tmp, pointer);
}

/** Streams one download into `tmp`, stopping as soon as it runs past the listed size. */
async function download(
  o: { client: HubClient; repo: string; sha: string },
  f: RemoteFile,
  tmp: string,
): Promise<Digest> {
  const stream = await openDownload({
    client: o.client,
    repo: o.repo,
    sha: o.sha,
    path: f.path,
    size: f.size,
    etag: f.etag,
  });
  const kind = kindOf(f);
  const h = kind === "sha256" ? createHash("sha256") : createHash("sha1").update(`blob ${f.size}\0`);
  let size = 0;
  const out = await open(tmp, "wx");
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > f.size) {
        await reader.cancel();
        break; // longer than listed: never kept, whatever else it holds
      }
      h.update(value);
      await out.write(value);
    }
  } finally {
    await out.close();
  }
  const hex = h.digest("hex");
  return { size, sha256: kind === "sha256" ? hex : "", gitOid: kind === "git" ? hex : "" };
}

/**
 * Keeps files this machine published (`files`: a local path and the sha256 of its content) as blobs of
 * `repo`, so a view of a later commit links them instead of downloading them again: an LFS file's etag on
 * the Hub is its sha256. A blob already there is left as it is; a file that cannot be linked is skipped.
 */
export function keepAsBlobs(hubCache: string, repo: string, files: { path: string; sha256: string }[]): void {
  const dir = join(repoCacheDir(hubCache, repo), "blobs");
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    if (!/^[0-9a-f]{64}$/.test(f.sha256)) continue;
    const blob = join(dir, f.sha256);
    if (existsSync(blob)) continue;
    try {
      linkSync(f.path, blob);
    } catch {
      // another filesystem, or another process linked it first: downloaded when needed, as before
    }
  }
}

/**
 * The cached blob of `f` (a file of `repo` at `sha`), fetching it unless a copy with the right hash is
 * there; a mismatch is fetched once more, then an IntegrityError naming the file.
 */
export async function cachedBlob(o: {
  client: HubClient;
  hubCache: string;
  repo: string;
  sha: string;
  file: RemoteFile;
}): Promise<string> {
  const dir = repoCacheDir(o.hubCache, o.repo);
  const blob = join(dir, "blobs", o.file.etag);
  const pointer = join(dir, "snapshots", o.sha, o.file.path);
  if (existsSync(blob)) {
    if (matches(await hashFile(blob, kindOf(o.file)), o.file)) {
      linkSnapshot(pointer, blob);
      return blob;
    }
    rmSync(blob, { force: true }); // damaged in the cache: fetched again below
  }
  mkdirSync(dirname(blob), { recursive: true });
  for (let attempt = 1; attempt <= 2; attempt++) {
    const tmp = `${blob}.${uniqueSuffix()}.incomplete`;
    try {
      const d = await download(o, o.file, tmp);
      if (matches(d, o.file)) {
        // First one in wins (a link never replaces): every view of this blob then shares one inode.
        try {
          linkSync(tmp, blob);
        } catch (err) {
          // EEXIST: another process got there first. Anything else: no hard links here, so a rename.
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") renameSync(tmp, blob);
        }
        linkSnapshot(pointer, blob);
        return blob;
      }
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  throw new IntegrityError(
    `${o.file.path} does not match the size and hash the Hub lists for it, twice — nothing of it was kept; run the command again later, and if it keeps failing the endpoint (HF_ENDPOINT) is serving a damaged or altered copy`,
  );
}
