import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { SqliteSnapshot } from "./sqlite-snapshot.js";

describe("SqliteSnapshot", () => {
  it("reads a private copy, removed on close; a copy left by a process that is gone is removed too", () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "x.db");
      const db = new Database(path);
      db.exec("CREATE TABLE t (a); INSERT INTO t VALUES (1)");
      db.close();
      // A run stopped by a signal leaves its copy: named after its process, which no longer exists.
      const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid;
      const orphan = join(tmpdir(), `funes-sqlite-${gone}-left`);
      mkdirSync(orphan, { recursive: true });
      const snap = SqliteSnapshot.take(path);
      expect(existsSync(orphan)).toBe(false);
      expect(snap.db.prepare("SELECT a FROM t").get()).toEqual({ a: 1 });
      expect(snap.db.name.startsWith(join(tmpdir(), `funes-sqlite-${process.pid}-`))).toBe(true);
      const copy = snap.db.name;
      snap.close();
      expect(existsSync(copy)).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
