/**
 * An index run over the agents' folders when a store there is reached through a link out of its folder
 * (issue 40): the store is named and counted among what could not be read, nothing of it is stored, and
 * the other agents' sessions are indexed. Real Lance in a temporary folder.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { indexSessions } from "./index.js";

describe.runIf(process.platform !== "win32")("index of a store linked out of its agent's folder", () => {
  it("names and counts it, stores nothing of it, and indexes the rest", async () => {
    const t = tempDir();
    try {
      const home = join(t.dir, "home");
      const project = join(home, ".claude", "projects", "-home-dev-app");
      mkdirSync(project, { recursive: true });
      mkdirSync(join(home, ".hermes"));
      writeFileSync(
        join(project, "s.jsonl"),
        `{"type":"user","uuid":"u1","cwd":"/home/dev/app","message":{"role":"user","content":"run the tests"}}\n`,
      );
      const other = join(t.dir, "elsewhere", "other.db");
      mkdirSync(join(t.dir, "elsewhere"));
      writeHermesDb(
        other,
        "v30",
        [{ id: "s9" }],
        [{ session_id: "s9", role: "user", content: "the aardvark merger", timestamp: 1 }],
      );
      const db = join(home, ".hermes", "state.db");
      symlinkSync(other, db);
      const s = await indexSessions({ funesHome: join(t.dir, "funes"), home, thinking: true });
      expect(s.failed).toEqual([
        {
          key: db,
          reason:
            "database not read: a link (links in an agent's folder are not followed) — check that file: funes reads only regular files inside the agent's folder",
        },
      ]);
      expect([s.sessions, s.turns]).toEqual([1, 1]);
      expect(s.sessionsByHarness).toEqual({ claude_code: 1 });
    } finally {
      t.cleanup();
    }
  });
});
