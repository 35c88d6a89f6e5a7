import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { readTree, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { OpenCodeSource } from "./opencode.js";
import { knownSources, sourcesForPath } from "./sources.js";
import { SqliteBudgetError } from "./sqlite-snapshot.js";

/** The real store `opencode run` (1.18.33) left: the database and the WAL that holds the session. */
const FIXTURE = join(TRACES, "opencode");

/** A copy of the fixture in a temp folder (optionally damaged through SQLite). */
function copyStore(damage?: (db: Database.Database) => void) {
  const t = tempDir();
  const db = join(t.dir, "opencode.db");
  copyFileSync(join(FIXTURE, "opencode.db"), db);
  copyFileSync(join(FIXTURE, "opencode.db-wal"), `${db}-wal`);
  if (damage !== undefined) {
    const w = new Database(db);
    damage(w);
    w.close();
  }
  return { db, dir: t.dir, cleanup: t.cleanup };
}

function sourceOver(damage?: (db: Database.Database) => void) {
  const { db, cleanup } = copyStore(damage);
  const source = new OpenCodeSource(db);
  return {
    source,
    cleanup: () => {
      source.close();
      cleanup();
    },
  };
}

traceSourceContract("opencode", {
  harness: "opencode",
  async make() {
    return sourceOver();
  },
  async makeDamaged() {
    // One more part of the first answer, torn: the answer keeps its other parts.
    return sourceOver((db) => {
      db.prepare(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) SELECT 'prt_torn', message_id, session_id, time_created, time_updated, '{torn' FROM part WHERE data LIKE '%\"tool\"%' ORDER BY id LIMIT 1",
      ).run();
    });
  },
});

describe("OpenCodeSource", () => {
  it("reads the session opencode run left in the WAL, and leaves the store's folder byte-identical", async () => {
    const before = readTree(FIXTURE);
    const src = new OpenCodeSource(join(FIXTURE, "opencode.db"));
    const units = await src.listUnits();
    expect(units.map((u) => [u.key, u.isSubagent])).toEqual([["ses_dcc06a31affep0irmIeI14awXM", false]]);
    const read = await src.readUnit(units[0]!);
    src.close();
    expect(readTree(FIXTURE)).toEqual(before);
    const s = read.sessions[0]!;
    expect(s.cwd).toBe("/tmp/oc/h2/work");
    expect(s.workdir).toBe("-tmp-oc-h2-work");
    expect(s.turns.map((t) => [t.role, t.blocks.map((b) => b.blockType).join(",")])).toEqual([
      ["user", "text"],
      ["assistant", "tool_use,tool_result"],
      ["assistant", "text"],
      ["user", "text"],
      ["assistant", "tool_use,tool_result"],
      ["assistant", "text"],
    ]);
    // `opencode run` stores its argument in quotes; the words are kept as written.
    expect(s.turns[0]!.blocks[0]!.text).toBe('"What does notes.txt say about the build?"');
    const [call, result] = s.turns[1]!.blocks;
    expect([call?.toolName, call?.text]).toEqual(["read", '{"filePath":"/tmp/oc/h2/work/notes.txt"}']);
    expect(result?.text).toContain("The build uses esbuild with a custom banner.");
    expect(s.turns[1]!.parentUuid).toBe(s.turns[0]!.turnUuid);
    expect(s.turns[0]!.ts).toBe("2026-12-01T23:38:30.281Z");
    // Step markers hold no conversation: counted, never silent.
    expect(read.skipped).toEqual({
      'opencode part "step-start" not indexed': 4,
      'opencode part "step-finish" not indexed': 4,
    });
    expect(read.records).toBe(6 + 14);
  });

  it("signs a session by its newest row and count: a new part changes it, a re-list without change does not", async () => {
    const { db, cleanup } = copyStore();
    const src = new OpenCodeSource(db);
    try {
      const [a] = await src.listUnits();
      const [b] = await src.listUnits();
      expect(b?.signature).toBe(a?.signature);
      const w = new Database(db);
      w.prepare(
        'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) SELECT \'prt_zzz\', message_id, session_id, time_created, time_updated, \'{"type":"text","text":"later"}\' FROM part ORDER BY id DESC LIMIT 1',
      ).run();
      w.close();
      const [c] = await src.listUnits();
      expect(c?.signature).not.toBe(a?.signature);
    } finally {
      src.close();
      cleanup();
    }
  });

  it("skips a store whose query does not end (a part view over an endless query) once past its time budget", async () => {
    const { db, cleanup } = copyStore((w) => {
      w.exec(
        "ALTER TABLE part RENAME TO part_rows; CREATE VIEW part AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT p.* FROM part_rows p, c WHERE c.x < 0",
      );
    });
    const src = new OpenCodeSource(db, "opencode", { budgetMs: 1000 });
    try {
      const start = Date.now();
      await expect(src.listUnits()).rejects.toThrow(
        `reading "${db}" took longer than 1 s and was stopped — check that it is the agent's own database (a view over an endless query can do this)`,
      );
      expect(Date.now() - start).toBeLessThan(15_000);
      // The rest of the store is refused at once, not waited on again.
      const again = Date.now();
      await expect(
        src.readUnit({ key: "ses_dcc06a31affep0irmIeI14awXM", signature: null, isSubagent: false }),
      ).rejects.toThrow(SqliteBudgetError);
      expect(Date.now() - again).toBeLessThan(500);
    } finally {
      src.close();
      cleanup();
    }
  });

  it("is the source for a SQLite file given with --harness opencode, whatever its tables look like", async () => {
    const t = tempDir();
    try {
      const hermes = join(t.dir, "state.db");
      const w = new Database(hermes);
      w.exec("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT)");
      w.close();
      expect(sourcesForPath(hermes).map((s) => s.kind)).toEqual(["hermes"]);
      const [src] = sourcesForPath(hermes, "opencode");
      expect(src?.kind).toBe("opencode");
      await expect(src!.listUnits()).rejects.toThrow(
        `"${hermes}" has no OpenCode tables (session, message, part) — check that it is an OpenCode database, or drop --harness opencode`,
      );
      src!.close?.();
    } finally {
      t.cleanup();
    }
  });

  it("is found by content under any name, and in its data folder, by `funes index <path>` and the walk", async () => {
    const { dir, db, cleanup } = copyStore();
    try {
      const renamed = join(dir, "backup.sqlite");
      copyFileSync(db, renamed);
      copyFileSync(`${db}-wal`, `${renamed}-wal`);
      expect(sourcesForPath(renamed).map((s) => s.kind)).toEqual(["opencode"]);
      expect(sourcesForPath(dir).map((s) => s.kind)).toEqual(["opencode"]);
      expect(() => sourcesForPath(join(dir, "opencode.db-wal"), "opencode")).toThrow(
        `"${join(dir, "opencode.db-wal")}" is SQLite's write-ahead log, not a transcript — index "${db}" instead`,
      );
      // The default folder under a home, and the one XDG_DATA_HOME moves it to.
      const home = join(dir, "home");
      const data = join(home, ".local", "share", "opencode");
      (await import("node:fs")).mkdirSync(data, { recursive: true });
      copyFileSync(db, join(data, "opencode.db"));
      writeFileSync(join(data, "opencode-beta.db"), "");
      expect(knownSources(home, "opencode").map((s) => s.description)).toEqual([
        `scanning opencode sessions in ${join(data, "opencode-beta.db")}`,
        `scanning opencode sessions in ${join(data, "opencode.db")}`,
      ]);
      expect(knownSources(join(dir, "elsewhere"), "opencode", { opencode: data })).toHaveLength(2);
      // $OPENCODE_DB: a database elsewhere, read beside the folder's (once, when it names one of them).
      expect(knownSources(home, "opencode", { opencodeDb: renamed }).map((s) => s.description)).toContain(
        `scanning opencode sessions in ${renamed}`,
      );
      expect(knownSources(home, "opencode", { opencodeDb: "opencode.db" })).toHaveLength(2);
    } finally {
      cleanup();
    }
  });
});
