import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { listCachedMemories, pruneCache } from "./inventory.js";
import { processGone, writerPid } from "./leftovers.js";

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

describe("leftovers", () => {
  it("reads the writer's pid from every name funes writes aside, and judges only those", () => {
    const sha = "c".repeat(40);
    expect(writerPid(`.build-${sha}-4242-0a1b2c3d`)).toBe(4242);
    expect(writerPid(".trash-4242-0a1b2c3d")).toBe(4242);
    expect(writerPid(`${"e".repeat(64)}.4242-0a1b2c3d.incomplete`)).toBe(4242);
    expect(writerPid("4242-1-deadbeef")).toBe(4242);
    expect(writerPid(".DS_Store")).toBeNull();
    expect(writerPid("notes.txt")).toBeNull();
    expect(processGone(`.build-${sha}-${process.pid}-0a1b2c3d`)).toBe(false);
    expect(processGone(".DS_Store")).toBe(false);
  });
});
