import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { padManifest, padNewestManifest } from "../../test/helpers/padded-manifest.js";
import { checkManifests, MAX_MANIFEST_BYTES, UnsafeManifestError } from "./manifest-check.js";

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

  it("checks a manifest wherever it lies in the folder, not only under _versions/", async () => {
    const tmp = tempDir();
    try {
      const source = await makeTable(join(tmp.dir, "db"));
      const db = await lancedb.connect(join(tmp.dir, "clone"));
      (await db.cloneTable("chunks", source, { isShallow: true })).close();
      db.close();
      const cloneVersions = join(tmp.dir, "clone", "chunks.lance", "_versions");
      const hostile = readFileSync(
        join(cloneVersions, readdirSync(cloneVersions).find((n) => n.endsWith(".manifest")) as string),
      );
      // The clone's manifest where an old Lance looks for the latest version, as a branch's version, and
      // as a copy beside the real ones: each is refused, naming where it lies.
      for (const rel of ["_latest.manifest", "tree/b/_versions/1.manifest", "_versions/1.manifest-copy"]) {
        const table = await makeTable(join(tmp.dir, `db-${rel.length}`));
        mkdirSync(dirname(join(table, rel)), { recursive: true });
        writeFileSync(join(table, rel), hostile);
        expect(() => checkManifests(table)).toThrow(`${rel} names a base path outside the memory`);
      }
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses data and index file names that leave the folder in any spelling", async () => {
    const tmp = tempDir();
    try {
      const source = await makeTable(join(tmp.dir, "db"));
      const versions = join(source, "_versions");
      const dataName = readdirSync(join(source, "data"))[0] as string;
      const indexDir = readdirSync(join(source, "_indices"))[0] as string;
      const indexFile = readdirSync(join(source, "_indices", indexDir))[0] as string;
      // Same-length replacements, so the protobuf stays well formed and only the name is hostile.
      const spellings = (name: string) =>
        [
          "../../../../../../../../../../../../../../../../../../../../../etc/x",
          "/tmp/evil/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          "..\\..\\..\\..\\..\\Windows\\xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          "C:\\Users\\victim\\xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          "file:///tmp/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          "NUL.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // a Windows device
        ].map((h) => h.slice(0, name.length).padEnd(name.length, "x"));
      let tried = 0;
      const refused: string[] = [];
      for (const [name, what] of [
        [dataName, "a data file"],
        [indexFile, "an index file"],
      ] as const)
        for (const hostile of spellings(name)) {
          const copy = join(tmp.dir, `copy-${tried++}`);
          cpSync(source, copy, { recursive: true });
          let planted = false;
          for (const m of readdirSync(versions).filter((n) => n.endsWith(".manifest"))) {
            const bytes = readFileSync(join(versions, m));
            const at = bytes.indexOf(Buffer.from(name));
            if (at < 0) continue;
            Buffer.from(hostile).copy(bytes, at);
            writeFileSync(join(copy, "_versions", m), bytes);
            planted = true;
          }
          expect(planted, name).toBe(true);
          expect(() => checkManifests(copy), hostile).toThrow(`names ${what} outside the memory`);
          refused.push(what);
        }
      expect(refused.filter((w) => w === "a data file").length).toBe(7);
      expect(refused.filter((w) => w === "an index file").length).toBe(7);
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses a table that lacks a column it is required to have, naming the columns", async () => {
    const tmp = tempDir();
    try {
      const source = await makeTable(join(tmp.dir, "db"));
      expect(checkManifests(source, ["id", "text"])).toBe(3);
      let caught: unknown;
      try {
        checkManifests(source, ["id", "text", "seq", "vector"]);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(UnsafeManifestError);
      expect((caught as UnsafeManifestError).kind).toBe("columns");
      expect((caught as UnsafeManifestError).reason).toBe(
        'has no "seq", "vector" columns: it is not the table of a funes memory',
      );
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses a manifest that claims more rows than its data files could hold", async () => {
    const tmp = tempDir();
    try {
      const db = await lancedb.connect(join(tmp.dir, "rows"));
      const rows = Array.from({ length: 5000 }, (_, i) => ({ id: `${i}`.padStart(16, "0"), text: "x" }));
      (await db.createTable("chunks", rows)).close();
      db.close();
      const table = join(tmp.dir, "rows", "chunks.lance");
      expect(checkManifests(table)).toBe(1);
      // The same manifest over a data file of 10 bytes: 5,000 rows cannot be in there.
      for (const name of readdirSync(join(table, "data")))
        writeFileSync(join(table, "data", name), "0123456789");
      expect(() => checkManifests(table)).toThrow(/says its data files hold 5000 rows in 10 bytes/);
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses a padded manifest by its field counts, quickly, and one larger than funes writes unread", async () => {
    const tmp = tempDir();
    try {
      const source = await makeTable(join(tmp.dir, "db"));
      const versions = join(source, "_versions");
      const name = readdirSync(versions).find((n) => n.endsWith(".manifest")) as string;
      const real = readFileSync(join(versions, name));
      // A few fields a newer Lance might add are read past.
      writeFileSync(join(versions, name), padManifest(real, 3));
      expect(checkManifests(source)).toBe(3);
      // 2 M unknown fields (5.7 MiB): the reader that kept them all took 1.7 s and 549 MB.
      writeFileSync(join(versions, name), padManifest(real, 2_000_000));
      const t0 = performance.now();
      let caught: unknown;
      try {
        checkManifests(source);
      } catch (err) {
        caught = err;
      }
      expect(performance.now() - t0).toBeLessThan(500);
      expect(caught).toBeInstanceOf(UnsafeManifestError);
      expect((caught as UnsafeManifestError).kind).toBe("oversize");
      expect((caught as UnsafeManifestError).message).toBe(
        `_versions/${name} a message holds more than 256 fields of unknown numbers, far more than a Lance manifest holds`,
      );
      // Over the byte cap: refused from its size, before it is read.
      writeFileSync(join(versions, name), real);
      const size = padNewestManifest(source, Math.ceil(MAX_MANIFEST_BYTES / 3) + 10);
      expect(size).toBeGreaterThan(MAX_MANIFEST_BYTES);
      expect(() => checkManifests(source)).toThrow(
        /is 16\.0 MiB, far larger than funes writes a manifest \(16 MiB at most\)/,
      );
    } finally {
      tmp.cleanup();
    }
  });
});
