/**
 * One request that is both the reachability probe and the head resolution: the dataset's info at `main`,
 * with its commit sha. Its outcome is the remote's state, decided here and nowhere else.
 */
import { type HubClient, httpStatus, hubLibrary, isUnreachable, readParams } from "./access.js";
import { describeNetworkError, isOfflineMode } from "./network-error.js";
import { isCommitSha, quoteForMessage, UnsafeHubAnswerError } from "./validate.js";

/** What the Hub said about a dataset repo. */
export type RepoHead =
  | { kind: "found"; sha: string; private: boolean }
  | { kind: "missing" }
  /** `offlineMode`: HF_HUB_OFFLINE is set, so nothing was asked (not a connection that failed). */
  | { kind: "offline"; reason: string; offlineMode?: boolean }
  | { kind: "unauthorized" };

/** Probe timeout, ms (the reference's). */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * The commit a revision of a dataset repo points at (`main` by default; `refs/convert/parquet` for the Hub's
 * parquet conversion). A connection dropped without an answer (a kept-alive socket the server closed as it
 * was reused) is tried once more before the Hub counts as unreachable. A missing revision is `missing`.
 */
export async function fetchRepoHead(o: {
  client: HubClient;
  repo: string;
  revision?: string | undefined;
}): Promise<RepoHead> {
  const revision = o.revision ?? "main";
  const first = await probeOnce(o.client, o.repo, revision);
  if (first.kind === "offline" && first.dropped) return probeOnce(o.client, o.repo, revision);
  return first;
}

/** True when `repo` is a model repo (for saying so when a dataset of that name is missing). */
export async function isModelRepo(o: { client: HubClient; repo: string }): Promise<boolean> {
  try {
    await (await hubLibrary()).modelInfo({ name: o.repo, ...readParams(o.client, PROBE_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  }
}

async function probeOnce(
  client: HubClient,
  repo: string,
  revision: string,
): Promise<RepoHead & { dropped?: boolean }> {
  try {
    const info = await (await hubLibrary()).datasetInfo({
      name: repo,
      revision,
      additionalFields: ["sha"],
      ...readParams(client, PROBE_TIMEOUT_MS),
    });
    const sha = (info as { sha?: unknown }).sha;
    if (sha === undefined || sha === null)
      return { kind: "offline", reason: "the Hub answered without a commit" };
    // The sha names a folder on this machine: anything but a commit id is refused, never used.
    if (!isCommitSha(sha))
      throw new UnsafeHubAnswerError(
        `the Hub answered ${quoteForMessage(sha)} as the commit of ${repo}, which is not a commit id`,
      );
    return { kind: "found", sha, private: info.private };
  } catch (err) {
    if (err instanceof UnsafeHubAnswerError) throw err;
    const status = httpStatus(err);
    if (status === 404) return { kind: "missing" };
    if (status === 401 || status === 403) return { kind: "unauthorized" };
    if (isUnreachable(err))
      return {
        kind: "offline",
        reason:
          status === null
            ? describeNetworkError(err, client.hubUrl)
            : `${new URL(client.hubUrl).host}: HTTP ${status}`,
        dropped: status === null && (err as { name?: string } | null)?.name === "TypeError",
        ...(isOfflineMode(err) ? { offlineMode: true, dropped: false } : {}),
      };
    throw err;
  }
}
