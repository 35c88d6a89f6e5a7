/**
 * Reading an agent's SQLite store without writing beside it. SQLite in WAL mode keeps fresh commits in
 * `<db>-wal` until a checkpoint (OpenCode leaves a whole session there after it exits), and any connection
 * that opens the database in place, even read-only, creates or writes `<db>-shm` and takes locks; a
 * read-only connection cannot checkpoint either, so it leaves `-wal`/`-shm` behind. better-sqlite3 12 does
 * not open URI file names, so `immutable=1` is not available (it fails "unable to open database file"), and
 * an immutable open would not see the WAL anyway. So the database and its `-wal` (or `-journal`) are copied
 * into a private temporary folder and the copy is opened: the user's folder stays byte-identical, and every
 * committed transaction, WAL included, is read.
 */
import { constants, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";

/** better-sqlite3, loaded when a database is first read (a shell recall never pays for it). */
export function openSqlite(): typeof Database {
  return createRequire(import.meta.url)("better-sqlite3") as typeof Database;
}

/** Files SQLite keeps beside a database that hold committed (WAL) or to-be-rolled-back (journal) pages. */
const SIDE_FILES = ["-wal", "-journal"] as const;
/** Copies tried while the agent keeps writing, before the last one is used as it is. */
const COPY_ATTEMPTS = 4;

/** A private read-only copy of one SQLite database; `close` removes it. */
export class SqliteSnapshot {
  private constructor(
    readonly db: Database.Database,
    private readonly dir: string,
  ) {}

  /**
   * Copies `dbPath` and its side files into a new temporary folder and opens the copy read-only. A copy
   * taken while the agent wrote (a file's size or time changed under it) is taken again. Throws what
   * SQLite says when the copy is not a database.
   */
  static take(dbPath: string): SqliteSnapshot {
    removeOrphans();
    const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    try {
      const copy = join(dir, "db.sqlite");
      for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
        const before = stamps(dbPath);
        // A clone where the file system offers one (btrfs, xfs, APFS), else a plain copy.
        copyFileSync(dbPath, copy, constants.COPYFILE_FICLONE);
        for (const side of SIDE_FILES) {
          rmSync(copy + side, { force: true });
          if ((statOrNull(dbPath + side)?.size ?? 0) > 0)
            copyFileSync(dbPath + side, copy + side, constants.COPYFILE_FICLONE);
        }
        if (stamps(dbPath) === before) break;
      }
      return new SqliteSnapshot(new (openSqlite())(copy, { readonly: true, fileMustExist: true }), dir);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Closes the copy and removes its folder. */
  close(): void {
    try {
      this.db.close();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

const PREFIX = "funes-sqlite-";

/**
 * Removes the copies of processes that are gone (a run stopped by a signal never reaches `close`): each
 * copy's folder is named after the process that made it.
 */
function removeOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(/^funes-sqlite-(\d+)-/.exec(n)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    rmSync(join(tmpdir(), n), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, and belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Size and modification time of a database and its side files, as one comparable string. */
function stamps(dbPath: string): string {
  return ["", ...SIDE_FILES]
    .map((s) => {
      const st = statOrNull(dbPath + s);
      return st === null ? "-" : `${st.size}:${st.mtimeMs}`;
    })
    .join("|");
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}
