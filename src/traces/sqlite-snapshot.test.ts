import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ROOT, readTree, tempDir } from "../../test/helpers/fixtures.js";
import { SqliteBudgetError, SqliteSnapshot } from "./sqlite-snapshot.js";

/** A shared temporary folder as a system has it: anyone may create in it, only an owner removes (sticky). */
function sharedTmp(root: string): string {
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  chmodSync(tmp, 0o1777);
  return tmp;
}

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid ?? 999_999;
}

function makeDb(path: string, rows = 1): void {
  const db = new Database(path);
  db.exec("CREATE TABLE t (a)");
  for (let i = 1; i <= rows; i++) db.prepare("INSERT INTO t VALUES (?)").run(i);
  db.close();
}

const isRoot = process.getuid?.() === 0;

describe("SqliteSnapshot", () => {
  it("reads a private copy (mode 0700), removed on close; a copy left by a process of ours that is gone is removed too", () => {
    const t = tempDir();
    try {
      const tmp = sharedTmp(t.dir);
      const path = join(t.dir, "x.db");
      makeDb(path);
      // A run stopped by a signal leaves its copy: named after its process, which no longer exists.
      const orphan = join(tmp, `funes-sqlite-${deadPid()}-left`);
      mkdirSync(orphan, { mode: 0o700 });
      writeFileSync(join(orphan, "db.sqlite"), "old copy");
      const snap = SqliteSnapshot.take(path, { tmp });
      expect(existsSync(orphan)).toBe(false);
      expect(snap.get("SELECT a FROM t")).toEqual({ a: 1 });
      const [own] = readdirSync(tmp);
      expect(own).toMatch(new RegExp(`^funes-sqlite-${process.pid}-`));
      expect(lstatSync(join(tmp, own!)).mode & 0o777).toBe(0o700);
      snap.close();
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("never follows nor removes what it did not make: a planted link and a stranger's folder survive, and reading works", () => {
    const t = tempDir();
    try {
      const tmp = sharedTmp(t.dir);
      const path = join(t.dir, "x.db");
      makeDb(path);
      const gone = deadPid();
      // Somebody else's files, outside the temporary folder, reached by links named like dead copies.
      const precious = join(t.dir, "precious");
      mkdirSync(precious);
      writeFileSync(join(precious, "notes.txt"), "mine");
      writeFileSync(join(precious, "db.sqlite"), "also mine");
      symlinkSync(precious, join(tmp, `funes-sqlite-${gone}-link`));
      symlinkSync(join(precious, "notes.txt"), join(tmp, `funes-sqlite-${gone}-file`));
      // A folder of the same pattern that is not ours: another user's (as root), else one others may enter.
      const stranger = join(tmp, `funes-sqlite-${gone}-stranger`);
      mkdirSync(stranger, { mode: 0o755 });
      chmodSync(stranger, 0o755);
      writeFileSync(join(stranger, "db.sqlite"), "theirs");
      if (isRoot) chownSync(stranger, 65534, 65534);
      const snap = SqliteSnapshot.take(path, { tmp });
      expect(snap.all("SELECT a FROM t")).toEqual([{ a: 1 }]);
      snap.close();
      expect(readFileSync(join(precious, "notes.txt"), "utf8")).toBe("mine");
      expect(readFileSync(join(precious, "db.sqlite"), "utf8")).toBe("also mine");
      expect(lstatSync(join(tmp, `funes-sqlite-${gone}-link`)).isSymbolicLink()).toBe(true);
      expect(lstatSync(join(tmp, `funes-sqlite-${gone}-file`)).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(stranger, "db.sqlite"), "utf8")).toBe("theirs");
      expect(readdirSync(tmp).sort()).toEqual(
        [`funes-sqlite-${gone}-file`, `funes-sqlite-${gone}-link`, `funes-sqlite-${gone}-stranger`].sort(),
      );
    } finally {
      t.cleanup();
    }
  });

  it.runIf(isRoot)(
    "as another user reads: a link planted by root to that user's own files is neither followed nor emptied",
    () => {
      // The reported attack, as it happens: in a sticky temporary folder a user cannot unlink a stranger's
      // link, and removing it "recursively" then fell back to emptying the folder it points to.
      const t = tempDir();
      try {
        chmodSync(t.dir, 0o755);
        const tmp = sharedTmp(t.dir);
        const home = join(t.dir, "home");
        mkdirSync(join(home, "precious"), { recursive: true });
        writeFileSync(join(home, "precious", "notes.txt"), "mine");
        makeDb(join(home, "x.db"));
        for (const p of [
          home,
          join(home, "precious"),
          join(home, "precious", "notes.txt"),
          join(home, "x.db"),
        ])
          chownSync(p, 65534, 65534);
        const link = join(tmp, `funes-sqlite-${deadPid()}-planted`);
        symlinkSync(join(home, "precious"), link);
        const script = join(t.dir, "read.mts");
        writeFileSync(
          script,
          `import { SqliteSnapshot } from ${JSON.stringify(join(ROOT, "src", "traces", "sqlite-snapshot.ts"))};
const s = SqliteSnapshot.take(${JSON.stringify(join(home, "x.db"))}, { tmp: ${JSON.stringify(tmp)} });
console.log(JSON.stringify(s.all("SELECT a FROM t")));
s.close();`,
        );
        const run = spawnSync(
          process.execPath,
          [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), script],
          {
            uid: 65534,
            gid: 65534,
            env: { PATH: process.env.PATH ?? "", HOME: home, TMPDIR: tmp },
            encoding: "utf8",
          },
        );
        expect(run.stderr).toBe("");
        expect(run.stdout.trim()).toBe('[{"a":1}]');
        expect(readFileSync(join(home, "precious", "notes.txt"), "utf8")).toBe("mine");
        expect(lstatSync(link).isSymbolicLink()).toBe(true);
      } finally {
        t.cleanup();
      }
    },
  );

  it("reads commits that live only in the -wal, and leaves the database's folder byte-identical", () => {
    const t = tempDir();
    try {
      const src = join(t.dir, "live");
      mkdirSync(src);
      const path = join(src, "x.db");
      const writer = new Database(path);
      writer.pragma("journal_mode = WAL");
      writer.pragma("wal_autocheckpoint = 0");
      writer.exec("CREATE TABLE t (a); INSERT INTO t VALUES (1)");
      writer.pragma("wal_checkpoint(TRUNCATE)");
      writer.exec("INSERT INTO t VALUES (2); CREATE TABLE u (b); INSERT INTO u VALUES ('newest')");
      // The agent is gone without a checkpoint: its last rows are in the -wal alone.
      const store = join(t.dir, "store");
      mkdirSync(store);
      copyFileSync(path, join(store, "x.db"));
      copyFileSync(`${path}-wal`, join(store, "x.db-wal"));
      writer.close();
      const before = readTree(store);
      const snap = SqliteSnapshot.take(join(store, "x.db"), { tmp: sharedTmp(t.dir) });
      expect(snap.all("SELECT a FROM t ORDER BY a")).toEqual([{ a: 1 }, { a: 2 }]);
      expect(snap.all("SELECT b FROM u")).toEqual([{ b: "newest" }]);
      snap.close();
      expect(readTree(store)).toEqual(before);
    } finally {
      t.cleanup();
    }
  });

  it("rolls a hot journal back into the copy, as SQLite itself does: the unfinished transaction is not read", () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "x.db");
      // A writer killed mid-transaction, after its small page cache spilled uncommitted pages into the file.
      const script = `
        const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
        const db = new Database(${JSON.stringify(path)});
        db.exec("CREATE TABLE m (id INTEGER PRIMARY KEY, s TEXT, body TEXT)");
        const ins = db.prepare("INSERT INTO m (s, body) VALUES (?, ?)");
        for (let i = 0; i < 50; i++) ins.run("kept", "committed " + i + " " + "x".repeat(500));
        db.pragma("cache_size = 2");
        db.exec("BEGIN");
        for (let i = 0; i < 2000; i++) ins.run("lost", "uncommitted " + "y".repeat(500));
        db.exec("UPDATE m SET body = 'clobbered' WHERE s = 'kept'");
        process.kill(process.pid, "SIGKILL");`;
      spawnSync(process.execPath, ["-e", script]);
      expect(readFileSync(`${path}-journal`).length).toBeGreaterThan(0);
      // What SQLite reads once it has rolled the journal back (in a writable copy of its own).
      const ref = join(t.dir, "ref");
      mkdirSync(ref);
      copyFileSync(path, join(ref, "x.db"));
      copyFileSync(`${path}-journal`, join(ref, "x.db-journal"));
      const sqlite = new Database(join(ref, "x.db"));
      const expected = sqlite.prepare("SELECT s, COUNT(*) AS n, MIN(body) AS first FROM m GROUP BY s").all();
      sqlite.close();
      expect(expected).toEqual([{ s: "kept", n: 50, first: expect.stringMatching(/^committed 0 x/) }]);
      const snap = SqliteSnapshot.take(path, { tmp: sharedTmp(t.dir) });
      expect(snap.all("SELECT s, COUNT(*) AS n, MIN(body) AS first FROM m GROUP BY s")).toEqual(expected);
      expect(snap.all("PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
      snap.close();
      // The user's journal is still there: rolling back is SQLite's to do in place, not ours.
      expect(existsSync(`${path}-journal`)).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it("stops a query past its time budget (a view over an endless query) and refuses the store after", () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "x.db");
      makeDb(path);
      const db = new Database(path);
      db.exec(
        "CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0",
      );
      db.close();
      const tmp = sharedTmp(t.dir);
      const snap = SqliteSnapshot.take(path, { tmp, budgetMs: 1000 });
      const start = Date.now();
      expect(() => snap.all("SELECT x FROM endless")).toThrow(SqliteBudgetError);
      expect(Date.now() - start).toBeLessThan(10_000);
      expect(() => snap.all("SELECT a FROM t")).toThrow(/took longer than 1 s and was stopped — check that/);
      snap.close();
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("keeps text holding NUL characters whole when selected with nulSafe", async () => {
    const { nulSafe } = await import("./sqlite-snapshot.js");
    const t = tempDir();
    try {
      const path = join(t.dir, "x.db");
      const db = new Database(path);
      db.exec("CREATE TABLE t (a, b)");
      db.prepare("INSERT INTO t VALUES (?, ?)").run("\u0000json:[1]", 7);
      db.prepare("INSERT INTO t VALUES (?, ?)").run("plain", Buffer.from([1, 2]));
      db.close();
      const snap = SqliteSnapshot.take(path, { tmp: sharedTmp(t.dir) });
      expect(snap.all(`SELECT ${nulSafe("a")}, ${nulSafe("b")} FROM t ORDER BY rowid`)).toEqual([
        { a: "\u0000json:[1]", b: 7 },
        { a: "plain", b: new Uint8Array([1, 2]) },
      ]);
      snap.close();
    } finally {
      t.cleanup();
    }
  });

  it.runIf(isRoot)("names the temporary folder when it is full, not the agent's disk", () => {
    const t = tempDir();
    const small = join(t.dir, "small");
    mkdirSync(small);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small], { stdio: "ignore" });
    } catch {
      t.cleanup();
      return;
    }
    try {
      chmodSync(small, 0o1777);
      const path = join(t.dir, "x.db");
      makeDb(path, 1);
      const big = new Database(path);
      big.prepare("INSERT INTO t VALUES (?)").run("z".repeat(400_000));
      big.close();
      const s = statfsSync(small);
      writeFileSync(join(small, "filler"), Buffer.alloc(Number(s.bavail) * Number(s.bsize) - 64 * 1024));
      expect(() => SqliteSnapshot.take(path, { tmp: small })).toThrow(
        `no room in the temporary folder "${small}" for a private copy of "${path}" — free space there, or set TMPDIR to a folder with room`,
      );
      expect(readdirSync(small)).toEqual(["filler"]);
    } finally {
      execFileSync("umount", [small]);
      t.cleanup();
    }
  });
});
