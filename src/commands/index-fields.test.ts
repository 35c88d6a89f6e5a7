/**
 * Index-time redaction of the columns besides the text (issue 40): a secret in the working folder, the tool
 * name or an id is redacted before the row is stored, as one in the text is. Real Lance in a temporary folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { LocalStore } from "../local/index.js";
import { indexSessions } from "./index.js";

const KEY_ID = "AKIAQYLPMN5HHHFPZAM2";
const TOKEN = "ghp_R8xw2kQvN4cLp7TzY1bHs9MdJf3GaE6uWn0K";

describe("index redacts every column a row is stored with", () => {
  it("a key in the recorded working folder and a token as a tool name are stored redacted", async () => {
    const t = tempDir();
    try {
      const project = join(t.dir, "home", ".claude", "projects", "-home-dev-app");
      mkdirSync(project, { recursive: true });
      const cwd = `/home/dev/aws_access_key_id=${KEY_ID}/app`;
      const rec = (o: object) =>
        JSON.stringify({ sessionId: "s1", cwd, timestamp: "2026-01-01T00:00:00Z", ...o });
      writeFileSync(
        join(project, "s1.jsonl"),
        [
          rec({ type: "user", uuid: "u1", message: { role: "user", content: "list the files" } }),
          rec({
            type: "assistant",
            uuid: "a1",
            message: {
              role: "assistant",
              content: [{ type: "tool_use", id: "t1", name: TOKEN, input: { a: 1 } }],
            },
          }),
        ].join("\n"),
      );
      const summary = await indexSessions({
        funesHome: join(t.dir, "funes"),
        home: join(t.dir, "home"),
        path: project,
        thinking: true,
        force: false,
      });
      expect(summary.chunksAdded).toBe(2);
      const store = (await LocalStore.open(join(t.dir, "funes", "memory"))) as LocalStore;
      try {
        const rows = await store.table.query().select(["workdir", "tool_name", "text"]).toArray();
        const all = JSON.stringify(rows);
        expect(all).not.toContain(KEY_ID);
        expect(all).not.toContain(TOKEN);
        expect(rows.map((r) => r.workdir)).toEqual([
          "-home-dev-aws-access-key-id-[REDACTED:aws-access-key-id]-app",
          "-home-dev-aws-access-key-id-[REDACTED:aws-access-key-id]-app",
        ]);
        expect(rows.map((r) => r.tool_name)).toContain("[REDACTED:github]");
      } finally {
        store.close();
      }
      expect(Object.keys(summary.redacted)).toEqual(expect.arrayContaining(["aws-access-key-id", "github"]));
    } finally {
      t.cleanup();
    }
  });
});
