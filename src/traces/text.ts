/**
 * Whitespace and path facets with the reference's (Rust) semantics.
 */

const NON_WS = /[^\p{White_Space}]/u;

/** Whether a UTF-16 unit is Unicode White_Space (every such character is in the BMP). */
function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Trims Unicode White_Space, as Rust's `str::trim` does: U+0085 is removed, U+FEFF is kept
 * (JS `trim()` does the opposite for both; chunk text must match the reference's). A scan from each end:
 * a regex anchored at the end retries from every whitespace run, which is quadratic on long tool output.
 */
export function rustTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWhiteSpace(s.charCodeAt(a))) a++;
  while (b > a && isWhiteSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
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
