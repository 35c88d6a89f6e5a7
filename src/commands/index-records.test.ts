/**
 * What an index run says of the records it reads: distinct turns without ids are all stored and never
 * counted as repeats (issue 38), and a record that cannot be read is passed over and named, never the
 * session (issue 40). Real Lance in a temporary folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { indexSessions } from "./index.js";

let t: { dir: string; cleanup: () => void };
let project: string;

beforeEach(() => {
  t = tempDir();
  project = join(t.dir, "home", ".claude", "projects", "-home-dev-app");
  mkdirSync(project, { recursive: true });
});
afterEach(() => t.cleanup());

const index = (path: string, force = false) =>
  indexSessions({ funesHome: join(t.dir, "funes"), home: join(t.dir, "home"), path, thinking: true, force });

describe("index of records without a uuid", () => {
  it("stores all 18 distinct turns of a session, once, and says so truly", async () => {
    // A session another tool wrote in Claude Code's shape: one user record per turn, no uuid.
    const lines = Array.from({ length: 18 }, (_, i) =>
      JSON.stringify({
        type: "user",
        message: { role: "user", content: `Speaker ${i % 2 === 0 ? "A" : "B"}: point ${i} of the meeting` },
        timestamp: new Date(Date.UTC(2026, 0, 1, 9, i)).toISOString(),
        sessionId: "meeting-notes",
      }),
    );
    const file = join(project, "meeting-notes.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const first = await index(file);
    expect([first.turns, first.chunksAdded, first.chunksRepeated, first.chunksPresent]).toEqual([
      18, 18, 0, 0,
    ]);
    const again = await index(file, true);
    expect([again.turns, again.chunksAdded, again.chunksRepeated, again.chunksPresent]).toEqual([
      18, 0, 0, 18,
    ]);
  });
});

describe("index of a record that cannot be read", () => {
  it("stores the rest of the session, and its summary names the file and line passed over", async () => {
    const depth = 100_000;
    const deep = `${"[".repeat(depth)}1${"]".repeat(depth)}`;
    const file = join(project, "deep.jsonl");
    writeFileSync(
      file,
      [
        `{"type":"user","uuid":"u1","cwd":"/home/dev/app","message":{"role":"user","content":"run the tests"}}`,
        `{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":${deep}}]}}`,
        `{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":"all green"}}`,
      ].join("\n"),
    );
    const s = await index(file);
    expect(s.failed).toEqual([]);
    expect([s.unitsRead, s.turns, s.chunksAdded]).toEqual([1, 2, 2]);
    expect(s.skipped["record that could not be read"]).toBe(1);
    expect(s.notes).toEqual([
      `line 2 of ${file} passed over (JSON nested too deep to read); the rest of it was read`,
    ]);
  });

  it("in a database, stores the rest of the session, and its summary names the row passed over", async () => {
    const depth = 100_000;
    const deep = `${"[".repeat(depth)}1${"]".repeat(depth)}`;
    const db = join(t.dir, "home", ".hermes", "state.db");
    mkdirSync(join(t.dir, "home", ".hermes"));
    writeHermesDb(
      db,
      "v30",
      [{ id: "s1" }],
      [
        { session_id: "s1", role: "user", content: "the ocelot queue is kafka", timestamp: 1 },
        {
          session_id: "s1",
          role: "assistant",
          content: "",
          tool_calls: `[{"id":"c1","type":"function","function":{"name":"terminal","arguments":${deep}}}]`,
          timestamp: 2,
        },
        { session_id: "s1", role: "user", content: "the marmot job retries thrice", timestamp: 3 },
      ],
    );
    const s = await index(db);
    expect(s.failed).toEqual([]);
    expect([s.unitsRead, s.turns, s.chunksAdded]).toEqual([1, 2, 2]);
    expect(s.skipped["record that could not be read"]).toBe(1);
    expect(s.notes).toEqual([
      "message id 2 of s1 passed over (JSON nested too deep to read); the rest of it was read",
    ]);
  });
});
