import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { DataType } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import type { Chunk } from "../chunk/index.js";
import { arrow, lancedb } from "./arrow.js";
import { refreshVectorIndex, VECTOR_INDEX } from "./publish-rows.js";
import { keywordSearch, rowsInRanges, vectorSearch } from "./queries.js";
import { COLUMNS, EMBEDDING_MODEL } from "./schema.js";
import { IncompatibleMemoryError, LocalStore, TEXT_INDEX } from "./store.js";
import { writeVectors } from "./vectors.js";

function chunk(i: number, text: string, extra: Partial<Chunk> = {}): Chunk {
  return {
    id: `id-${i}`,
    text,
    sessionId: `s-${i % 3}`,
    workdir: "-w",
    turnUuid: `t-${i}`,
    parentUuid: i === 0 ? null : `t-${i - 1}`,
    seq: i,
    ts: "2026-06-12T21:21:57.939Z",
    role: i % 2 === 0 ? "user" : "assistant",
    blockType: "text",
    toolName: null,
    sourcePath: "/x.jsonl",
    blockIdx: 0,
    splitIdx: 0,
    harness: i % 2 === 0 ? "claude_code" : "codex",
    repo: "",
    ...extra,
  };
}

const EXPECTED_TYPES = [
  "Utf8",
  "Utf8",
  "Utf8",
  "Utf8",
  "Utf8",
  "Utf8",
  "Int64",
  "Utf8",
  "Utf8",
  "Utf8",
  "Utf8",
  "Utf8",
  "Int64",
  "Int64",
  "FixedSizeList[384]<Float32>",
  "Utf8",
  "Utf8",
];

describe("LocalStore", () => {
  it("creates the reference's 17-column schema with its metadata, rows without vectors", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append([
        chunk(0, "hello lance world"),
        chunk(1, "tool output", { toolName: "Bash", blockType: "tool_result" }),
      ]);
      const schema = await store.table.schema();
      expect(schema.fields.map((f) => f.name)).toEqual([...COLUMNS]);
      expect(schema.fields.map((f) => String(f.type))).toEqual(EXPECTED_TYPES);
      expect(schema.fields.every((f) => f.nullable)).toBe(true);
      const vec = schema.fields[14]!.type as InstanceType<typeof arrow.FixedSizeList>;
      expect(vec.children[0]?.name).toBe("item");
      expect(vec.children[0]?.nullable).toBe(true);
      expect(schema.metadata.get("embedding_model")).toBe(EMBEDDING_MODEL);
      const rows = await store.table.query().toArray();
      expect(rows.map((r) => [r.id, r.parent_uuid, r.tool_name, Number(r.seq), r.vector])).toEqual([
        ["id-0", null, null, 0, null],
        ["id-1", "t-0", "Bash", 1, null],
      ]);
      expect((await store.stats()).pendingVectors).toBe(2);
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("searches text by keyword before and after the index exists", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append(
        Array.from({ length: 50 }, (_, i) =>
          chunk(i, i === 7 ? "the deadlock in lance fts build" : `filler ${i}`),
        ),
      );
      expect((await keywordSearch(store.table, { query: "deadlock", limit: 3 })).map((h) => h.id)).toEqual([
        "id-7",
      ]);
      expect(await store.maintainTextIndex()).toBe("built");
      expect((await store.table.listIndices()).map((i) => i.name)).toContain(TEXT_INDEX);
      expect(
        (await keywordSearch(store.table, { query: '"deadlock" AND * -', limit: 3 })).map((h) => h.id),
      ).toEqual(["id-7"]);
      expect(await keywordSearch(store.table, { query: '"" * -', limit: 3 })).toEqual([]);
      await store.append([chunk(99, "another deadlock, appended after the index", { harness: "pi" })]);
      expect(
        (await keywordSearch(store.table, { query: "deadlock", limit: 5 })).map((h) => h.id).sort(),
      ).toEqual(["id-7", "id-99"]);
      expect(
        (await keywordSearch(store.table, { query: "deadlock", limit: 5, where: "harness = 'pi'" })).map(
          (h) => h.id,
        ),
      ).toEqual(["id-99"]);
      expect(await store.maintainTextIndex()).toBe("current");
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("refuses a memory built with another embedding model", async () => {
    const t = tempDir();
    try {
      const lancedb = createRequire(import.meta.url)("@lancedb/lancedb");
      const db = await lancedb.connect(t.dir);
      const vec = new arrow.FixedSizeList(384, new arrow.Field("item", new arrow.Float32(), true));
      const schema = new arrow.Schema(
        [new arrow.Field("id", new arrow.Utf8(), true), new arrow.Field("vector", vec, true)],
        new Map([["embedding_model", "other/model"]]),
      );
      await db.createEmptyTable("chunks", schema);
      await expect(LocalStore.open(t.dir)).rejects.toThrow(IncompatibleMemoryError);
      await expect(LocalStore.open(t.dir)).rejects.toThrow(/other\/model/);
    } finally {
      t.cleanup();
    }
  });

  it("refuses a table whose columns funes reads hold another type (text as numbers, a binary session id, a float64 vector)", async () => {
    const t = tempDir();
    try {
      const lancedb = createRequire(import.meta.url)("@lancedb/lancedb");
      const ints = new Set(["seq", "block_idx", "split_idx"]);
      const vector = (item: DataType) => new arrow.FixedSizeList(384, new arrow.Field("item", item, true));
      const cases: [string, DataType][] = [
        ["text", new arrow.Int64()],
        ["session_id", new arrow.Binary()],
        ["seq", new arrow.Utf8()],
        ["vector", vector(new arrow.Float64())],
      ];
      for (const [column, type] of cases) {
        const dir = join(t.dir, column);
        const db = await lancedb.connect(dir);
        const fields = COLUMNS.map((c) => {
          const own =
            c === "vector" ? vector(new arrow.Float32()) : ints.has(c) ? new arrow.Int64() : new arrow.Utf8();
          return new arrow.Field(c, c === column ? type : own, true);
        });
        await db.createEmptyTable(
          "chunks",
          new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]])),
        );
        await expect(LocalStore.open(dir)).rejects.toThrow(IncompatibleMemoryError);
        await expect(LocalStore.open(dir)).rejects.toThrow(`stores "${column}" as another type`);
      }
      // LargeUtf8 text (another writer's choice) is still text.
      const dir = join(t.dir, "large");
      const db = await lancedb.connect(dir);
      const fields = COLUMNS.map((c) => {
        const type =
          c === "vector"
            ? vector(new arrow.Float32())
            : ints.has(c)
              ? new arrow.Int64()
              : new arrow.LargeUtf8();
        return new arrow.Field(c, type, true);
      });
      await db.createEmptyTable(
        "chunks",
        new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]])),
      );
      const large = await LocalStore.open(dir);
      expect(large).not.toBeNull();
      large?.close();
    } finally {
      t.cleanup();
    }
  });

  it("refuses a table that lacks columns every memory has, naming them, and opens one without the later facets", async () => {
    const t = tempDir();
    try {
      const lancedb = createRequire(import.meta.url)("@lancedb/lancedb");
      const db = await lancedb.connect(join(t.dir, "foreign"));
      await db.createTable("chunks", [{ id: "a", text: "zebrafish", session_id: "s" }]);
      await expect(LocalStore.open(join(t.dir, "foreign"))).rejects.toThrow(
        /has no "workdir", "turn_uuid", .*"vector" columns: it is not a funes memory/,
      );
      // A memory from before the harness and repo facets (the reference's older ones) opens.
      const store = await LocalStore.openOrCreate(join(t.dir, "old"));
      await store.table.dropColumns(["harness", "repo"]);
      store.close();
      const old = await LocalStore.open(join(t.dir, "old"));
      expect(old).not.toBeNull();
      old?.close();
    } finally {
      t.cleanup();
    }
  });

  it("opens with lance 7.0.0 (@lancedb/lancedb 0.30.0, as the reference reads it)", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append(
        Array.from({ length: 20 }, (_, i) => chunk(i, i === 3 ? "compatibility matters" : `row ${i}`)),
      );
      await store.maintainTextIndex();
      await store.append([chunk(20, "a later append")]);
      const ours = await store.table.schema();
      store.close();
      const old = createRequire(import.meta.url)("lancedb030");
      const db = await old.connect(t.dir);
      const table = await db.openTable("chunks");
      const schema = await table.schema();
      expect(schema.fields.map((f: { name: string }) => f.name)).toEqual(ours.fields.map((f) => f.name));
      expect(schema.fields.map((f: { type: unknown }) => String(f.type))).toEqual(EXPECTED_TYPES);
      expect(schema.metadata.get("embedding_model")).toBe(EMBEDDING_MODEL);
      expect(await table.countRows()).toBe(21);
      expect(await table.countRows("vector IS NULL")).toBe(21);
      const hits = await table.search("compatibility", "fts").select(["id"]).limit(2).toArray();
      expect(hits.map((h: { id: string }) => h.id)).toEqual(["id-3"]);
      table.close();
      db.close();
    } finally {
      t.cleanup();
    }
  });

  it("gives a published memory the reference's IVF_PQ vector index, which lance 7.0.0 reads", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      const n = 300;
      await store.append(Array.from({ length: n }, (_, i) => chunk(i, `row ${i}`)));
      const vectors = unitVectors(n, 7);
      await writeVectors(store.table, vectors);
      store.close();
      expect(await refreshVectorIndex(t.dir, 1000)).toBe(false);
      expect(await refreshVectorIndex(t.dir, 256)).toBe(true);
      expect(await refreshVectorIndex(t.dir, 256)).toBe(false);
      const probe = vectors.get("id-42") as Float32Array;
      const again = await LocalStore.open(t.dir);
      const indices = await again?.table.listIndices();
      expect(indices?.find((i) => i.name === VECTOR_INDEX)?.indexType).toBe("IvfPq");
      // Our reads stay exact at this size.
      const ours = again === null ? [] : await vectorSearch(again.table, { vector: probe, limit: 3 });
      expect(ours[0]?.id).toBe("id-42");
      again?.close();
      const old = createRequire(import.meta.url)("lancedb030");
      const db = await old.connect(t.dir);
      const table = await db.openTable("chunks");
      const listed = await table.listIndices();
      expect(listed.map((i: { name: string }) => i.name).sort()).toEqual([VECTOR_INDEX]);
      const hits = await table
        .search(Array.from(probe))
        .distanceType("l2")
        .refineFactor(10)
        .limit(3)
        .toArray();
      expect(hits[0]?.id).toBe("id-42");
      table.close();
      db.close();
    } finally {
      t.cleanup();
    }
  });

  it("gives a large memory its own vector index once, which finds what an exact scan finds", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      const n = 3000;
      await store.append(Array.from({ length: n }, (_, i) => chunk(i, `row ${i}`)));
      // Every tenth row still waits for its vector.
      const vectors = unitVectors(n, 11);
      for (let i = 0; i < n; i += 10) vectors.delete(`id-${i}`);
      await writeVectors(store.table, vectors);
      expect(await store.maintainVectorIndex()).toBe("small");
      expect(await store.maintainVectorIndex(1000)).toBe("built");
      expect(await store.maintainVectorIndex(1000)).toBe("current");
      // A row added after the build is found too (the index's unindexed tail is scanned exactly).
      await store.append([chunk(n, "late row")]);
      const late = unitVectors(1, 99).values().next().value as Float32Array;
      await writeVectors(store.table, new Map([[`id-${n}`, late]]));
      let agree = 0;
      const probes = [...vectors.values()].slice(0, 10);
      for (const v of probes) {
        const exact = await vectorSearch(store.table, { vector: v, limit: 20 });
        const ann = await vectorSearch(store.table, { vector: v, limit: 20, exactMaxRows: 1000 });
        agree += ann.filter((h) => exact.some((e) => e.id === h.id)).length;
        expect(ann[0]?.similarity).toBeCloseTo(1, 4);
        expect(ann.some((h) => Number(h.id.slice(3)) % 10 === 0 && h.id !== `id-${n}`)).toBe(false);
      }
      expect(agree / (probes.length * 20)).toBeGreaterThanOrEqual(0.95);
      const found = await vectorSearch(store.table, { vector: late, limit: 1, exactMaxRows: 1000 });
      expect(found[0]?.id).toBe(`id-${n}`);
      store.close();
    } finally {
      t.cleanup();
    }
  });
  it("keeps its vector index across runs: scans new rows beside it, folds a tail in, retrains only a small memory", async () => {
    const t = tempDir();
    try {
      // Rows id-from… with vectors, as one run of the text pass and the backfill writes them.
      const grow = async (store: LocalStore, from: number, n: number, seed: number) => {
        await store.append(Array.from({ length: n }, (_, i) => chunk(from + i, `row ${from + i}`)));
        const vs = new Map([...unitVectors(n, seed).values()].map((v, i) => [`id-${from + i}`, v]));
        await writeVectors(store.table, vs);
        return vs;
      };
      // Retrained up to 5,000 rows with vectors; past that only folded.
      const rules = { foldMinRows: 400, maxSegments: 3, retrainMaxRows: 5000 };
      const all = new Map<string, Float32Array>();
      const first = await LocalStore.openOrCreate(t.dir);
      for (const [k, v] of await grow(first, 0, 1200, 5)) all.set(k, v);
      // Rows still waiting for a vector are not counted as trained on.
      await first.append([chunk(90_000, "waiting")]);
      expect(await first.maintainVectorIndex(1000, rules)).toBe("built");
      const trainedOn = async (s: LocalStore) =>
        (await s.table.schema()).fields
          .find((f) => f.name === "vector")
          ?.metadata.get("funes:vector_index_rows");
      expect(await trainedOn(first)).toBe("1200");
      const uuid = async (s: LocalStore) =>
        (await s.table.listIndices()).find((i) => i.name === "vector_idx")?.indexUuid;
      const trained = await uuid(first);
      first.close();

      // A later run adds fewer rows than a fold needs: the same index, the new rows outside it, still found.
      const store = await LocalStore.openOrCreate(t.dir);
      const late = await grow(store, 1200, 150, 6);
      for (const [k, v] of late) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("current");
      expect(await uuid(store)).toBe(trained);
      const stats = async () => store.table.indexStats("vector_idx");
      expect((await stats())?.numUnindexedRows).toBe(150);
      const recallAt20 = async (probes: Float32Array[]) => {
        let agree = 0;
        for (const v of probes) {
          const exact = await vectorSearch(store.table, { vector: v, limit: 20, exactMaxRows: Infinity });
          const ann = await vectorSearch(store.table, { vector: v, limit: 20, exactMaxRows: 1000 });
          agree += ann.filter((h) => exact.some((e) => e.id === h.id)).length;
        }
        return agree / (probes.length * 20);
      };
      for (const [id, v] of [...late].slice(0, 5)) {
        const hits = await vectorSearch(store.table, { vector: v, limit: 1, exactMaxRows: 1000 });
        expect(hits[0]?.id).toBe(id);
      }
      expect(await recallAt20([...late.values()].slice(0, 10))).toBeGreaterThanOrEqual(0.98);

      // Past the fold size the tail joins the index as a segment, without retraining.
      for (const [k, v] of await grow(store, 1350, 300, 7)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("folded");
      expect(await stats()).toMatchObject({ numUnindexedRows: 0, numIndices: 2 });
      expect(await trainedOn(store)).toBe("1200");
      expect(await recallAt20([...all.values()].filter((_, i) => i % 80 === 0))).toBeGreaterThanOrEqual(0.98);

      // In a small memory, a tail larger than the covered rows retrains the index, as one segment.
      for (const [k, v] of await grow(store, 1650, 1700, 8)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("rebuilt");
      expect(await uuid(store)).not.toBe(trained);
      expect(await stats()).toMatchObject({ numUnindexedRows: 0, numIndices: 1 });
      expect(await trainedOn(store)).toBe("3350");

      // So do too many segments: two folds, then a retrain.
      for (const [k, v] of await grow(store, 3350, 400, 9)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("folded");
      for (const [k, v] of await grow(store, 3750, 450, 10)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("folded");
      expect((await stats())?.numIndices).toBe(3);
      expect(await store.maintainVectorIndex(1000, rules)).toBe("rebuilt");
      expect((await stats())?.numIndices).toBe(1);
      expect(await trainedOn(store)).toBe("4200");

      // Past 5,000 rows it is never retrained, whatever the growth, tail or segments: only folded, with
      // folds that grow with the segments (a share of the table each).
      const large = { ...rules, growth: 2 };
      for (const [k, v] of await grow(store, 4200, 4000, 11)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, large)).toBe("folded");
      for (const [k, v] of await grow(store, 8200, 1000, 12)) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, large)).toBe("folded");
      expect(await stats()).toMatchObject({ numUnindexedRows: 0, numIndices: 3 });
      const tail = await grow(store, 9200, 500, 977);
      for (const [k, v] of tail) all.set(k, v);
      expect(await store.maintainVectorIndex(1000, large)).toBe("current");
      expect(await trainedOn(store)).toBe("4200");
      expect(await stats()).toMatchObject({ numUnindexedRows: 500, numIndices: 3 });
      // The unfolded tail is searched exactly beside the index: every row of it is its own nearest.
      for (const [id, v] of [...tail].filter((_, i) => i % 50 === 0)) {
        const hits = await vectorSearch(store.table, { vector: v, limit: 1, exactMaxRows: 1000 });
        expect(hits[0]?.id).toBe(id);
      }
      expect(await recallAt20([...all.values()].filter((_, i) => i % 100 === 0))).toBeGreaterThanOrEqual(
        0.98,
      );
      store.close();
    } finally {
      t.cleanup();
    }
  });
  it("compacts a fragmented memory and drops the versions before the rewrite, with their files", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      for (let f = 0; f < 10; f++) await store.append([chunk(f, `row ${f}`)]);
      // Half the rows get vectors: each write deletes them from their fragment and adds a new one.
      const vectors = unitVectors(10, 2);
      for (let f = 0; f < 10; f += 2)
        await writeVectors(store.table, new Map([[`id-${f}`, vectors.get(`id-${f}`) as Float32Array]]));
      expect(await store.compactIfFragmented()).toBe(true);
      expect(await store.compactIfFragmented()).toBe(false);
      expect((await store.table.listVersions()).length).toBe(1);
      expect((await store.table.stats()).fragmentStats.numFragments).toBe(1);
      expect(readdirSync(join(t.dir, "chunks.lance", "data"))).toHaveLength(1);
      expect(await store.table.countRows("vector IS NOT NULL")).toBe(5);
      expect(await store.rowCount()).toBe(10);
      store.close();
    } finally {
      t.cleanup();
    }
  });
  it("a compaction leaves one version and only the live indexes' files; a rebuild without one merges nothing", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      for (let f = 0; f < 10; f++) await store.append([chunk(f, `row ${f} word${f}`)]);
      expect(await store.maintainTextIndex()).toBe("built");
      for (let f = 10; f < 20; f++) await store.append([chunk(f, `row ${f} word${f}`)]);
      // Half the rows outside the index (the text pass): rebuilt, and no fragment merged, no version dropped.
      expect(await store.maintainTextIndex()).toBe("rebuilt");
      expect((await store.table.stats()).fragmentStats.numFragments).toBe(20);
      expect((await store.table.listVersions()).length).toBeGreaterThan(1);
      // The backfill rewrites every row (the text index then covers none), then the closing upkeep.
      const vectors = unitVectors(20, 3);
      for (let f = 0; f < 20; f += 2)
        await writeVectors(
          store.table,
          new Map([f, f + 1].map((i) => [`id-${i}`, vectors.get(`id-${i}`) as Float32Array])),
        );
      expect((await store.table.indexStats(TEXT_INDEX))?.numIndexedRows).toBe(0);
      expect(await store.compactIfFragmented()).toBe(true);
      await store.maintainTextIndex();
      expect((await store.table.listVersions()).length).toBe(1);
      // Lance empties a dropped index's folder but leaves the folder itself.
      const indices = join(t.dir, "chunks.lance", "_indices");
      const onDisk = readdirSync(indices).filter((d) => readdirSync(join(indices, d)).length > 0);
      const live = (await store.table.listIndices()).map((i) => i.indexUuid);
      expect(onDisk.sort()).toEqual(live.sort());
      const hits = await keywordSearch(store.table, { query: "word13", limit: 5 });
      expect(hits.map((h) => h.id)).toEqual(["id-13"]);
      store.close();
    } finally {
      t.cleanup();
    }
  });
  it("keeps a btree on session_id for large memories; neighbour reads find the same rows through it", async () => {
    const t = tempDir();
    try {
      const store = await LocalStore.openOrCreate(t.dir);
      await store.append(Array.from({ length: 40 }, (_, i) => chunk(i, `row ${i}`)));
      expect(await store.maintainTextIndex()).toBe("built");
      expect((await store.table.listIndices()).map((i) => i.indexType).sort()).toEqual(["FTS"]);
      const ranges = [{ sessionId: "s-1", from: 3, to: 10 }];
      const before = (await rowsInRanges(store.table, ranges)).map((r) => r.id).sort();
      expect(await store.maintainTextIndex(30)).toBe("current");
      expect((await store.table.listIndices()).map((i) => i.indexType).sort()).toEqual(["BTree", "FTS"]);
      expect((await rowsInRanges(store.table, ranges)).map((r) => r.id).sort()).toEqual(before);
      expect(before).toEqual(["id-10", "id-4", "id-7"]);
      store.close();
    } finally {
      t.cleanup();
    }
  });
  it("shares index caches across opens without serving a stale answer after a write", async () => {
    const t = tempDir();
    try {
      const writer = await LocalStore.openOrCreate(t.dir);
      await writer.append(Array.from({ length: 20 }, (_, i) => chunk(i, `plain row ${i}`)));
      await writer.maintainTextIndex();
      const first = (await LocalStore.open(t.dir)) as LocalStore;
      expect(await keywordSearch(first.table, { query: "zebra", limit: 5 })).toEqual([]);
      first.close();
      await writer.append([chunk(20, "a zebra crossing")]);
      await writer.table.createIndex("text", {
        config: lancedb.Index.fts({ withPosition: false }),
        replace: true,
        name: TEXT_INDEX,
      });
      const again = (await LocalStore.open(t.dir)) as LocalStore;
      expect((await keywordSearch(again.table, { query: "zebra", limit: 5 })).map((h) => h.id)).toEqual([
        "id-20",
      ]);
      again.close();
      writer.close();
    } finally {
      t.cleanup();
    }
  });
});
