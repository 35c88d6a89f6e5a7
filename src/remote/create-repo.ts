/**
 * Creating a dataset repo: always private; an existing repo is left as it is (its visibility kept).
 */
import { type HubClient, httpStatus, hubLibrary, hubParams } from "./access.js";
import { HubReadOnlyError } from "./commit-files.js";

/**
 * Creates `repo` as a private dataset; true when it was created, false when it already existed. A refusal
 * (HTTP 401/403) is a HubReadOnlyError.
 */
export async function createPrivateDataset(client: HubClient, repo: string): Promise<boolean> {
  try {
    await (await hubLibrary()).createRepo({
      repo: { type: "dataset", name: repo },
      private: true,
      ...hubParams(client),
    });
    return true;
  } catch (err) {
    const status = httpStatus(err);
    if (status === 409) return false;
    if (status === 401 || status === 403) throw new HubReadOnlyError(`HTTP ${status}`);
    throw err;
  }
}
