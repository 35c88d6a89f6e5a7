/**
 * What a Hub answer may say before funes acts on it. Commit ids become folder names and file names become
 * paths on this machine, so an endpoint (a hostile mirror in HF_ENDPOINT, or plain-http interception) or a
 * hostile repo must not be able to name `../..` or an absolute path. Everything is checked where it is
 * received; nothing above remote/ sees an unchecked id or name.
 */

/** A Hub answer funes refuses to act on: an id or file name that is not what the Hub ever sends. */
export class UnsafeHubAnswerError extends Error {}

/** A full git commit id: 40 lowercase hex digits. */
export function isCommitSha(s: unknown): s is string {
  return typeof s === "string" && /^[0-9a-f]{40}$/.test(s);
}

/** A SHA-256 (an LFS object id): 64 lowercase hex digits. */
export function isSha256(s: unknown): s is string {
  return typeof s === "string" && /^[0-9a-f]{64}$/.test(s);
}

/** One path segment of a memory's files: Lance names data, manifests, indexes with these only. */
const SEGMENT = /^[A-Za-z0-9_.-]{1,200}$/;

/** Nesting deeper than Lance ever writes (`_indices/<uuid>/<file>`, with a prefix of a few folders). */
const MAX_DEPTH = 16;

/**
 * Names Windows reads as a device whatever their extension (`NUL.lance` is the null device, `COM1.txt` a
 * serial port), in any letter case; with a name ending in `.`, which Windows drops (so `x.lance.` would be
 * `x.lance`). Lance writes none of them. (local/manifest-check.ts holds the same rule for the names a
 * manifest gives.)
 */
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$/i;

/**
 * Null when `path` is a safe file name under `folder` (relative, plain segments, no `.`/`..`, no
 * separators, controls or schemes); else why not.
 */
export function unsafeTreePath(path: unknown, folder: string): string | null {
  if (typeof path !== "string") return "not a string";
  if (folder !== "" && !path.startsWith(`${folder}/`)) return `outside ${folder}/`;
  const segs = path.split("/");
  if (segs.length > MAX_DEPTH) return "nested too deep";
  for (const s of segs) {
    if (!SEGMENT.test(s)) return `segment ${JSON.stringify(s)} is not a plain name`;
    if (/^\.+$/.test(s)) return `segment ${JSON.stringify(s)} names a folder above`;
    if (WINDOWS_DEVICE.test(s) || s.endsWith("."))
      return `segment ${JSON.stringify(s)} is a device or a name Windows changes`;
  }
  return null;
}

/** `s` quoted for a message, control characters escaped and cut to a readable length. */
export function quoteForMessage(s: unknown): string {
  const text = JSON.stringify(String(s)) ?? '""';
  return text.length > 120 ? `${text.slice(0, 117)}…"` : text;
}
