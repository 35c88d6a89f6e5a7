/**
 * Reading an agent's SQLite store without writing beside it. SQLite in WAL mode keeps fresh commits in
 * `<db>-wal` until a checkpoint (OpenCode leaves a whole session there after it exits), and any connection
 * that opens the database in place, even read-only, creates or writes `<db>-shm` and takes locks. So the
 * database and its `-wal` (or `-journal`) are copied into a private temporary folder and the copy is read
 * (`sqlite-reader.ts`, each query with a time budget): the user's folder stays byte-identical, and every
 * committed transaction, WAL included, is read; a hot journal (a writer that died mid-transaction) is
 * rolled back into the copy (`sqlite-journal.ts`).
 *
 * The database and its side files are copied as every file in an agent's folder is read (`agent-file.ts`):
 * regular files reached without a link out of the agent's folder (the folder holding the database, unless
 * the user named the database itself), each within a 16 GiB cap. A database or side file that is refused is
 * never copied; the database is then not read at all (a database without its WAL or its hot journal is not
 * the store the agent wrote), and its source lists one unit standing for it, whose read fails with why, so
 * an index run names it among what it could not read.
 *
 * The temporary folder is shared with every user of the machine, so nothing in it is trusted by name. Each
 * copy gets a folder of its own from `mkdtemp` (a fresh name, mode 0700), checked with `lstat` before use
 * (a real folder, not a link, owned by this user, no access for others). Removal, of a run's own copy or of
 * the copy a killed run left (its folder is named after its process), only follows such a check, and
 * removes by name the files a copy is made of, then the empty folder: never a link, never somebody else's
 * folder, never anything funes did not create. Another user's folder or link of a like name is left alone
 * and blocks nothing (every copy's name is new).
 */
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmdirSync, rmSync, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  type AgentFileCopy,
  type AgentFileKind,
  AgentFileRefusedError,
  copyAgentFile,
  DATABASE_FILE,
  DATABASE_JOURNAL_FILE,
  DATABASE_WAL_FILE,
} from "./agent-file.js";
import { rollBackJournal } from "./sqlite-journal.js";
import { SqliteReader, type SqlValue } from "./sqlite-reader.js";
import type { Unit } from "./types.js";

export { SqliteBudgetError, type SqlValue } from "./sqlite-reader.js";

/** Files SQLite keeps beside a database that hold committed (WAL) or to-be-rolled-back (journal) pages. */
const SIDE_FILES: [suffix: string, kind: AgentFileKind][] = [
  ["-wal", DATABASE_WAL_FILE],
  ["-journal", DATABASE_JOURNAL_FILE],
];
/** Copies tried while the agent keeps writing, before the last one is used as it is. */
const COPY_ATTEMPTS = 4;
/** The copy's name in its folder. */
const COPY = "db.sqlite";
/** Every name a copy's folder can hold: the copy, its side files, and the engine's lock folder. */
const COPY_FILES = [COPY, `${COPY}-wal`, `${COPY}-journal`, `${COPY}-shm`];
const COPY_LOCK = `${COPY}.lock`;
const PREFIX = "funes-sqlite-";
const GIB = 1024 ** 3;

/**
 * A query's time budget: a minute, and a minute more per GiB of database (a whole-table listing of a large
 * store is legitimately slow; a query that never ends is not).
 */
export function readBudgetMs(bytes: number): number {
  return 60_000 + Math.ceil(bytes / GIB) * 60_000;
}

/** How a copy is taken (tests shorten the budget and pick the temporary folder). */
export interface SnapshotOptions {
  /**
   * The agent's folder the database is read from: a link out of it is refused. Default: the folder holding
   * the database. The database's own path when the user named it (`funes index <db>`, `$OPENCODE_DB`): its
   * links are then followed, as `agent-file.ts` follows a file given as the root, and its side files are
   * those beside the file the links reach (where SQLite keeps them), never reached through a link.
   */
  root?: string | undefined;
  /** Milliseconds one query may take; default {@link readBudgetMs} of the copy's size. */
  budgetMs?: number | undefined;
  /** Where the copy's folder goes; default the system's temporary folder. */
  tmp?: string | undefined;
}

/** A private read-only copy of one SQLite database; `close` removes it. */
export class SqliteSnapshot {
  private constructor(
    private readonly reader: SqliteReader,
    private readonly dir: string,
    private readonly tmp: string,
    private readonly dbPath: string,
  ) {}

  /**
   * Copies `dbPath` and its side files into a new private folder and opens the copy. A copy taken while
   * the agent wrote (a file's size or time changed under it) is taken again. Throws
   * `AgentFileRefusedError` when the database or a side file is refused (see the file's header), what
   * SQLite says when the copy is not a database, and names the temporary folder when it has no room.
   */
  static take(dbPath: string, opts: SnapshotOptions = {}): SqliteSnapshot {
    const tmp = opts.tmp ?? tmpdir();
    removeOrphans(tmp);
    const root = databaseRoot(dbPath, opts);
    const base = resolve(root) === resolve(dbPath) ? realpathSync(dbPath) : dbPath;
    if (lstatSync(base).isDirectory())
      throw new Error(`"${dbPath}" is not a file — give the database file itself`);
    const dir = privateDir(tmp);
    try {
      const copy = join(dir, COPY);
      let bytes = 0;
      for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
        const before = stamps(base);
        for (const name of [COPY, ...SIDE_FILES.map(([suffix]) => COPY + suffix)])
          rmSync(join(dir, name), { force: true });
        bytes = copied(copyAgentFile(root, base, DATABASE_FILE, copy), dbPath, { side: false }) ?? 0;
        for (const [suffix, kind] of SIDE_FILES) {
          // Named in a refusal: the unit is the database, and the side file is what to look at.
          const named = { ...kind, label: `${kind.label} "${base}${suffix}"` };
          const got = copyAgentFile(root, base + suffix, named, copy + suffix);
          const side = copied(got, base + suffix, { side: true });
          if (side === 0) rmSync(copy + suffix, { force: true });
          bytes += side ?? 0;
        }
        if (stamps(base) === before) break;
      }
      if (lstatOrNull(`${copy}-journal`) !== null) {
        rollBackJournal(copy, `${copy}-journal`);
        rmSync(`${copy}-journal`, { force: true });
      }
      const reader = SqliteReader.open(copy, {
        budgetMs: opts.budgetMs ?? readBudgetMs(bytes),
        label: dbPath,
      });
      return new SqliteSnapshot(reader, dir, tmp, dbPath);
    } catch (e) {
      removeCopy(dir);
      throw fullDiskError(e, tmp, dbPath) ?? e;
    }
  }

  /** Every row of `sql`, columns by name; throws `SqliteBudgetError` past the budget. */
  all<T>(sql: string, ...params: SqlValue[]): T[] {
    let rows: T[];
    try {
      rows = this.reader.all<T>(sql, ...params);
    } catch (e) {
      throw fullDiskError(e, this.tmp, this.dbPath) ?? e;
    }
    if (sql.includes(NUL_SUFFIX)) for (const row of rows) restoreNulText(row as Record<string, unknown>);
    return rows;
  }

  /** The first row of `sql`, or undefined. */
  get<T>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.all<T>(sql, ...params)[0];
  }

  /** Closes the copy and removes its folder; never throws (the copy is gone either way). */
  close(): void {
    try {
      this.reader.close();
    } catch {
    } finally {
      removeCopy(this.dir);
    }
  }
}

/** How a session too large to hold whole is read: a page of rows per query (sessions of a million messages). */
export interface PageOptions {
  /** Rows one query takes; default {@link PAGE_ROWS}. */
  pageRows?: number | undefined;
}

/** Rows a paged read takes per query: few enough queries, and a page is a small part of a large session. */
export const PAGE_ROWS = 500;

/** Marks the second column {@link nulSafe} selects. */
const NUL_SUFFIX = " #nul";
const UTF8 = new TextDecoder();

/**
 * The column `name` (a plain column name), selected so that text holding a NUL character reaches the caller
 * whole: the engine hands text over as a C string, cut at the first NUL (Hermes marks multimodal content
 * with a leading one). Such text is selected a second time as bytes, and {@link SqliteSnapshot.all} puts it
 * back in place of the cut copy. Other values (numbers, blobs, text without a NUL) come as they are.
 */
export function nulSafe(name: string): string {
  const col = `"${name.replaceAll('"', '""')}"`;
  const marked = `"${name.replaceAll('"', '""')}${NUL_SUFFIX}"`;
  return `${col}, CASE WHEN typeof(${col}) = 'text' AND instr(${col}, char(0)) > 0 THEN CAST(${col} AS BLOB) END AS ${marked}`;
}

function restoreNulText(row: Record<string, unknown>): void {
  for (const key of Object.keys(row)) {
    if (!key.endsWith(NUL_SUFFIX)) continue;
    const bytes = row[key];
    if (bytes instanceof Uint8Array) row[key.slice(0, -NUL_SUFFIX.length)] = UTF8.decode(bytes);
    delete row[key];
  }
}

/** A new folder for one copy in `tmp`, checked to be ours alone. */
function privateDir(tmp: string): string {
  const dir = mkdtempSync(join(tmp, `${PREFIX}${process.pid}-`));
  if (!isOurs(lstatSync(dir)))
    throw new Error(`"${dir}" is not a private folder of this user — check "${tmp}"`);
  return dir;
}

/** A real folder (not a link) owned by this user, with no access for anyone else. */
function isOurs(st: Stats): boolean {
  if (!st.isDirectory() || st.isSymbolicLink()) return false;
  // Windows has no owner ids nor Unix modes; its temporary folder is the user's own.
  const uid = process.getuid?.();
  return uid === undefined || (st.uid === uid && (st.mode & 0o077) === 0);
}

/**
 * Removes a copy's folder if it is ours (see {@link isOurs}): the files a copy is made of by name, the
 * engine's lock folder, then the folder itself when that left it empty. Anything else stays.
 */
function removeCopy(dir: string): void {
  try {
    if (!isOurs(lstatSync(dir))) return;
    for (const name of COPY_FILES) rmSync(join(dir, name), { force: true });
    try {
      rmdirSync(join(dir, COPY_LOCK));
    } catch {}
    rmdirSync(dir);
  } catch {}
}

/**
 * Removes the copies of processes that are gone (a run stopped by a signal never reaches `close`): each
 * copy's folder is named after the process that made it. Only folders that are ours are touched.
 */
function removeOrphans(tmp: string): void {
  let names: string[];
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(/^funes-sqlite-(\d+)-/.exec(n)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    removeCopy(join(tmp, n));
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

/** The folder a database is read from: see {@link SnapshotOptions.root}. */
export function databaseRoot(dbPath: string, opts: SnapshotOptions): string {
  return opts.root ?? dirname(dbPath);
}

/**
 * The bytes a copy took, or null for a side file that is not there; a refusal is thrown (a side file's
 * refuses its database with it), as is a database that is not there.
 */
function copied(got: AgentFileCopy, path: string, o: { side: boolean }): number | null {
  if (got.kind === "copied") return got.bytes;
  if (got.kind === "refused")
    throw new AgentFileRefusedError(path, o.side ? `${got.reason}, nor its database` : got.reason);
  if (o.side) return null;
  throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
}

/**
 * The units of a store that `take` refused (a link out of the agent's folder, not a regular file, over its
 * cap): one standing for the database, signed by nothing (never recorded), whose read fails with why, so an
 * index run names and counts it among what it could not read. Any other error is thrown.
 */
export function refusedStoreUnits(dbPath: string, err: unknown): Unit[] {
  if (!(err instanceof AgentFileRefusedError)) throw err;
  return [{ key: dbPath, signature: null, isSubagent: false }];
}

/**
 * The temporary folder ran out of room (a copy, or SQLite writing to the copy): said as such, naming that
 * folder, not as the agent's disk being full. Null for any other failure.
 */
function fullDiskError(e: unknown, tmp: string, dbPath: string): Error | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const text = e instanceof Error ? e.message : "";
  if (code !== "ENOSPC" && code !== "EDQUOT" && !/database or disk is full/i.test(text)) return null;
  return new Error(
    `no room in the temporary folder "${tmp}" for a private copy of "${dbPath}" — free space there, or set TMPDIR to a folder with room`,
  );
}

/** Size and modification time of a database and its side files (never through a link), as one string. */
function stamps(dbPath: string): string {
  return ["", ...SIDE_FILES.map(([suffix]) => suffix)]
    .map((s) => {
      const st = lstatOrNull(dbPath + s);
      return st === null ? "-" : `${st.size}:${st.mtimeMs}`;
    })
    .join("|");
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
