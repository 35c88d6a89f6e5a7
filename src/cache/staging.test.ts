import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { addedFiles, stageFrom } from "./staging.js";

describe("addedFiles", () => {
  it("lists only the table's new files: no version hint, no namespace folder or other by-products", () => {
    const t = tempDir();
    try {
      const view = join(t.dir, "view");
      const put = (root: string, rel: string) => {
        mkdirSync(join(root, rel, ".."), { recursive: true });
        writeFileSync(join(root, rel), rel);
      };
      put(view, "chunks.lance/data/a.lance");
      put(view, "chunks.lance/_versions/18446744073709551614.manifest");
      const stage = stageFrom(view, join(t.dir, "stage"));
      for (const rel of [
        "chunks.lance/data/b.lance",
        "chunks.lance/_versions/18446744073709551613.manifest",
        "chunks.lance/_transactions/1-x.txn",
        "chunks.lance/_indices/u/part_1_docs.lance",
        "chunks.lance/_versions/latest_version_hint.json",
        // What lancedb.connect() leaves beside the table, and stray files inside it.
        "__manifest/_versions/1.manifest",
        "__manifest/data/c.lance",
        "chunks.lance/.DS_Store",
        "chunks.lance/__manifest/data/d.lance",
      ])
        put(stage.dir, rel);
      expect(addedFiles(stage)).toEqual([
        "chunks.lance/_indices/u/part_1_docs.lance",
        "chunks.lance/_transactions/1-x.txn",
        "chunks.lance/_versions/18446744073709551613.manifest",
        "chunks.lance/data/b.lance",
      ]);
    } finally {
      t.cleanup();
    }
  });
});
