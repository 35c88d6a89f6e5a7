/**
 * Reading a small text file of a repo at a commit straight into memory (not through the cache): the
 * dataset card, which changes with every push.
 */
import { type HubClient, hubLibrary, hubParams } from "./access.js";

/** The file's text, or null when the repo has no such file. Other failures throw. */
export async function readRepoText(o: {
  client: HubClient;
  repo: string;
  sha: string;
  path: string;
}): Promise<string | null> {
  const blob = await (await hubLibrary()).downloadFile({
    repo: { type: "dataset", name: o.repo },
    path: o.path,
    revision: o.sha,
    ...hubParams(o.client),
  });
  return blob === null ? null : await blob.text();
}
