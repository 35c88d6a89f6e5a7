/**
 * Reading a small text file of a repo at a commit straight into memory (not through the cache): the
 * dataset card, which changes with every push, and a memory's forgotten-ids file. Read as every read of a
 * memory is (readParams: the endpoint only, redirects only to its own hosts) and never past `maxBytes`: the
 * file may be someone else's.
 */
import { type HubClient, hubLibrary, readParams } from "./access.js";
import { quoteForMessage, UnsafeHubAnswerError } from "./validate.js";

const size = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

/** The file's text, or null when the repo has no such file. Other failures throw. */
export async function readRepoText(o: {
  client: HubClient;
  repo: string;
  sha: string;
  path: string;
  /** The most bytes read: a file the Hub lists larger is refused (UnsafeHubAnswerError) unread. */
  maxBytes: number;
}): Promise<string | null> {
  const blob = await (await hubLibrary()).downloadFile({
    repo: { type: "dataset", name: o.repo },
    path: o.path,
    revision: o.sha,
    xet: false,
    ...readParams(o.client, undefined, { maxBytes: o.maxBytes }),
  });
  if (blob === null) return null;
  if (blob.size > o.maxBytes)
    throw new UnsafeHubAnswerError(
      `${quoteForMessage(o.path)} in ${o.repo} is ${size(blob.size)}, more than funes reads of it (${size(o.maxBytes)}) — check who published it`,
    );
  return await blob.text();
}
