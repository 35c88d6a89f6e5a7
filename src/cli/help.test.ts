import { describe, expect, it } from "vitest";
import { closest, twoColumns } from "./help.js";

describe("help layout", () => {
  it("wraps descriptions between words under their column", () => {
    expect(twoColumns([["--json", "Print the summary as JSON for scripts to read"]], 40)).toBe(
      "  --json  Print the summary as JSON for\n          scripts to read",
    );
  });

  it("stacks descriptions under terms too wide to share a line with them", () => {
    expect(twoColumns([["--memory <spec-of-a-memory>", "Which memory"]], 40)).toBe(
      "  --memory <spec-of-a-memory>\n      Which memory",
    );
  });

  it("suggests a near word or one it starts, and nothing for a stranger", () => {
    expect(closest("recal", ["recall", "index"])).toBe("recall");
    expect(closest("--half", ["--half-life", "--harness"])).toBe("--half-life");
    expect(closest("frobnicate", ["recall", "index"])).toBeNull();
    // Two swapped neighbours are one edit, alone or beside another typo.
    expect(closest("idnex", ["index", "recall"])).toBe("index");
    expect(closest("--dyr-runn", ["--dry-run", "--json"])).toBe("--dry-run");
    expect(closest("vim", ["pi", "codex"])).toBeNull();
  });
});
