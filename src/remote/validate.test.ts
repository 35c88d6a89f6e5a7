import { describe, expect, it } from "vitest";
import { isCommitSha, unsafeTreePath } from "./validate.js";

describe("Hub answers", () => {
  it("accepts only full commit ids", () => {
    expect(isCommitSha("a".repeat(40))).toBe(true);
    for (const bad of ["../../victim", "A".repeat(40), "a".repeat(39), `${"a".repeat(40)}/..`, 7, null])
      expect(isCommitSha(bad), String(bad)).toBe(false);
  });

  it("accepts plain file names under the folder and refuses everything that could leave it", () => {
    for (const ok of [
      "chunks.lance/data/0101-abc.lance",
      "chunks.lance/_indices/7f1c-uuid/part_0_tokens.lance",
      "chunks.lance/_versions/18446744073709551614.manifest",
      "chunks.lance/data/console.lance",
      "chunks.lance/data/nullable.lance",
    ])
      expect(unsafeTreePath(ok, "chunks.lance"), ok).toBeNull();
    for (const bad of [
      "chunks.lance/../escape",
      "chunks.lance/data/../../x",
      "chunks.lance/./x",
      "chunks.lance//x",
      "/etc/passwd",
      "other/chunks.lance/x",
      "chunks.lance/a\\..\\b",
      "chunks.lance/s3:bucket",
      "chunks.lance/new\nline",
      "chunks.lance/x/..",
      "chunks.lance/data/NUL.lance",
      "chunks.lance/data/con",
      "chunks.lance/_indices/Com1.idx",
      "chunks.lance/LPT9",
      "chunks.lance/data/x.lance.",
    ])
      expect(unsafeTreePath(bad, "chunks.lance"), JSON.stringify(bad)).not.toBeNull();
    expect(unsafeTreePath("default/train/0000.parquet", "")).toBeNull();
    expect(unsafeTreePath("/abs/0000.parquet", "")).not.toBeNull();
  });
});
