import { describe, expect, it } from "vitest";
import { numberedChunk } from "../../test/helpers/chunks.js";
import { TEST_HUB_CACHE, tempDir } from "../../test/helpers/fixtures.js";
import { LocalStore, vectorSearch } from "../local/index.js";
import { cachedModelDir, EMBEDDER_SPEC, loadEmbedder } from "../models/index.js";
import { backfillOrder, backfillVectors } from "./backfill.js";

const chunk = (i: number, text: string) =>
  numberedChunk(i, {
    text,
    sessionId: `s-${i % 7}`,
    ts: `2026-06-12T21:21:${String(i % 60).padStart(2, "0")}.000Z`,
  });

describe("backfillOrder", () => {
  it("puts the newest session first, and text before tool_use before tool_result within it", () => {
    const rows = [
      { id: "old-text", sessionId: "old", ts: "2026-01-01T00:00:00Z", blockType: "text" },
      { id: "new-result", sessionId: "new", ts: "2026-06-01T00:00:02Z", blockType: "tool_result" },
      { id: "new-use", sessionId: "new", ts: "2026-06-01T00:00:01Z", blockType: "tool_use" },
      { id: "new-think", sessionId: "new", ts: "2026-06-01T00:00:00Z", blockType: "thinking" },
      { id: "new-text", sessionId: "new", ts: "2026-06-01T00:00:03Z", blockType: "text" },
    ];
    expect(backfillOrder(rows).map((r) => r.id)).toEqual([
      "new-think",
      "new-text",
      "new-use",
      "new-result",
      "old-text",
    ]);
  });
});

describe("backfillVectors with the vector index kept as it goes", () => {
  it("trains the index on the first rows past the threshold, folds the rest in as it goes, never retrains a large memory", async () => {
    const t = tempDir();
    const dir = cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC);
    const embedder = await loadEmbedder(dir as string, EMBEDDER_SPEC, { threads: 1 });
    const store = await LocalStore.openOrCreate(t.dir);
    try {
      const words = ["lance", "index", "deadlock", "session", "vector", "recall", "compaction", "push"];
      const n = 4000;
      await store.append(
        Array.from({ length: n }, (_, i) =>
          chunk(i, `${words[i % 8]} ${words[(i >> 3) % 8]} ${words[(i >> 6) % 8]} note ${i}`),
        ),
      );
      const actions: string[] = [];
      // The product's rules at a small scale: trained past 1,000 rows, retrained only up to 1,500.
      const r = await backfillVectors(store, embedder, {
        budgetMs: null,
        now: () => performance.now(),
        afterWrite: async (embedded) => {
          const action = await store.maintainVectorIndex(1000, {
            foldMinRows: 500,
            retrainMaxRows: 1500,
            vectors: embedded,
          });
          actions.push(`${embedded} ${action}`);
          return action === "folded" ? "relist" : "continue";
        },
      });
      expect(r).toMatchObject({ embedded: n, remaining: 0 });
      expect(await store.table.countRows("vector IS NULL")).toBe(0);
      // Trained once, on the first 1,024 rows; every later write folded in (rows listed again after each).
      expect(actions).toEqual(["1024 built", "2048 folded", "3072 folded", "4000 folded"]);
      const meta = (await store.table.schema()).fields.find((f) => f.name === "vector")?.metadata;
      expect(meta?.get("funes:vector_index_rows")).toBe("1024");
      expect((await store.table.indexStats("vector_idx"))?.numUnindexedRows).toBe(0);
      // The vector leg through the index finds rows as near as an exact scan does.
      const probes = await embedder.embed(["lance deadlock note", "session recall", "push vector index"]);
      for (const v of probes) {
        const exact = await vectorSearch(store.table, { vector: v, limit: 20, exactMaxRows: Infinity });
        const ann = await vectorSearch(store.table, { vector: v, limit: 20, exactMaxRows: 1000 });
        const bar = (exact[19]?.similarity ?? 1) - 1e-5;
        expect(ann.filter((h) => h.similarity >= bar).length).toBeGreaterThanOrEqual(20);
      }
    } finally {
      store.close();
      await embedder.close();
      t.cleanup();
    }
  });
});
