/**
 * A full disk, told apart from every other failure: Node's file errors carry `ENOSPC` (no space) or
 * `EDQUOT` (the user's quota); Lance's carry the OS's words and number in their message ("No space left on
 * device (os error 28)", "Disk quota exceeded (os error 122)"), which only this layer reads, since it is
 * the one that knows Lance.
 */

const NODE_CODES = new Set(["ENOSPC", "EDQUOT"]);
const OS_WORDS = /No space left on device|Disk quota exceeded|os error 28\b|os error 122\b/;

/** The first absolute path in a Lance message that is not one of its own source files (`…/cargo/…/x.rs`). */
function writtenPath(message: string): string | null {
  for (const m of message.matchAll(/\/[^\s:,'"()]+/g))
    if (!/\/(?:\.?cargo|rustc)\/|\.rs$/.test(m[0])) return m[0];
  return null;
}

/**
 * When `err` (or an error on its `cause` chain) says the disk is full: the file it was writing, if it says
 * (null when it does not). Null when it is any other failure.
 */
export function diskFullOf(err: unknown): { path: string | null } | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && NODE_CODES.has(code)) {
      const path = (e as NodeJS.ErrnoException).path;
      return { path: typeof path === "string" ? path : null };
    }
    if (OS_WORDS.test(e.message)) return { path: writtenPath(e.message) };
  }
  return null;
}
