/**
 * An agent's SQLite store is copied as every file in its folder is read (`agent-file.ts`): the database and
 * its `-wal` and `-journal` are regular files reached without a link out of the folder, within a cap. A
 * refused database, or one whose side file is refused, is never copied nor read, and its source lists one
 * unit standing for it whose read says why. A database the user names is read through its links, but its
 * side files are never reached through one.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { AgentFileRefusedError } from "./agent-file.js";
import { HermesSource } from "./hermes.js";
import { OpenCodeSource } from "./opencode.js";
import { knownSources, sourcesForPath } from "./sources.js";
import { SqliteSnapshot } from "./sqlite-snapshot.js";
import type { TraceSource, UnitRead } from "./types.js";

const posix = process.platform !== "win32";
const LINK = "a link (links in an agent's folder are not followed)";

/** A private temporary folder for the copies, to see that a refusal leaves nothing in it. */
function privateTmp(dir: string): string {
  const tmp = join(dir, "tmp");
  mkdirSync(tmp, { mode: 0o700 });
  return tmp;
}

/** A Hermes database of one session saying `text`. */
function hermesDb(path: string, sid: string, text: string): void {
  writeHermesDb(path, "v30", [{ id: sid }], [{ session_id: sid, role: "user", content: text, timestamp: 1 }]);
}

/** Every text the source gives, unit by unit (a unit that fails: its error). */
async function readAll(source: TraceSource): Promise<(UnitRead | Error)[]> {
  try {
    const out: (UnitRead | Error)[] = [];
    for (const unit of await source.listUnits())
      out.push(await source.readUnit(unit).catch((e: unknown) => e as Error));
    return out;
  } finally {
    source.close?.();
  }
}

function textsOf(reads: (UnitRead | Error)[]): string[] {
  return reads.flatMap((r) =>
    r instanceof Error ? [] : r.sessions.flatMap((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text))),
  );
}

describe.runIf(posix)("an agent's SQLite store", () => {
  it("is refused, never copied, when the database is a link (out of its folder or not), a FIFO, or over its cap", () => {
    const t = tempDir();
    try {
      const tmp = privateTmp(t.dir);
      const agent = join(t.dir, ".hermes");
      mkdirSync(agent);
      hermesDb(join(t.dir, "other.db"), "s9", "the stranger's plan");
      symlinkSync(join(t.dir, "other.db"), join(agent, "state.db"));
      hermesDb(join(agent, "real.db"), "s1", "mine");
      symlinkSync(join(agent, "real.db"), join(agent, "inside.db"));
      execFileSync("mkfifo", [join(agent, "fifo.db")]);
      writeFileSync(join(agent, "huge.db"), "");
      truncateSync(join(agent, "huge.db"), 16 * 1024 ** 3 + 1); // sparse: no room taken
      const cases: [string, string][] = [
        ["state.db", LINK],
        ["inside.db", LINK],
        ["fifo.db", "not a regular file (a FIFO, socket or device is never opened)"],
        ["huge.db", "over its 16 GiB cap"],
      ];
      for (const [name, why] of cases) {
        const path = join(agent, name);
        let thrown: unknown;
        try {
          SqliteSnapshot.take(path, { tmp }).close();
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(AgentFileRefusedError);
        expect((thrown as Error).message).toBe(
          `database not read: ${why} — check that file: funes reads only regular files inside the agent's folder`,
        );
        expect(readdirSync(tmp)).toEqual([]);
      }
      const snap = SqliteSnapshot.take(join(agent, "real.db"), { tmp });
      expect(snap.get("SELECT content FROM messages")).toEqual({ content: "mine" });
      snap.close();
    } finally {
      t.cleanup();
    }
  });

  it("is refused whole when its -wal or -journal is a link or a FIFO: the file it reaches is never read", () => {
    const t = tempDir();
    try {
      const tmp = privateTmp(t.dir);
      const agent = join(t.dir, ".hermes");
      mkdirSync(agent);
      writeFileSync(
        join(t.dir, "credentials"),
        "aws_secret_access_key = 9drTJvcXLB89pQnQ3kYqGxfRB4t0y2ZmP6hWq7Ea",
      );
      const db = join(agent, "state.db");
      hermesDb(db, "s1", "mine");
      for (const [suffix, what] of [
        ["-wal", "write-ahead log"],
        ["-journal", "rollback journal"],
      ] as const) {
        for (const plant of ["link", "fifo"] as const) {
          const side = db + suffix;
          if (plant === "link") symlinkSync(join(t.dir, "credentials"), side);
          else execFileSync("mkfifo", [side]);
          const why =
            plant === "link" ? LINK : "not a regular file (a FIFO, socket or device is never opened)";
          expect(() => SqliteSnapshot.take(db, { tmp })).toThrow(
            new AgentFileRefusedError(side, `${what} "${side}" not read: ${why}, nor its database`),
          );
          expect(readdirSync(tmp)).toEqual([]);
          execFileSync("rm", [side]);
        }
      }
    } finally {
      t.cleanup();
    }
  });

  it("named by the user, is read through its links, with the side files beside the file they reach, never through a link", () => {
    const t = tempDir();
    try {
      const tmp = privateTmp(t.dir);
      const store = join(t.dir, "store");
      const named = join(t.dir, "named");
      mkdirSync(store);
      mkdirSync(named);
      // OpenCode's real store keeps its session in the WAL: read only with the WAL beside the real file.
      copyFileSync(join(TRACES, "opencode", "opencode.db"), join(store, "opencode.db"));
      copyFileSync(join(TRACES, "opencode", "opencode.db-wal"), join(store, "opencode.db-wal"));
      const link = join(named, "opencode.db");
      symlinkSync(join(store, "opencode.db"), link);
      const snap = SqliteSnapshot.take(link, { tmp, root: link });
      expect(snap.get<{ n: number }>("SELECT count(*) AS n FROM session")?.n).toBe(1);
      snap.close();
      // Folder-relative, the same link is refused.
      expect(() => SqliteSnapshot.take(link, { tmp })).toThrow(AgentFileRefusedError);
      // A side file beside the real database that is a link is refused even so.
      execFileSync("rm", [join(store, "opencode.db-wal")]);
      writeFileSync(join(t.dir, "elsewhere"), "not a WAL");
      symlinkSync(join(t.dir, "elsewhere"), join(store, "opencode.db-wal"));
      expect(() => SqliteSnapshot.take(link, { tmp, root: link })).toThrow(
        /write-ahead log ".*" not read: a link/,
      );
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});

describe.runIf(posix)("a refused store's source", () => {
  it("lists one unit for the database, whose read says why; nothing of what the link reaches is read", async () => {
    const t = tempDir();
    try {
      const home = join(t.dir, "home");
      mkdirSync(join(home, ".hermes"), { recursive: true });
      mkdirSync(join(home, ".local", "share", "opencode"), { recursive: true });
      hermesDb(join(t.dir, "other.db"), "s9", "the stranger's secret plan is the aardvark merger");
      symlinkSync(join(t.dir, "other.db"), join(home, ".hermes", "state.db"));
      copyFileSync(join(TRACES, "opencode", "opencode.db"), join(t.dir, "oc.db"));
      symlinkSync(join(t.dir, "oc.db"), join(home, ".local", "share", "opencode", "opencode.db"));
      const sources = knownSources(home);
      expect(sources.map((s) => s.constructor)).toEqual([HermesSource, OpenCodeSource]);
      for (const source of sources) {
        const reads = await readAll(source);
        expect(reads).toHaveLength(1);
        const [err] = reads;
        expect(err).toBeInstanceOf(AgentFileRefusedError);
        expect((err as Error).message).toMatch(/^database not read: a link \(links in an agent's folder/);
      }
      const listed = await sources[0]!.listUnits();
      expect(listed).toEqual([
        { key: join(home, ".hermes", "state.db"), signature: null, isSubagent: false },
      ]);
      // Named by the user, the same link is their choice: it is read.
      const [named] = sourcesForPath(join(home, ".hermes", "state.db"));
      expect(textsOf(await readAll(named!))).toEqual(["the stranger's secret plan is the aardvark merger"]);
    } finally {
      t.cleanup();
    }
  });
});
