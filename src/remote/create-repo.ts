/**
 * Creating a dataset repo: always private; an existing repo is left as it is (its visibility kept).
 */
import { type HubClient, httpStatus, hubLibrary, hubParams } from "./access.js";
import { HubReadOnlyError, writeFailure } from "./hub-failure.js";

/**
 * Creates `repo` as a private dataset; true when it was created, false when it already existed. A refusal
 * (HTTP 401/403) is a HubReadOnlyError.
 */
export async function createPrivateDataset(o: { client: HubClient; repo: string }): Promise<boolean> {
  try {
    await (await hubLibrary()).createRepo({
      repo: { type: "dataset", name: o.repo },
      private: true,
      ...hubParams(o.client),
    });
    return true;
  } catch (err) {
    const status = httpStatus(err);
    if (status === 409) return false;
    // Only a refusal is said by meaning here; anything else (the Hub unreachable too) is thrown as it is.
    const failure = writeFailure(err, { hubUrl: o.client.hubUrl, readOnly: `HTTP ${status}` });
    throw failure instanceof HubReadOnlyError ? failure : err;
  }
}
