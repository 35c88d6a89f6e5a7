/**
 * What a Hub memory has forgotten, read fail-closed, and rows filtered by it: what every push leaves out
 * (publish.ts) and what a forget adds to (forget-publish.ts). Its own file, so the two meet here rather
 * than importing each other.
 */
import { type ArrowTable, type LocalRows, selectRows } from "../local/index.js";
import { ForgottenFileError, parseRemoteForgotten, remoteForgottenPath } from "../memory/index.js";
import {
  type HubClient,
  type HubLocation,
  hubFailure,
  isUnreachable,
  readRepoText,
} from "../remote/index.js";
import { PublishUnreachableError } from "./publish-errors.js";

/**
 * The most of a Hub memory's forgotten-ids file read: ~21 bytes an id, so 32 MiB lists 1.6 M forgotten rows,
 * more than most memories hold. A larger file fails closed, as an unreadable one does.
 */
const MAX_FORGOTTEN_BYTES = 32 * 1024 * 1024;

/** The ids a Hub memory has forgotten, at one commit. */
export async function remoteForgottenIds(
  client: HubClient,
  loc: HubLocation,
  sha: string,
): Promise<Set<string>> {
  let text: string | null;
  try {
    text = await readRepoText({
      client,
      repo: loc.repo,
      sha,
      path: remoteForgottenPath(loc),
      maxBytes: MAX_FORGOTTEN_BYTES,
    });
  } catch (err) {
    // Fail closed: without the list, a push could bring forgotten rows back.
    const why = hubFailure(err, client.hubUrl)?.detail ?? (err instanceof Error ? err.message : String(err));
    if (isUnreachable(err)) throw new PublishUnreachableError(why, { cause: err });
    throw new PublishUnreachableError(
      `couldn't read ${remoteForgottenPath(loc)} at ${sha.slice(0, 8)}: ${why}`,
      { cause: err },
    );
  }
  try {
    return parseRemoteForgotten(text);
  } catch (err) {
    throw new ForgottenFileError(
      `${remoteForgottenPath(loc)} in ${loc.repo} ${err instanceof Error ? err.message : String(err)}, so funes cannot tell which rows were forgotten and changed nothing — write back the file funes wrote (the repo's history on the Hub holds it)`,
    );
  }
}

/** `rows` minus those the remote has forgotten (as of commit `sha`). */
export async function withoutRemoteForgotten(
  client: HubClient,
  loc: HubLocation,
  sha: string,
  rows: ArrowTable | LocalRows,
): Promise<ArrowTable | LocalRows> {
  return withoutIds(rows, await remoteForgottenIds(client, loc, sha));
}

/** `rows` minus those with an id in `forgotten` (the same rows when none is). */
export function withoutIds(rows: ArrowTable | LocalRows, forgotten: Set<string>): ArrowTable | LocalRows {
  if (forgotten.size === 0) return rows;
  if ("store" in rows) {
    const ids = new Set([...rows.ids].filter((id) => !forgotten.has(id)));
    // Same locations: a take of the rows listed there still keeps only the ids left (`keptSlices`).
    return ids.size === rows.ids.size ? rows : { ...rows, ids };
  }
  const keep = idsOf(rows);
  const before = keep.size;
  for (const id of forgotten) keep.delete(id);
  return keep.size === before ? rows : selectRows(rows, keep);
}

/** The ids of `rows`. */
export function idsOf(rows: ArrowTable | LocalRows): Set<string> {
  if ("store" in rows) return new Set(rows.ids);
  const ids = rows.getChild("id");
  const out = new Set<string>();
  for (let i = 0; i < rows.numRows; i++) out.add(String(ids?.get(i)));
  return out;
}
