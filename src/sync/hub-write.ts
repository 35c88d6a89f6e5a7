/**
 * A Hub memory opened for writing (push, curate, forget): where it is, the client, and its head, with the
 * failures every writer says the same way (offline, no access, a model repo); then what every write checks
 * first: a token (without one the Hub refuses the write after funes has done the work, or worse, sees
 * `Bearer undefined`), and a refused repo creation said in words.
 */

import type { ReadContext } from "../memory/index.js";
import {
  FunesError,
  hubOfflineError,
  modelRepoError,
  notAuthorizedError,
  resolveMemorySpec,
} from "../memory/index.js";
import {
  createPrivateDataset,
  fetchRepoHead,
  type HubClient,
  type HubLocation,
  HubReadOnlyError,
  HubUriError,
  hubClient,
  isModelRepo,
  parseHubUri,
  type RepoHead,
} from "../remote/index.js";

/** A Hub memory about to be written: its head was read (it exists) or it is missing (a dataset to create). */
export interface WritableHub {
  loc: HubLocation;
  client: HubClient;
  head: Extract<RepoHead, { kind: "found" | "missing" }>;
}

/** The Hub location a write names; FunesError for a local path or a malformed spec. `verb`: "push". */
export function hubLocation(spec: string, ctx: ReadContext, verb = "push"): HubLocation {
  const r = resolveMemorySpec(spec, ctx);
  if (r.kind === "local")
    throw new FunesError(
      "bad_input",
      `${verb} takes a Hub memory (org/repo or hf://datasets/…), not "${spec}"`,
    );
  try {
    return parseHubUri(r.uri);
  } catch (err) {
    if (err instanceof HubUriError) throw new FunesError("bad_input", err.message);
    throw err;
  }
}

/**
 * Reads the head of the Hub memory `loc` names, for `verb` ("push", "curate it", "forget"): offline, no
 * access and a model repo are FunesErrors; a missing dataset is the caller's to create or refuse.
 */
export async function openHubForWrite(
  loc: HubLocation,
  verb: string,
  ctx: ReadContext,
): Promise<WritableHub> {
  const opened = await openHubOrOffline(loc, ctx);
  const head = opened.head;
  if (head.kind === "offline") throw hubOfflineError(loc.uri, verb, head.reason, head.offlineMode === true);
  return { ...opened, head };
}

/**
 * As {@link openHubForWrite}, but an unreachable Hub (or offline mode) is returned, not thrown: a dry run
 * still says what would go from what is cached here.
 */
export async function openHubOrOffline(
  loc: HubLocation,
  ctx: ReadContext,
): Promise<Omit<WritableHub, "head"> & { head: Exclude<RepoHead, { kind: "unauthorized" }> }> {
  const client = hubClient(ctx.models);
  const head = await fetchRepoHead({ client, repo: loc.repo });
  if (head.kind === "unauthorized") throw notAuthorizedError(loc.uri, "write");
  if (head.kind === "missing" && (await isModelRepo({ client, repo: loc.repo })))
    throw modelRepoError(loc.repo);
  return { loc, client, head };
}

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
    return await createPrivateDataset({ client, repo });
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
