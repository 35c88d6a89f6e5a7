import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { locallyForgottenIds, markForget, pendingForgetPath, readPendingForget } from "./forget-pending.js";
import { parseRemoteForgotten, readForgotten, renderRemoteForgotten } from "./forgotten.js";

describe("forgotten-ids files fail closed", () => {
  it("the Hub's file is read only in its own shape", () => {
    expect(parseRemoteForgotten(null)).toEqual(new Set());
    expect(parseRemoteForgotten(renderRemoteForgotten(new Set(["b", "a"])))).toEqual(new Set(["a", "b"]));
    for (const other of [
      '["a","b"]',
      '{"ids":["a"]}',
      '{"version":2,"ids":["a"]}',
      '{"version":1,"ids":{"a":1}}',
      '{"version":1,"ids":["a",1]}',
      "null",
      "{",
    ])
      expect(() => parseRemoteForgotten(other), other).toThrow();
  });

  it("this machine's file: missing is none; unreadable, unparsable or of another shape is refused", () => {
    const t = tempDir();
    try {
      const home = join(t.dir, "funes");
      mkdirSync(home);
      expect(readForgotten(home).size).toBe(0);
      const path = join(home, "forgotten.json");
      writeFileSync(
        path,
        JSON.stringify({ version: 1, ids: { a: { session: "s", turn: "t", source: "x", at: "" } } }),
      );
      expect([...readForgotten(home).keys()]).toEqual(["a"]);
      for (const other of [
        '["a"]',
        '{"ids":{"a":{}}}',
        '{"version":1,"ids":["a"]}',
        '{"version":1,"ids":{"a":3}}',
        "{",
      ]) {
        writeFileSync(path, other);
        expect(() => readForgotten(home), other).toThrow(/forgotten\.json is damaged/);
      }
    } finally {
      t.cleanup();
    }
  });
});

describe("the marker of an unfinished forget", () => {
  it("is read in its own shape only; the ids it lists count as forgotten here", async () => {
    const t = tempDir();
    try {
      const home = join(t.dir, "funes");
      mkdirSync(home);
      expect(readPendingForget(home)).toBeNull();
      await markForget(home, { dir: join(home, "memory"), ids: ["x"], remember: {} });
      expect(readPendingForget(home)?.ids).toEqual(["x"]);
      expect([...locallyForgottenIds(home)]).toEqual(["x"]);
      writeFileSync(pendingForgetPath(home), '{"version":1,"ids":"x"}');
      expect(() => readPendingForget(home)).toThrow(/forget-pending\.json is damaged .* — move it aside/);
      expect(() => locallyForgottenIds(home)).toThrow(/damaged/);
    } finally {
      t.cleanup();
    }
  });
});
