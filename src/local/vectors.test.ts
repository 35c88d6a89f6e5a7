import { describe, expect, it } from "vitest";
import { numberedChunk } from "../../test/helpers/chunks.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { arrow } from "./arrow.js";
import { embeddedRows } from "./publish-rows.js";
import { rowPlaces } from "./publish-stream.js";
import { memoryBatch } from "./rows.js";
import { COLUMNS, VECTOR_DIM, vectorType } from "./schema.js";
import { LocalStore } from "./store.js";
import { pendingTexts, pendingVectorRows, writePendingVectors, writeVectors } from "./vectors.js";

/** Stores `vector` in row `id` the way an earlier funes could, with no check (a NaN vector included). */
async function storeRaw(store: LocalStore, id: string, vector: Float32Array): Promise<void> {
  const rows = await store.table
    .query()
    .where(`id = '${id}'`)
    .select(COLUMNS.filter((c) => c !== "vector"))
    .toArrow();
  const b = rows.batches[0];
  if (b === undefined) throw new Error(`no row ${id}`);
  const child = arrow.makeData({ type: new arrow.Float32(), length: VECTOR_DIM, data: vector });
  const v = arrow.makeData({ type: vectorType(), length: 1, nullCount: 0, child });
  await store.table
    .mergeInsert("id")
    .whenMatchedUpdateAll()
    .execute(new arrow.Table([memoryBatch(b, v)]));
}

async function vectorOf(store: LocalStore, id: string): Promise<number[] | null> {
  const rows = await store.table.query().where(`id = '${id}'`).select(["vector"]).toArray();
  const v = rows[0]?.vector as { toArray(): ArrayLike<number> } | null | undefined;
  return v === null || v === undefined ? null : Array.from(v.toArray());
}

describe("pending vector rows", () => {
  it("reads texts and writes vectors by where rows were listed, keeping every other column", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      // Three fragments, so locations span several of them.
      for (let f = 0; f < 3; f++) await store.append([0, 1, 2, 3].map((k) => numberedChunk(f * 4 + k)));
      const pending = await pendingVectorRows(store.table);
      expect(pending).toHaveLength(12);
      expect(pending.every((r) => typeof r.rowId === "bigint")).toBe(true);
      const some = pending.filter((r) => Number(r.id.slice(3)) % 3 === 0);
      const texts = await pendingTexts(store.table, some);
      expect([...texts.keys()].sort()).toEqual(some.map((r) => r.id).sort());
      expect(texts.get("id-9")).toBe("text of row 9");
      const vectors = unitVectors(12, 3);
      const mine = new Map(some.map((r) => [r.id, vectors.get(r.id) as Float32Array]));
      expect(await writePendingVectors(store.table, some, mine)).toBe(4);
      expect(await store.table.countRows("vector IS NULL")).toBe(8);
      expect((await vectorOf(store, "id-6"))?.[0]).toBeCloseTo(
        (vectors.get("id-6") as Float32Array)[0] ?? 0,
        6,
      );
      const row = (await store.table.query().where("id = 'id-6'").toArray())[0];
      expect([row?.text, row?.session_id, Number(row?.seq)]).toEqual(["text of row 6", "s-2", 6]);
      expect(await store.rowCount()).toBe(12);
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("finds rows by id when the table was rewritten after they were listed", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      for (let f = 0; f < 3; f++) await store.append([0, 1, 2, 3].map((k) => numberedChunk(f * 4 + k)));
      const pending = await pendingVectorRows(store.table);
      // Forget the first fragment's rows and merge the rest: every listed location is now stale.
      await store.table.delete("seq < 4");
      await store.table.optimize();
      const left = pending.filter((r) => Number(r.id.slice(3)) >= 4);
      const texts = await pendingTexts(store.table, pending);
      expect([...texts.keys()].sort()).toEqual(left.map((r) => r.id).sort());
      const vectors = unitVectors(12, 5);
      expect(await writePendingVectors(store.table, pending, vectors)).toBe(8);
      expect(await store.table.countRows("vector IS NULL")).toBe(0);
      expect(await store.rowCount()).toBe(8);
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("a row stored with a NaN or infinite vector waits again: not published, embedded anew; none is ever written", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append([0, 1, 2, 3, 4, 5].map((k) => numberedChunk(k)));
      const good = unitVectors(6, 7);
      expect(await writeVectors(store.table, good)).toBe(6);
      await storeRaw(store, "id-3", new Float32Array(VECTOR_DIM).fill(Number.NaN));
      const inf = (good.get("id-5") as Float32Array).slice();
      inf[7] = Number.POSITIVE_INFINITY;
      await storeRaw(store, "id-5", inf);
      expect((await pendingVectorRows(store.table)).map((r) => r.id).sort()).toEqual(["id-3", "id-5"]);
      const places = await rowPlaces(store);
      expect(
        places
          .filter((p) => !p.embedded)
          .map((p) => p.id)
          .sort(),
      ).toEqual(["id-3", "id-5"]);
      expect((await embeddedRows(store)).numRows).toBe(4);
      // The guard before the disk: a non-finite vector is refused, the row keeps waiting.
      const nan = new Map([["id-3", new Float32Array(VECTOR_DIM).fill(Number.NaN)]]);
      await expect(writeVectors(store.table, nan)).rejects.toThrow("is not finite");
      expect(await pendingVectorRows(store.table)).toHaveLength(2);
      // Embedded again by the backfill's write: nothing waits any more.
      const pending = await pendingVectorRows(store.table);
      expect(await writePendingVectors(store.table, pending, good)).toBe(2);
      expect(await pendingVectorRows(store.table)).toEqual([]);
      expect((await embeddedRows(store)).numRows).toBe(6);
      store.close();
    } finally {
      t.cleanup();
    }
  });
});
