import { describe, expect, it } from "vitest";
import { numberedChunk } from "../../test/helpers/chunks.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { LocalStore } from "./store.js";
import { pendingTexts, pendingVectorRows, writePendingVectors } from "./vectors.js";

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
});
