import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { isUnitCurrent, loadIndexState, saveIndexState, type UnitState } from "./index-state.js";

describe("state.json", () => {
  it("remembers how a unit was read, and a change of harness or a newer parser makes it owed again", async () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "state.json");
      const units = new Map<string, UnitState>([
        ["/h/a.jsonl", { sig: "10:1", level: "ToolResult", harness: "claude_code", parser: 2, chunks: 0 }],
      ]);
      await saveIndexState(path, units);
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
        "/h/a.jsonl": { sig: "10:1", level: "ToolResult", harness: "claude_code", parser: 2, chunks: 0 },
      });
      const { units: back } = loadIndexState(path);
      const claude = { harness: "claude_code", parser: 2 };
      expect(isUnitCurrent(back, "/h/a.jsonl", "10:1", claude)).toBe(true);
      expect(isUnitCurrent(back, "/h/a.jsonl", "10:2", claude)).toBe(false);
      // Indexed with the wrong --harness (0 chunks): the right one reads it again.
      expect(isUnitCurrent(back, "/h/a.jsonl", "10:1", { harness: "codex", parser: 2 })).toBe(false);
      expect(isUnitCurrent(back, "/h/a.jsonl", "10:1", { harness: "claude_code", parser: 3 })).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it("takes entries the reference wrote (no harness, no parser) as read by parser 1", () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "state.json");
      writeFileSync(
        path,
        JSON.stringify({ s1: { sig: "42", level: "ToolResult" }, s2: { sig: "7", level: "Text" } }),
      );
      const { units, discarded } = loadIndexState(path);
      expect(discarded).toBeNull();
      expect(isUnitCurrent(units, "s1", "42", { harness: "hermes", parser: 1 })).toBe(true);
      // A parser that has learned more since reads it once more.
      expect(isUnitCurrent(units, "s1", "42", { harness: "claude_code", parser: 2 })).toBe(false);
      // A unit recorded at a lower tier is owed for the full one.
      expect(isUnitCurrent(units, "s2", "7", { harness: "hermes", parser: 1 })).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
