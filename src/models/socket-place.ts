/**
 * Where the model server's socket lives, and the checks that make it the user's own: a folder only this
 * user can write (owner = this uid, no group or other bits, a real folder and not a link), and in it a
 * socket this uid owns. The server creates its folder without `recursive` (an existing folder is checked,
 * never trusted), and the client checks the folder and the socket again before every connection: two
 * lstat calls, so the warm path stays cheap. In a folder that passed, nobody but this user (and root) can
 * create, replace or rename the socket, so what answers there is this user's server.
 */
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/** Where the places a socket may go come from (read by the CLI from the environment). */
export interface SocketPlaces {
  /** `$XDG_RUNTIME_DIR`: a per-user folder the login session owns (0700), when set. */
  runtimeDir?: string | undefined;
  /** The temporary folder (`$TMPDIR`, else the system's). */
  tmpDir: string;
}

/**
 * Unix socket paths are limited to 104–108 bytes; the server first binds a name 7 bytes longer (the
 * socket path + `.<pid>` in base 36), so a socket path stays within this.
 */
const MAX_SOCKET_PATH = 96;

/** This process's uid, or null where there is none (Windows: no Unix sockets, nothing to check). */
function myUid(): number | null {
  return typeof process.getuid === "function" ? process.getuid() : null;
}

/**
 * Where the model server of `funesHome` listens: `$FUNES_HOME/run/models.sock` when that path is short
 * enough for a socket; else in the user's runtime folder when there is one that is really theirs; else in
 * `$TMPDIR/funes-<uid>/`, a folder the server creates and both sides check.
 */
export function modelSocketPath(funesHome: string, places: SocketPlaces): string {
  const own = join(funesHome, "run", "models.sock");
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) return own;
  const tag = createHash("sha1").update(funesHome).digest("hex").slice(0, 16);
  const runtime = places.runtimeDir;
  if (runtime !== undefined && isAbsolute(runtime) && folderProblem(runtime, false) === null) {
    const path = join(runtime, `funes-${tag}.sock`);
    if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return path;
  }
  return join(places.tmpDir, `funes-${myUid() ?? 0}`, `${tag}.sock`);
}

/** The name a server binds first, before it moves its socket into place (same folder, so a rename). */
export function bindingPath(socketPath: string): string {
  return `${socketPath}.${process.pid.toString(36)}`;
}

/**
 * Why the folder `dir` is not a safe place for this user's socket, or null when it is: it must be a real
 * folder (not a link), owned by this uid, with no group or other permission bits. With `exact` it must be
 * exactly 0700 (a folder funes made); a runtime folder may lack the owner's bits it does not need.
 */
export function folderProblem(dir: string, exact = true): string | null {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch {
    return `the folder "${dir}" is missing`;
  }
  const uid = myUid();
  if (st.isSymbolicLink()) return `"${dir}" is a symbolic link, not a folder`;
  if (!st.isDirectory()) return `"${dir}" is not a folder`;
  if (uid !== null && st.uid !== uid)
    return `the folder "${dir}" belongs to uid ${st.uid}, not to you (uid ${uid})`;
  const mode = st.mode & 0o777;
  if (exact ? mode !== 0o700 : (mode & 0o077) !== 0)
    return `the folder "${dir}" has mode ${mode.toString(8).padStart(3, "0")}, not 700 (others could replace the socket)`;
  return null;
}

/** What is at a socket path: nothing, a socket of this user (with its inode), or something funes refuses. */
export type SocketState =
  | { kind: "absent" }
  | { kind: "socket"; ino: number }
  | { kind: "refused"; reason: string };

/**
 * The socket at `path` and its folder, checked as a client must before connecting: the folder by
 * {@link folderProblem}, then the path itself (a socket owned by this uid, nothing else).
 */
export function socketState(path: string): SocketState {
  const dir = dirname(path);
  const bad = folderProblem(dir, !isRuntimeSocket(path));
  if (bad !== null) return bad.endsWith("is missing") ? { kind: "absent" } : { kind: "refused", reason: bad };
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return { kind: "absent" };
  }
  const uid = myUid();
  if (!st.isSocket())
    return { kind: "refused", reason: `"${path}" is ${kindOf(st)}, not the model server's socket` };
  if (uid !== null && st.uid !== uid)
    return {
      kind: "refused",
      reason: `the socket "${path}" belongs to uid ${st.uid}, not to you (uid ${uid})`,
    };
  return { kind: "socket", ino: st.ino };
}

/** A socket funes put straight into a runtime folder (`funes-<tag>.sock`) rather than a folder of its own. */
function isRuntimeSocket(path: string): boolean {
  return /\/funes-[0-9a-f]{16}\.sock$/.test(path);
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isFile()) return "a file";
  return "something else";
}

/**
 * Makes the socket's folder, or checks the one that is there: `$FUNES_HOME/run` (its parent, the user's
 * own home, made as needed) or `$TMPDIR/funes-<uid>`, each made by one non-recursive mkdir at 0700, so a
 * folder somebody else made first is found and refused, never adopted. Returns why it cannot be used, or
 * null.
 */
export function prepareSocketFolder(path: string, funesHome: string): string | null {
  const dir = dirname(path);
  if (isRuntimeSocket(path)) return folderProblem(dir, false);
  const inHome = dir === join(funesHome, "run");
  if (inHome) mkdirSync(funesHome, { recursive: true });
  try {
    mkdirSync(dir, { mode: 0o700 });
    // Ours, just made: a umask cannot leave it other than 0700.
    chmodSync(dir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST")
      return `could not create the folder "${dir}": ${(err as Error).message}`;
    // A `run` folder of the user's own, inside their own FUNES_HOME, is made owner-only; in a shared
    // temporary folder, a folder that is not exactly as funes makes it is refused.
    if (inHome && folderProblem(dir, false)?.includes(" has mode ") === true) chmodSync(dir, 0o700);
  }
  return folderProblem(dir);
}
