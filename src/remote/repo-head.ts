/**
 * One request that is both the reachability probe and the head resolution: the dataset's info at `main`,
 * with its commit sha. Its outcome is the remote's state, decided here and nowhere else.
 */
import { datasetInfo } from "@huggingface/hub";
import { type HubClient, httpStatus, hubParams, isUnreachable } from "./access.js";

/** What the Hub said about a dataset repo. */
export type RepoHead =
  | { kind: "found"; sha: string; private: boolean }
  | { kind: "missing" }
  | { kind: "offline"; reason: string }
  | { kind: "unauthorized" };

/** Probe timeout, ms (the reference's). */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * The head commit of `main` for a dataset repo. A connection dropped without an answer (a kept-alive socket
 * the server closed as it was reused) is tried once more before the Hub counts as unreachable.
 */
export async function fetchRepoHead(client: HubClient, repo: string): Promise<RepoHead> {
  const first = await probeOnce(client, repo);
  if (first.kind === "offline" && first.dropped) return probeOnce(client, repo);
  return first;
}

async function probeOnce(client: HubClient, repo: string): Promise<RepoHead & { dropped?: boolean }> {
  try {
    const info = await datasetInfo({
      name: repo,
      revision: "main",
      additionalFields: ["sha"],
      ...hubParams(client, PROBE_TIMEOUT_MS),
    });
    const sha = (info as { sha?: string }).sha;
    if (typeof sha !== "string") return { kind: "offline", reason: "the Hub answered without a commit" };
    return { kind: "found", sha, private: info.private };
  } catch (err) {
    const status = httpStatus(err);
    if (status === 404) return { kind: "missing" };
    if (status === 401 || status === 403) return { kind: "unauthorized" };
    if (isUnreachable(err))
      return {
        kind: "offline",
        reason: err instanceof Error ? err.message : String(err),
        dropped: status === null && (err as { name?: string } | null)?.name === "TypeError",
      };
    throw err;
  }
}
