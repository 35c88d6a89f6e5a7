/**
 * Squashing a dataset's `main` into one commit holding its current files (the Hub's super-squash, which
 * @huggingface/hub 2.17 does not wrap: `POST /api/datasets/{repo}/super-squash/main`, JSON `{message}`).
 * Irreversible: every earlier commit id of the branch stops resolving, so files only older commits held
 * leave the repo. Forks, PR refs, downloads and other machines' caches are out of its reach.
 */
import { type HubClient, httpStatus, hubParams, isUnreachable } from "./access.js";
import { HubCommitUnreachableError, writeFailure } from "./hub-failure.js";

/** Squashes `main` of a dataset repo; returns the new head's sha, or null when the Hub did not say. */
export async function superSquash(o: {
  client: HubClient;
  repo: string;
  message: string;
}): Promise<string | null> {
  const p = hubParams(o.client);
  let res: Response;
  try {
    res = await p.fetch(`${p.hubUrl}/api/datasets/${o.repo}/super-squash/main`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(o.client.token !== undefined ? { Authorization: `Bearer ${o.client.token}` } : {}),
      },
      body: JSON.stringify({ message: o.message }),
    });
  } catch (err) {
    // No answer: the request never reached a status.
    throw (
      writeFailure(err, { hubUrl: o.client.hubUrl, readOnly: "the token cannot squash this repo" }) ?? err
    );
  }
  const status = { statusCode: res.status };
  if (res.status === 401 || res.status === 403)
    throw writeFailure(status, { hubUrl: o.client.hubUrl, readOnly: "the token cannot squash this repo" });
  if (!res.ok) {
    if (isUnreachable(status) || httpStatus(status) === 429)
      throw new HubCommitUnreachableError(`the Hub answered ${res.status} to the squash`);
    throw new Error(
      `the Hub refused to squash the history (HTTP ${res.status}): ${(await res.text()).slice(0, 200)}`,
    );
  }
  const body = (await res.json().catch(() => ({}))) as { commitId?: unknown };
  return typeof body.commitId === "string" ? body.commitId : null;
}
