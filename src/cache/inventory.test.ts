import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { listCachedMemories, pruneCache } from "./inventory.js";

describe("cache prune", () => {
  it("keeps each memory's newest view and its side index, and removes older ones with theirs", async () => {
    const t = tempDir();
    try {
      const root = join(t.dir, "views", "acme--kb", "_root");
      const view = (sha: string, when: number) => {
        mkdirSync(join(root, sha, "chunks.lance"), { recursive: true });
        writeFileSync(join(root, sha, "chunks.lance", "x.lance"), sha);
        writeFileSync(join(root, sha, ".funes-complete"), "{}");
        utimesSync(join(root, sha, ".funes-complete"), when, when);
        mkdirSync(join(root, `${sha}.ann`, "ann.lance"), { recursive: true });
      };
      view("a".repeat(40), 1_000);
      view("b".repeat(40), 2_000);
      const [memory] = listCachedMemories(join(t.dir, "views"));
      expect(memory?.views.map((v) => v.sha)).toEqual(["b".repeat(40), "a".repeat(40)]);
      const r = await pruneCache(join(t.dir, "views"), join(t.dir, "hub"));
      expect(r.views).toBe(1);
      expect(existsSync(join(root, "b".repeat(40)))).toBe(true);
      expect(existsSync(join(root, `${"b".repeat(40)}.ann`))).toBe(true);
      expect(existsSync(join(root, "a".repeat(40)))).toBe(false);
      expect(existsSync(join(root, `${"a".repeat(40)}.ann`))).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
