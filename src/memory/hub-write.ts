/**
 * What every write to the Hub checks first: a token (without one the Hub refuses the write after funes has
 * done the work, or worse, sees `Bearer undefined`), and a refused repo creation said in words.
 */
import { createPrivateDataset, type HubClient, HubReadOnlyError } from "../remote/index.js";
import { FunesError } from "./errors.js";

/** Throws, before anything is written, when there is no token to write to `uri` with. */
export function requireToken(token: string | undefined, uri: string): void {
  if (token === undefined || token.trim() === "")
    throw new FunesError(
      "no_access",
      `writing to ${uri} needs a Hugging Face token with write access — run \`hf auth login\` (or set HF_TOKEN), then try again`,
    );
}

/** Creates `repo` as a private dataset; a refusal (HTTP 401/403) is a FunesError saying what to do. */
export async function createDataset(client: HubClient, repo: string, uri: string): Promise<boolean> {
  try {
    return await createPrivateDataset(client, repo);
  } catch (err) {
    if (err instanceof HubReadOnlyError)
      throw new FunesError(
        "hub_refused",
        `the Hub refused to create ${uri} with your token (${err.message}) — use a token with write access to that namespace (\`hf auth login\`), or create the dataset yourself`,
        err,
      );
    throw err;
  }
}
