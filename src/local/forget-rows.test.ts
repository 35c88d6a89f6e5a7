import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { lancedb } from "./arrow.js";
import { deleteIds, fragmentsWithDeletions, purgeRows } from "./forget-rows.js";
import { VECTOR_INDEX } from "./publish-rows.js";
import { keywordSearch } from "./queries.js";
import { LocalStore } from "./store.js";
import { writeVectors } from "./vectors.js";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("purging rows", () => {
  it("leaves no file holding a forgotten row, rows forgotten earlier included, and keeps the others whole", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      // Three writes, three fragments; the secrets sit in the first and the last.
      const text = (i: number) =>
        i === 3 ? "token zq-7f3a-first-secret" : i === 25 ? "token zq-9c1d-second-secret" : `plain row ${i}`;
      for (const from of [0, 10, 20])
        await store.append(
          Array.from({ length: 10 }, (_, k) => leakyRow(`id-${from + k}`, text(from + k), from + k)),
        );
      await writeVectors(store.table, unitVectors(30, 7));
      await store.maintainTextIndex();
      const held = (s: string) => filesUnder(t.dir).some((f) => readFileSync(f).includes(Buffer.from(s)));
      expect(held("zq-7f3a-first-secret") && held("zq-9c1d-second-secret")).toBe(true);
      // The second one is only hidden first (a delete), as a forget without a purge leaves it.
      await deleteIds(store.table, ["id-25"]);
      expect(held("zq-9c1d-second-secret")).toBe(true);
      expect(fragmentsWithDeletions(t.dir).size).toBeGreaterThan(0);

      const r = await purgeRows(store.table, t.dir, new Set(["id-3"]), () => Date.now());
      expect(r.rewritten).toBeGreaterThan(0);
      expect(held("zq-7f3a-first-secret")).toBe(false);
      expect(held("zq-9c1d-second-secret")).toBe(false);
      // Nor a word of them: the text index that held their tokens is gone with every older version.
      expect(held("7f3a") || held("9c1d")).toBe(false);
      expect(fragmentsWithDeletions(t.dir).size).toBe(0);
      expect(await store.table.countRows()).toBe(28);
      // Rows written again keep their vectors and stay searchable by keyword.
      const expected = unitVectors(30, 7);
      const rows = await store.table.query().select(["id", "vector"]).toArray();
      for (const row of rows)
        expect(Array.from(row.vector as Iterable<number>)).toEqual(
          Array.from(expected.get(String(row.id)) ?? []),
        );
      expect(
        (await keywordSearch(store.table, { query: "plain row 4", limit: 5 })).map((h) => h.id),
      ).toContain("id-4");
      expect(await keywordSearch(store.table, { query: "zq", limit: 5 })).toEqual([]);
      expect((await store.table.listIndices()).map((i) => i.name)).toContain("text_idx");
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("rebuilds a published memory's vector index, which still answers", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append(Array.from({ length: 300 }, (_, i) => leakyRow(`id-${i}`, `row ${i}`, i)));
      const vectors = unitVectors(300, 3);
      await writeVectors(store.table, vectors);
      await store.table.createIndex("vector", {
        config: lancedb.Index.ivfPq({ distanceType: "l2", numSubVectors: 24, numBits: 8, maxIterations: 50 }),
        name: VECTOR_INDEX,
      });
      await purgeRows(store.table, t.dir, new Set(["id-7"]), () => Date.now());
      expect((await store.table.listIndices()).map((i) => i.name)).toContain(VECTOR_INDEX);
      expect((await store.table.indexStats(VECTOR_INDEX))?.numIndexedRows).toBe(299);
      const probe = Array.from(vectors.get("id-42") ?? []);
      const hits = await store.table.vectorSearch(probe).limit(1).select(["id"]).toArray();
      expect(hits[0]?.id).toBe("id-42");
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("drops the local memory's IVF_RQ index instead of turning it into a published one's, for the store to train again", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append(Array.from({ length: 300 }, (_, i) => leakyRow(`id-${i}`, `row ${i}`, i)));
      const vectors = unitVectors(300, 5);
      await writeVectors(store.table, vectors);
      expect(await store.maintainVectorIndex(100)).toBe("built");
      await purgeRows(store.table, t.dir, new Set(["id-7"]), () => Date.now());
      expect((await store.table.listIndices()).some((i) => i.columns.includes("vector"))).toBe(false);
      // Trained again from the rows left, of the local kind, so it is kept incrementally from here on.
      expect(await store.maintainVectorIndex(100)).toBe("built");
      const index = (await store.table.listIndices()).find((i) => i.columns.includes("vector"));
      expect(index?.indexType).toBe("IvfRq");
      expect((await store.table.indexStats(VECTOR_INDEX))?.numIndexedRows).toBe(299);
      const probe = Array.from(vectors.get("id-42") ?? []);
      const hits = await store.table.vectorSearch(probe).limit(1).select(["id"]).toArray();
      expect(hits[0]?.id).toBe("id-42");
      store.close();
    } finally {
      t.cleanup();
    }
  });
});
