/**
 * The one way funes reads a file in an agent's folder (a transcript, a sub-agent's parent, Claude Code's
 * `tool-results/<file>`, Gemini CLI's `.project_root`, a Hermes session file, a SQLite store and its `-wal` or
 * `-journal`, copied whole): a regular file reached without a link out of that folder, read up to a cap for
 * its kind.
 *
 * - The folders on the way must resolve inside the root (a linked folder that leaves it is refused), and the
 *   file itself must not be a link: it is opened with `O_NOFOLLOW`, so a link put there after the check is
 *   refused too. The root itself may be a link (a `~/.claude` kept in a dotfiles folder), and a file given as
 *   the root is the user's own choice: its links are followed.
 * - A FIFO, socket or device is refused from `lstat`, never opened; the open is `O_NONBLOCK` besides, and the
 *   opened file must be the regular file that was checked (same device and inode).
 * - A file over its kind's cap is refused before it is opened; read whole, reading stops one byte past the
 *   cap (a file that grew while read is refused too), so it is never read whole.
 *
 * A refusal is a value with a reason that reads as a skip count ("saved tool output not read: a link…"), so
 * the caller counts it; an index run reports it, it is never silent and never a crash.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A kind of file read from an agent's folder: what it is called in a skip reason, and its cap. */
export interface AgentFileKind {
  /** Names the file in a reason ("transcript", "saved tool output"). */
  label: string;
  /** The most bytes read; a larger file is refused. */
  maxBytes: number;
}

const MiB = 1024 * 1024;

/**
 * A transcript read a line at a time: memory follows its longest line, not its size (the large-transcript
 * bench reads a 50 MB file in under 500 MiB), so the cap only bounds the time one file can take.
 */
export const TRANSCRIPT_FILE: AgentFileKind = { label: "transcript", maxBytes: 4096 * MiB };
/** A session file read whole (Hermes's JSON documents): held as one string, which V8 caps near 512 MiB. */
export const SESSION_DOCUMENT_FILE: AgentFileKind = { label: "session file", maxBytes: 256 * MiB };
/** Claude Code's `<session>/tool-results/<file>`: one tool's output, indexed as one block. */
export const TOOL_OUTPUT_FILE: AgentFileKind = { label: "saved tool output", maxBytes: 16 * MiB };
/** Gemini CLI's `.project_root`: one path. */
export const PROJECT_ROOT_FILE: AgentFileKind = { label: ".project_root", maxBytes: 4096 };

const GiB = 1024 * MiB;

/**
 * A SQLite store (Hermes's `state.db`, OpenCode's `opencode.db`), copied whole before it is read: 16 GiB,
 * far past a store of conversations (a heavy user's is a few hundred MiB), so the cap bounds the copy's
 * room and time, not what an agent writes.
 */
export const DATABASE_FILE: AgentFileKind = { label: "database", maxBytes: 16 * GiB };
/** A store's write-ahead log (`<db>-wal`), copied with it: the same cap. */
export const DATABASE_WAL_FILE: AgentFileKind = { label: "write-ahead log", maxBytes: 16 * GiB };
/** A store's rollback journal (`<db>-journal`), copied with it: the same cap. */
export const DATABASE_JOURNAL_FILE: AgentFileKind = { label: "rollback journal", maxBytes: 16 * GiB };

/** A file not read: not there, or refused. */
type AgentFileMiss =
  | { kind: "absent" }
  /** Not read, and why (the skip reason to count: it names the kind, not the path). */
  | { kind: "refused"; reason: string };

/** What reading a file in an agent's folder gave. */
export type AgentFileRead = { kind: "read"; bytes: Buffer } | AgentFileMiss;

/** What copying a file in an agent's folder gave: the bytes copied, or why not. */
export type AgentFileCopy = { kind: "copied"; bytes: number } | AgentFileMiss;

/** A file an agent's folder holds that funes does not read (thrown where a unit's own file is refused). */
export class AgentFileRefusedError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    // Said beside the file's path (the unit's key), so the path is not repeated.
    super(`${reason} — check that file: funes reads only regular files inside the agent's folder`);
  }
}

const REASONS = {
  outside: "reached through a linked folder that leaves the agent's folder",
  link: "a link (links in an agent's folder are not followed)",
  special: "not a regular file (a FIFO, socket or device is never opened)",
  changed: "replaced while it was opened",
} as const;

function refused(kind: AgentFileKind, why: string): AgentFileMiss {
  return { kind: "refused", reason: `${kind.label} not read: ${why}` };
}

function overCap(kind: AgentFileKind): AgentFileMiss {
  return refused(kind, `over its ${formatCap(kind.maxBytes)} cap`);
}

function formatCap(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  return bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/** True when `inner` is `outer` or lies below it (both resolved). */
function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Open flags: read only, never through a final link, never waiting on a FIFO (0 where the OS lacks one). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** What `lstat` says of the file before it is opened: a refusal, or null to go on. */
function judged(kind: AgentFileKind, st: Stats): AgentFileMiss | null {
  if (st.isSymbolicLink()) return refused(kind, REASONS.link);
  if (!st.isFile()) return refused(kind, REASONS.special);
  if (st.size > kind.maxBytes) return overCap(kind);
  return null;
}

function isAbsence(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** The path to open: inside the root's real folder, or null when a linked folder on the way leaves it. */
function targetOf(root: string, path: string): string | null {
  // A file given as the root is the user's choice: its links are followed.
  if (resolve(path) === resolve(root)) return realpathSync(path);
  const realDir = realpathSync(dirname(path));
  // A file given as the root (one transcript) stands for the folder holding it, where its twins are.
  let realRoot = realpathSync(root);
  if (!statSync(realRoot).isDirectory()) realRoot = dirname(realRoot);
  return within(realRoot, realDir) ? join(realDir, basename(path)) : null;
}

/**
 * Opens `path`, a file in the agent's folder `root` (or `root` itself), once it is judged a regular file
 * reached without a link out of `root` and within its cap: its descriptor and size, or why not. I/O errors
 * other than absence (a folder funes may not read) are thrown.
 */
function openChecked(
  root: string,
  path: string,
  kind: AgentFileKind,
): { fd: number; size: number } | AgentFileMiss {
  let fd: number;
  let st: Stats;
  try {
    const target = targetOf(root, path);
    if (target === null) return refused(kind, REASONS.outside);
    st = lstatSync(target);
    const judgement = judged(kind, st);
    if (judgement !== null) return judgement;
    fd = openSync(target, OPEN_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException | null)?.code === "ELOOP") return refused(kind, REASONS.link);
    if (isAbsence(err)) return { kind: "absent" };
    throw err;
  }
  const now = fstatSync(fd);
  if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) {
    closeSync(fd);
    return refused(kind, REASONS.changed);
  }
  return { fd, size: now.size };
}

/** Reads `path`, a file in the agent's folder `root` (or `root` itself), whole: see {@link AgentFileRead}. */
export function readAgentFile(root: string, path: string, kind: AgentFileKind): AgentFileRead {
  const opened = openChecked(root, path, kind);
  if ("kind" in opened) return opened;
  const { fd, size } = opened;
  try {
    // From position 0 until the end, or one byte past the cap (a file that grows while it is read).
    let buf = Buffer.allocUnsafe(Math.min(size, kind.maxBytes) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (buf.length > kind.maxBytes) break;
        const next = Buffer.allocUnsafe(Math.min(buf.length * 2, kind.maxBytes + 1));
        buf.copy(next);
        buf = next;
      }
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return n > kind.maxBytes ? overCap(kind) : { kind: "read", bytes: buf.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}

const COPY_CHUNK = 8 * MiB;

/**
 * Copies `path`, a file in the agent's folder `root` (or `root` itself), judged as {@link readAgentFile}
 * judges it, into `to`, a new file (mode 0600; one already there is an error): the bytes copied, or why
 * not. Copying stops one byte past the cap (a file that grew while copied is refused, and `to` removed).
 */
export function copyAgentFile(root: string, path: string, kind: AgentFileKind, to: string): AgentFileCopy {
  const opened = openChecked(root, path, kind);
  if ("kind" in opened) return opened;
  const { fd, size } = opened;
  let out: number | null = null;
  try {
    out = openSync(to, "wx", 0o600);
    // Room for a small file whole and one more byte (its end, or its growth), at most a chunk.
    const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, size + 1));
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, n);
      if (got === 0) break;
      n += got;
      if (n > kind.maxBytes) {
        closeSync(out);
        out = null;
        rmSync(to, { force: true });
        return overCap(kind);
      }
      for (let written = 0; written < got; ) written += writeSync(out, buf, written, got - written);
    }
    return { kind: "copied", bytes: n };
  } finally {
    closeSync(fd);
    if (out !== null) closeSync(out);
  }
}

/**
 * Opens a unit's own file (a transcript read a piece at a time) as {@link readAgentFile} would read it: the
 * descriptor, to read and close. Absence throws the system's error (a unit that cannot be read is retried
 * next run), a refusal {@link AgentFileRefusedError}.
 */
export function openAgentFile(root: string, path: string, kind: AgentFileKind): number {
  const opened = openChecked(root, path, kind);
  if (!("kind" in opened)) return opened.fd;
  if (opened.kind === "refused") throw new AgentFileRefusedError(path, opened.reason);
  throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
}

const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * The text of a unit's own file read whole (a Hermes session file), invalid UTF-8 becoming U+FFFD. Absence
 * throws the system's error, a refusal {@link AgentFileRefusedError}.
 */
export function readAgentText(root: string, path: string, kind: AgentFileKind): string {
  const r = readAgentFile(root, path, kind);
  if (r.kind === "refused") throw new AgentFileRefusedError(path, r.reason);
  if (r.kind === "absent")
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
  return lossy.decode(r.bytes);
}

/** The text of a file beside a unit's (a sidecar), lossy UTF-8; null when absent, a refusal counted apart. */
export function readAgentSidecar(
  root: string,
  path: string,
  kind: AgentFileKind,
): { text: string } | { refused: string } | null {
  let r: AgentFileRead;
  try {
    r = readAgentFile(root, path, kind);
  } catch {
    // A folder funes may not read: as if the file were not there (the transcript's own text still is).
    return null;
  }
  if (r.kind === "absent") return null;
  if (r.kind === "refused") return { refused: r.reason };
  return { text: lossy.decode(r.bytes) };
}
