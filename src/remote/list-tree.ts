/**
 * The files under a folder of a dataset repo at one commit. Every entry is checked as it arrives (a plain
 * relative name under the folder, a size, the hashes the Hub lists): the names become paths on this
 * machine and the hashes are what each download is checked against.
 */
import { type HubClient, httpStatus, hubLibrary, readParams } from "./access.js";
import { isSha256, quoteForMessage, UnsafeHubAnswerError, unsafeTreePath } from "./validate.js";

/** A file in the repo: path, size, and the hashes its content must have. */
export interface RemoteFile {
  path: string;
  /** Bytes. */
  size: number;
  /** The id the Hugging Face cache keys the blob by: the LFS sha256, else the git blob sha. */
  etag: string;
  /** SHA-256 of the content, for LFS files. */
  sha256: string | null;
  /** Git blob sha1 (`blob <size>\0<content>`), for files stored in git. */
  gitOid: string | null;
}

/** The wire shape of a tree entry, as far as funes reads it. */
interface TreeEntryWire {
  type?: unknown;
  path?: unknown;
  size?: unknown;
  oid?: unknown;
  lfs?: { oid?: unknown } | null;
}

function toRemoteFile(e: TreeEntryWire, repo: string, folder: string): RemoteFile {
  const why = unsafeTreePath(e.path, folder);
  const refuse = (what: string) =>
    new UnsafeHubAnswerError(`${repo} lists a file funes refuses: ${quoteForMessage(e.path)} (${what})`);
  if (why !== null) throw refuse(why);
  if (typeof e.size !== "number" || !Number.isSafeInteger(e.size) || e.size < 0) throw refuse("no size");
  const lfs = e.lfs?.oid;
  const sha256 = lfs === undefined || lfs === null ? null : lfs;
  if (sha256 !== null && !isSha256(sha256)) throw refuse("its LFS id is not a sha256");
  const gitOid = typeof e.oid === "string" && /^[0-9a-f]{40}$/.test(e.oid) ? e.oid : null;
  if (sha256 === null && gitOid === null) throw refuse("no hash to check it against");
  return { path: e.path as string, size: e.size, etag: sha256 ?? (gitOid as string), sha256, gitOid };
}

/** A listing that goes on past the number of files its caller said it would take. */
export class ListingTooLongError extends Error {
  constructor(readonly maxEntries: number) {
    super(`the listing names more than ${maxEntries} files`);
  }
}

/**
 * Files under `folder` at `sha` (recursive); an absent folder is an empty list. With `maxEntries`, a
 * listing that names more files throws ListingTooLongError as soon as it does: an endpoint can page on
 * forever, and each entry is held in memory until the listing ends.
 */
export async function listTree(o: {
  client: HubClient;
  repo: string;
  sha: string;
  folder: string;
  maxEntries?: number | undefined;
}): Promise<RemoteFile[]> {
  const { client, repo, sha, folder } = o;
  const out: RemoteFile[] = [];
  const max = o.maxEntries ?? Number.POSITIVE_INFINITY;
  try {
    for await (const e of (await hubLibrary()).listFiles({
      repo: { type: "dataset", name: repo },
      revision: sha,
      path: folder,
      recursive: true,
      ...readParams(client),
    })) {
      const wire = e as TreeEntryWire;
      if (wire.type !== "file") continue;
      out.push(toRemoteFile(wire, repo, folder));
      if (out.length > max) throw new ListingTooLongError(max);
    }
  } catch (err) {
    if (httpStatus(err) === 404) return [];
    throw err;
  }
  return out;
}
