/**
 * `hf://datasets/<owner>/<name>[/<prefix…>]`: which dataset repo, and where in it the memory lives
 * (`<prefix>/chunks.lance/…`, or `chunks.lance/…` at the root). No revision syntax: reads pin `main`.
 */

/** A Hub memory's location. */
export interface HubLocation {
  /** `owner/name`. */
  repo: string;
  /** Folder inside the repo holding `chunks.lance` ("" for the root). */
  prefix: string;
  /** The URI as given (the memory's label). */
  uri: string;
}

/** Thrown for a string that is not a dataset URI. */
export class HubUriError extends Error {}

/** Parses a dataset URI; empty path segments are dropped. */
export function parseHubUri(uri: string): HubLocation {
  const m = /^hf:\/\/datasets\/(.*)$/.exec(uri);
  const segs = (m?.[1] ?? "").split("/").filter((s) => s !== "");
  if (m === null || segs.length < 2)
    throw new HubUriError(
      `${JSON.stringify(uri)} is not a Hub memory — write owner/name or hf://datasets/owner/name[/path]`,
    );
  // Owner, name and prefix become folder names here (views, receipts): plain names only, as on the Hub.
  const bad = segs.find((s) => !/^[A-Za-z0-9_.-]{1,96}$/.test(s) || /^\.+$/.test(s));
  if (bad?.includes("@") === true)
    throw new HubUriError(
      `${JSON.stringify(uri)} names a revision: funes always reads a memory's newest commit — drop "${bad.slice(bad.indexOf("@"))}"`,
    );
  if (bad !== undefined)
    throw new HubUriError(
      `${JSON.stringify(bad)} in ${JSON.stringify(uri)} is not a repo or folder name — use letters, digits, "-", "_" and "."`,
    );
  return { repo: `${segs[0]}/${segs[1]}`, prefix: segs.slice(2).join("/"), uri };
}

/** The repo path of the memory's `chunks.lance` folder. */
export function lancePath(loc: HubLocation): string {
  return loc.prefix === "" ? "chunks.lance" : `${loc.prefix}/chunks.lance`;
}
