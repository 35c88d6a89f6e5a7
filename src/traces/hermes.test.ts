import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { readTree, tempDir } from "../../test/helpers/fixtures.js";
import {
  appendHermesMessages,
  type HermesMessage,
  type HermesSchema,
  writeHermesDb,
} from "../../test/helpers/hermes-db.js";
import { epochToRfc3339, HermesSource } from "./hermes.js";
import { sourceForPath, sourcesForPath } from "./sources.js";

// Written by hand: `1.0` must reach the parser as written (JSON.stringify would print 1).
const CALLS =
  '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\\"command\\":\\"ls\\"}"}},' +
  '{"id":"call_2","type":"function","function":{"name":"read","arguments":{"path":"a.txt", "n":1.0}}}]';

function sample(sid: string, t0: number): HermesMessage[] {
  return [
    { session_id: sid, role: "session_meta", timestamp: t0 },
    { session_id: sid, role: "user", content: "list the files", timestamp: t0 + 1.5 },
    {
      session_id: sid,
      role: "assistant",
      content: "",
      reasoning_content: "think",
      tool_calls: CALLS,
      timestamp: t0 + 2,
    },
    {
      session_id: sid,
      role: "tool",
      content: "a.txt",
      tool_call_id: "call_1",
      tool_name: "terminal",
      timestamp: t0 + 3,
    },
    {
      session_id: sid,
      role: "assistant",
      content: '\u0000json:[{"type":"text","text":"done"}]',
      timestamp: t0 + 4,
    },
  ];
}

function makeDb(schema: HermesSchema, extra: HermesMessage[] = []) {
  const t = tempDir();
  const db = join(t.dir, "state.db");
  writeHermesDb(
    db,
    schema,
    [{ id: "s1", cwd: "/home/u/proj" }, { id: "s2" }],
    [...sample("s1", 1000), ...sample("s2", 2000), ...extra],
  );
  return { db, cleanup: t.cleanup };
}

/** A source over a database made by `makeDb`, whose cleanup also releases the source's copy. */
function sourceOver(made: { db: string; cleanup: () => void }) {
  const source = new HermesSource(made.db);
  return {
    source,
    cleanup: () => {
      source.close();
      made.cleanup();
    },
  };
}

traceSourceContract("hermes", {
  harness: "hermes",
  async make() {
    return sourceOver(makeDb("v30"));
  },
  async makeDamaged() {
    return sourceOver(
      makeDb("v30", [
        { session_id: "s2", role: "assistant", content: "", tool_calls: "[not json", timestamp: 3000 },
      ]),
    );
  },
});

describe("HermesSource", () => {
  for (const schema of ["v6", "v12", "v20", "v30"] as const) {
    it(`reads schema ${schema}, columns by name`, async () => {
      const { db, cleanup } = makeDb(schema);
      try {
        const src = new HermesSource(db);
        const units = await src.listUnits();
        expect(units.map((u) => [u.key, u.signature])).toEqual([
          ["s2", "10"],
          ["s1", "5"],
        ]);
        // A size for each session (its content and tool-call text), for progress by bytes.
        expect(units.every((u) => (u.bytes ?? 0) > 100)).toBe(true);
        const r = await src.readUnit(units[1]!);
        const s = r.sessions[0]!;
        expect(s.workdir).toBe(schema === "v20" || schema === "v30" ? "-home-u-proj" : "hermes");
        expect(s.turns.map((t) => [t.turnUuid, t.role, t.ts])).toEqual([
          ["2", "user", "1970-01-01T00:16:41.500+00:00"],
          ["3", "assistant", "1970-01-01T00:16:42+00:00"],
          ["4", "tool", "1970-01-01T00:16:43+00:00"],
          ["5", "assistant", "1970-01-01T00:16:44+00:00"],
        ]);
        const asst = s.turns[1]!.blocks;
        // v6 has no reasoning_content column: the thinking block is simply absent.
        expect(asst.map((b) => b.blockType)).toEqual(
          schema === "v6" ? ["tool_use", "tool_use"] : ["thinking", "tool_use", "tool_use"],
        );
        expect(asst.filter((b) => b.blockType === "tool_use").map((b) => [b.toolName, b.text])).toEqual([
          ["terminal", '{"command":"ls"}'],
          ["read", '{"path":"a.txt","n":1.0}'],
        ]);
        expect(s.turns[3]!.blocks[0]!.text).toBe("done");
        expect(r.skipped).toEqual({ 'message role "session_meta" not indexed': 1 });
      } finally {
        cleanup();
      }
    });
  }

  it("changes a session's signature only when it gets new messages, and sees rows still in the WAL", async () => {
    const { db, cleanup } = makeDb("v20");
    try {
      const src = sourceForPath(db);
      const before = await src.listUnits();
      const writer = new Database(db);
      writer.pragma("wal_autocheckpoint = 0");
      appendHermesMessages(writer, "v20", [
        { session_id: "s1", role: "user", content: "more", timestamp: 5000 },
      ]);
      const after = await src.listUnits();
      writer.close();
      expect(after.find((u) => u.key === "s1")?.signature).toBe("11");
      expect(after.find((u) => u.key === "s2")?.signature).toBe(
        before.find((u) => u.key === "s2")?.signature,
      );
    } finally {
      cleanup();
    }
  });

  it("leaves the folder of a closed WAL-mode database as it was: no -wal or -shm beside it", async () => {
    const { db, cleanup } = makeDb("v30");
    try {
      const folder = join(db, "..");
      const before = readTree(folder);
      expect([...before.keys()]).toEqual(["state.db"]);
      const src = new HermesSource(db);
      for (const unit of await src.listUnits()) await src.readUnit(unit);
      src.close();
      expect(readTree(folder)).toEqual(before);
    } finally {
      cleanup();
    }
  });

  it("reads rows a running agent still holds in the WAL, and writes nothing beside its database", async () => {
    const { db, cleanup } = makeDb("v30");
    const writer = new Database(db);
    try {
      writer.pragma("wal_autocheckpoint = 0");
      appendHermesMessages(writer, "v30", [
        { session_id: "s3", role: "user", content: "only in the WAL", timestamp: 6000 },
      ]);
      const folder = join(db, "..");
      const before = readTree(folder);
      expect((before.get("state.db-wal")?.length ?? 0) > 0).toBe(true);
      const src = new HermesSource(db);
      const units = await src.listUnits();
      const s3 = units.find((u) => u.key === "s3");
      expect(s3).toBeDefined();
      const read = await src.readUnit(s3!);
      expect(read.sessions[0]?.turns.map((t) => t.blocks[0]?.text)).toEqual(["only in the WAL"]);
      src.close();
      expect(readTree(folder)).toEqual(before);
    } finally {
      writer.close();
      cleanup();
    }
  });

  it("takes a -journal or -wal beside a database for SQLite's, never for a transcript, whatever --harness says", () => {
    const { db, cleanup } = makeDb("v30");
    try {
      // Lines a Hermes session file could hold: read as one, they would be indexed.
      const lines = '{"role":"user","content":"from the journal"}\n';
      writeFileSync(`${db}-journal`, lines);
      for (const forced of [undefined, "hermes"] as const)
        expect(() => sourcesForPath(`${db}-journal`, forced)).toThrow(
          `"${db}-journal" is SQLite's rollback journal, not a transcript — index "${db}" instead`,
        );
      writeFileSync(`${db}-wal`, lines);
      expect(() => sourcesForPath(`${db}-wal`, "hermes")).toThrow(
        /is SQLite's write-ahead log, not a transcript/,
      );
      // Moved away from its database, a journal is still known by its first bytes.
      const moved = join(db, "..", "moved.bin");
      writeFileSync(moved, Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7, 0, 0, 0, 1]));
      expect(() => sourcesForPath(moved, "hermes")).toThrow(
        `"${moved}" is SQLite's rollback journal, not a transcript — index its database instead`,
      );
    } finally {
      cleanup();
    }
  });

  it("is the source for a SQLite file given with --harness hermes, whatever its tables look like", async () => {
    const { db, cleanup } = makeDb("v30");
    try {
      expect(sourcesForPath(db, "hermes").map((s) => s.kind)).toEqual(["hermes"]);
      // An OpenCode store named as Hermes's: read as asked, and said plainly when it is not.
      const w = new Database(db);
      w.exec("DROP TABLE messages");
      w.close();
      const [src] = sourcesForPath(db, "hermes");
      await expect(src!.listUnits()).rejects.toThrow(
        `"${db}" has no Hermes messages table — check that it is a Hermes state.db, or drop --harness hermes`,
      );
      src!.close?.();
      expect(() => sourcesForPath(db, "codex")).toThrow(
        `"${db}" is a SQLite database, which codex does not write — name --harness hermes or opencode, or drop --harness`,
      );
    } finally {
      cleanup();
    }
  });

  it("fails clearly on a file that is not a database", async () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "state.db");
      (await import("node:fs")).writeFileSync(p, "not sqlite at all, just text ".repeat(100));
      await expect(new HermesSource(p).listUnits()).rejects.toThrow(/not a database/);
    } finally {
      t.cleanup();
    }
  });

  it("names a Git LFS pointer found in place of the database (a backup checked out without LFS)", async () => {
    // A real ~/.hermes backup repository keeps state.db in LFS: a checkout without it holds this pointer.
    const t = tempDir();
    try {
      const p = join(t.dir, "state.db");
      (await import("node:fs")).writeFileSync(p, LFS_POINTER);
      await expect(new HermesSource(p).listUnits()).rejects.toThrow(
        "a Git LFS pointer in place of the file (run `git lfs pull` where it was checked out)",
      );
    } finally {
      t.cleanup();
    }
  });
});

const LFS_POINTER =
  "version https://git-lfs.github.com/spec/v1\noid sha256:0f0c4e614f47eb8d967c95984e1f2e6ea5a413defd91dad85542f027fc3e8ada\nsize 2605056\n";

describe("epochToRfc3339", () => {
  it("uses chrono's automatic fraction width", () => {
    expect(epochToRfc3339(1001.5)).toBe("1970-01-01T00:16:41.500+00:00");
    expect(epochToRfc3339(0)).toBe("1970-01-01T00:00:00+00:00");
    expect(epochToRfc3339(1.25e-4)).toBe("1970-01-01T00:00:00.000125+00:00");
    expect(epochToRfc3339(Number.NaN)).toBe("");
  });
});
