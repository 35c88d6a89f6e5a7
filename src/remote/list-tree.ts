/**
 * The files under a folder of a dataset repo at one commit.
 */
import { type HubClient, httpStatus, hubLibrary, hubParams } from "./access.js";

/** A file in the repo: path, size, and the content id the cache keys it by. */
export interface RemoteFile {
  path: string;
  size: number;
  etag: string;
}

/** Files under `folder` at `sha` (recursive); an absent folder is an empty list. */
export async function listTree(
  client: HubClient,
  repo: string,
  sha: string,
  folder: string,
): Promise<RemoteFile[]> {
  const out: RemoteFile[] = [];
  try {
    for await (const e of (await hubLibrary()).listFiles({
      repo: { type: "dataset", name: repo },
      revision: sha,
      path: folder,
      recursive: true,
      ...hubParams(client),
    })) {
      if (e.type !== "file") continue;
      out.push({ path: e.path, size: e.size, etag: e.lfs?.oid ?? e.oid ?? "" });
    }
  } catch (err) {
    if (httpStatus(err) === 404) return [];
    throw err;
  }
  return out;
}
