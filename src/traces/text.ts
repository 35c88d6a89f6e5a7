/**
 * Whitespace and path facets with the reference's (Rust) semantics.
 */

const EDGE_WS = /^\p{White_Space}+|\p{White_Space}+$/gu;
const NON_WS = /[^\p{White_Space}]/u;

/**
 * Trims Unicode White_Space, as Rust's `str::trim` does: U+0085 is removed, U+FEFF is kept
 * (JS `trim()` does the opposite for both; chunk text must match the reference's).
 */
export function rustTrim(s: string): string {
  return s.replace(EDGE_WS, "");
}

/** True when `s` holds nothing but Unicode White_Space (Rust `trim().is_empty()`). */
export function isBlank(s: string): boolean {
  return !NON_WS.test(s);
}

/**
 * The workdir facet from a recorded cwd: every character that is not ASCII alphanumeric becomes `-`
 * (one per character). All dashes, or empty, means no facet (null). Matches Claude Code's project
 * directory names and the reference.
 */
export function mungeCwd(cwd: string): string | null {
  let out = "";
  for (const ch of rustTrim(cwd)) out += /^[A-Za-z0-9]$/.test(ch) ? ch : "-";
  return /^-*$/.test(out) ? null : out;
}

/**
 * Workdir when the transcript records no cwd: the path component after the first one named `projects`,
 * else the parent directory's name, else "".
 */
export function fallbackWorkdir(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  const i = parts.indexOf("projects");
  if (i >= 0 && i + 1 < parts.length) return parts[i + 1] ?? "";
  return parts.length >= 2 ? (parts[parts.length - 2] ?? "") : "";
}

/** File name without its final extension. */
export function fileStem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}
