import { describe, expect, it } from "vitest";
import { numberedChunk } from "../../test/helpers/chunks.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { appendMissing, embeddedRows, selectRows } from "./publish-rows.js";
import { pinVersion, rowBytes, rowPlaces, stringsAt, versionKept } from "./publish-stream.js";
import { LocalStore } from "./store.js";
import { writeVectors } from "./vectors.js";

describe("selecting rows to publish", () => {
  it("keeps exactly the chosen rows, every column intact, across batches and runs of rows", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(`${t.dir}/local`);
      // Three fragments, so the rows come in several batches.
      for (let f = 0; f < 3; f++)
        await store.append(
          Array.from({ length: 7 }, (_, k) => numberedChunk(f * 7 + k, { text: `row ${f * 7 + k} ü✓` })),
        );
      const vectors = unitVectors(21, 5);
      await writeVectors(store.table, vectors);
      const rows = await embeddedRows(store);
      expect(rows.numRows).toBe(21);
      // Scattered: single rows, runs, the first and the last of a batch.
      const keep = new Set([0, 1, 2, 5, 6, 7, 11, 12, 13, 14, 20].map((i) => `id-${i}`));
      const picked = selectRows(rows, keep);
      expect(picked.numRows).toBe(keep.size);
      expect(selectRows(rows, new Set()).numRows).toBe(0);
      // Written to a new table (as a push stages them), read back whole.
      expect(await appendMissing(`${t.dir}/stage`, picked)).toEqual({ added: keep.size, created: true });
      const staged = await LocalStore.open(`${t.dir}/stage`);
      try {
        const back = await staged?.table.query().toArray();
        expect((back ?? []).map((r) => String(r.id)).sort()).toEqual([...keep].sort());
        for (const r of back ?? []) {
          const i = Number(String(r.id).slice(3));
          expect([r.text, r.session_id, Number(r.seq), r.turn_uuid]).toEqual([
            `row ${i} ü✓`,
            `s-${i % 4}`,
            i,
            `t-${i}`,
          ]);
          const want = vectors.get(String(r.id)) as Float32Array;
          expect(Array.from(r.vector as Iterable<number>)).toEqual(Array.from(want));
        }
      } finally {
        staged?.close();
      }
      store.close();
    } finally {
      t.cleanup();
    }
  });
});

describe("streaming rows to publish from the local memory", () => {
  it("writes and sizes exactly what selecting them from one table does, rows waiting for vectors left out", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(`${t.dir}/local`);
      for (let f = 0; f < 3; f++)
        await store.append(Array.from({ length: 7 }, (_, k) => numberedChunk(f * 7 + k)));
      // Rows 18–20 wait for vectors.
      const vectors = unitVectors(18, 5);
      await writeVectors(store.table, vectors);
      await pinVersion(store);
      const places = await rowPlaces(store);
      expect(
        places
          .filter((p) => p.embedded)
          .map((p) => p.id)
          .sort(),
      ).toEqual([...vectors.keys()].sort());
      expect(places.length).toBe(21);
      // One of them named too: it is never streamed (no vector).
      const ids = new Set([0, 2, 3, 4, 9, 16, 17, 19].map((i) => `id-${i}`));
      const picked = selectRows(await embeddedRows(store), ids);
      expect(picked.numRows).toBe(7);
      expect(await rowBytes({ store, ids })).toBe(picked.batches.reduce((n, b) => n + b.data.byteLength, 0));
      // Read by a scan, and taken where rows were listed (every embedded row: `ids` still decides).
      const rowIds = Float64Array.from(places.filter((p) => p.embedded).map((p) => p.rowId)).sort();
      for (const [stage, rows] of [
        ["scan", { store, ids }],
        ["take", { store, ids, rowIds }],
      ] as const) {
        expect(await appendMissing(`${t.dir}/${stage}`, rows)).toEqual({ added: 7, created: true });
        const staged = await LocalStore.open(`${t.dir}/${stage}`);
        try {
          const back = (await staged?.table.query().toArray()) ?? [];
          expect(back.map((r) => String(r.id)).sort()).toEqual(
            [...ids].filter((id) => id !== "id-19").sort(),
          );
          for (const r of back)
            expect(Array.from(r.vector as Iterable<number>)).toEqual(
              Array.from(vectors.get(String(r.id)) as Float32Array),
            );
        } finally {
          staged?.close();
        }
      }
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("knows when an index run's compaction dropped the version a push pinned (its reads then fail)", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(`${t.dir}/local`);
      for (let f = 0; f < 3; f++)
        await store.append(Array.from({ length: 7 }, (_, k) => numberedChunk(f * 7 + k)));
      const pinned = await pinVersion(store);
      const places = await rowPlaces(store);
      expect(await versionKept(store, pinned)).toBe(true);
      // Another process (an index run) compacts and drops every version before its own.
      const other = (await LocalStore.open(`${t.dir}/local`)) as LocalStore;
      await other.append([numberedChunk(99)]);
      await other.table.optimize({ cleanupOlderThan: new Date(Date.now() + 60_000) });
      other.close();
      expect(await versionKept(store, pinned)).toBe(false);
      await expect(stringsAt(store, places.slice(0, 3))).rejects.toThrow();
      store.close();
    } finally {
      t.cleanup();
    }
  });
});
