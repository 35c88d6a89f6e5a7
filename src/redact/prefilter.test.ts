import { describe, expect, it } from "vitest";
import { KeywordIndex } from "./prefilter.js";

describe("KeywordIndex", () => {
  const index = new KeywordIndex([["ghp_", "gho_"], ["sk-"], ["sk-ant-"], [], ["token"]]);

  it("selects the rules with a keyword in the text, ignoring ASCII case", () => {
    expect(index.rulesOf("export GITHUB=GHP_abc")).toEqual([0, 3]);
    expect(index.rulesOf("key sk-ant-api03-x")).toEqual([1, 2, 3]);
    expect(index.rulesOf("TOKEN=1 and gho_x")).toEqual([0, 3, 4]);
  });

  it("keeps always-run rules and finds keywords across non-ASCII text and overlaps", () => {
    expect(index.rulesOf("")).toEqual([3]);
    expect(index.rulesOf("é—sksk-ß tokentoken")).toEqual([1, 3, 4]);
    expect(index.rulesOf("s k - t o k e n")).toEqual([3]);
  });
});
