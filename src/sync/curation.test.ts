import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { decisionLine, readDecisions, recordDecisions } from "./curation.js";

describe("curation decisions file", () => {
  it("reads the line format, reports lines it does not understand, and replaces only what it records", () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "acme--app");
      writeFileSync(
        p,
        [
          "# reviewed by hand",
          "include s1 12   # 2026-11-02 fix the flaky test",
          "exclude s2",
          "",
          "include s3",
          "inclde s4",
          "include s5 twelve",
        ].join("\n"),
      );
      const d = readDecisions(p);
      expect([...d.bySession.values()]).toEqual([
        { kind: "include", sessionId: "s1", reviewed: 12 },
        { kind: "exclude", sessionId: "s2" },
        { kind: "include", sessionId: "s3", reviewed: null },
      ]);
      expect(d.unrecognized).toEqual(["inclde s4", "include s5 twelve"]);
      recordDecisions(p, [
        { decision: { kind: "exclude", sessionId: "s1" }, comment: "2026-11-02  fix\nthe  test" },
      ]);
      const text = readFileSync(p, "utf8");
      expect(text).toBe(
        "# reviewed by hand\nexclude s2\n\ninclude s3\ninclde s4\ninclude s5 twelve\nexclude s1   # 2026-11-02 fix the test\n",
      );
      expect(decisionLine({ kind: "include", sessionId: "x", reviewed: 3 }, "")).toBe("include x 3");
      expect(readDecisions(join(t.dir, "none")).bySession.size).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});
