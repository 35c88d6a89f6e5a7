/**
 * Creating a dataset repo: always private; an existing repo is left as it is (its visibility kept).
 */
import { type HubClient, httpStatus, hubLibrary, hubParams } from "./access.js";

/** Creates `repo` as a private dataset; true when it was created, false when it already existed. */
export async function createPrivateDataset(client: HubClient, repo: string): Promise<boolean> {
  try {
    await (await hubLibrary()).createRepo({
      repo: { type: "dataset", name: repo },
      private: true,
      ...hubParams(client),
    });
    return true;
  } catch (err) {
    if (httpStatus(err) === 409) return false;
    throw err;
  }
}
