import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { checkManifests, UnsafeManifestError } from "./manifest-check.js";

/** A small table with an FTS index and a deletion (so the index section and deletion files are present). */
async function makeTable(dir: string): Promise<string> {
  const db = await lancedb.connect(dir);
  const t = await db.createTable("chunks", [
    { id: "a", text: "zebrafish swim" },
    { id: "b", text: "hello" },
  ]);
  await t.createIndex("text", { config: lancedb.Index.fts() });
  await t.delete("id = 'b'");
  t.close();
  db.close();
  return join(dir, "chunks.lance");
}

describe("manifest check", () => {
  it("passes a table whose manifests name only its own files", async () => {
    const tmp = tempDir();
    try {
      expect(checkManifests(await makeTable(join(tmp.dir, "db")))).toBe(3); // create, index, delete
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses a shallow clone (a base path outside the folder) and an undecodable manifest", async () => {
    const tmp = tempDir();
    try {
      const source = await makeTable(join(tmp.dir, "db"));
      const db = await lancedb.connect(join(tmp.dir, "clone"));
      (await db.cloneTable("chunks", source, { isShallow: true })).close();
      db.close();
      const clone = join(tmp.dir, "clone", "chunks.lance");
      expect(() => checkManifests(clone)).toThrow(UnsafeManifestError);
      expect(() => checkManifests(clone)).toThrow(
        `names a base path outside the memory (${JSON.stringify(source)})`,
      );

      const versions = join(source, "_versions");
      const name = readdirSync(versions).find((n) => n.endsWith(".manifest")) as string;
      const bytes = readFileSync(join(versions, name));
      bytes.writeBigUInt64LE(BigInt(bytes.length * 2), bytes.length - 16); // manifest position past the end
      writeFileSync(join(versions, name), bytes);
      expect(() => checkManifests(source)).toThrow(`_versions/${name} cannot be decoded`);
    } finally {
      tmp.cleanup();
    }
  });
});
