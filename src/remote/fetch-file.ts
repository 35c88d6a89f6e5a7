/**
 * Fetching one file of a dataset at a commit into the standard Hugging Face cache
 * (`datasets--o--n/blobs/<etag>`, `snapshots/<sha>/<path>`), shared with Python tools and Rust funes. A file
 * already there costs no request. The client logs each download with console.debug, which would land on
 * stdout (the MCP channel): it is silenced for the call.
 */
import { type HubClient, hubLibrary, hubParams, quietly } from "./access.js";

/** Downloads `path` at `sha` unless cached; returns the snapshot path. */
export async function fetchToCache(
  client: HubClient,
  hubCache: string,
  repo: string,
  sha: string,
  path: string,
): Promise<string> {
  const { downloadFileToCacheDir } = await hubLibrary();
  return quietly(() =>
    downloadFileToCacheDir({
      repo: { type: "dataset", name: repo },
      path,
      revision: sha,
      cacheDir: hubCache,
      ...hubParams(client),
    }),
  );
}
