import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { lancedb } from "./arrow.js";
import { hasHarnessColumn, keywordSearch, MAX_QUERY_TERMS, queryTerms, rowsInRanges } from "./queries.js";

/** Rows of a memory table, with or without the `harness` column (memories from before the facet lack it). */
function rows(withHarness: boolean): Record<string, unknown>[] {
  return [0, 1, 2].map((i) => ({
    id: `id-${i}`,
    text: i === 1 ? "the deadlock in the writer lock" : `unrelated passage ${i}`,
    session_id: "s-1",
    workdir: "-w",
    turn_uuid: `t-${i}`,
    ts: "2026-06-12T21:21:57.939Z",
    role: i % 2 === 0 ? "user" : "assistant",
    block_type: "text",
    tool_name: "",
    seq: i,
    block_idx: 0,
    split_idx: 0,
    ...(withHarness ? { harness: "codex" } : {}),
  }));
}

describe("hit columns across the queries of one open table", () => {
  for (const withHarness of [false, true])
    it(`reads the agent of every hit only when the table has the column (${withHarness ? "with" : "without"} it), query after query`, async () => {
      const t = tempDir();
      try {
        const db = await lancedb.connect(t.dir);
        const table = await db.createTable("chunks", rows(withHarness));
        await table.createIndex("text", { config: lancedb.Index.fts() });
        const expected = withHarness ? "codex" : "";
        for (let round = 0; round < 2; round++) {
          expect(await hasHarnessColumn(table)).toBe(withHarness);
          const hits = await keywordSearch(table, { query: "deadlock", limit: 5 });
          expect(hits.map((h) => [h.id, h.harness])).toEqual([["id-1", expected]]);
          const around = await rowsInRanges(table, [{ sessionId: "s-1", from: 0, to: 2 }]);
          expect(around.map((h) => [h.seq, h.harness]).sort()).toEqual([
            [0, expected],
            [1, expected],
            [2, expected],
          ]);
        }
        table.close();
      } finally {
        t.cleanup();
      }
    });
});

describe("long keyword queries", () => {
  it("sends each word once, and past the limit the start and the end of the query", () => {
    expect(queryTerms(["Error", "error", "at", "ERROR", "line", "at"])).toEqual(["Error", "at", "line"]);
    const words = Array.from({ length: 150 }, (_, i) => `w${i}`);
    const kept = queryTerms(words);
    expect(kept).toHaveLength(MAX_QUERY_TERMS);
    expect(kept[0]).toBe("w0");
    expect(kept.at(-1)).toBe("w149");
  });

  it("finds the failing line at the end of a pasted log longer than the limit", async () => {
    const t = tempDir();
    try {
      const db = await lancedb.connect(t.dir);
      const generic = Array.from({ length: 40 }, (_, i) => `[${i + 100}] info module${i} loaded ok`);
      const table = await db.createTable(
        "chunks",
        rows(true).map((r, i) =>
          Object.assign(r, {
            text:
              i === 1
                ? "deploy died: fatal handshake refused by zorvan"
                : generic.slice(i * 5, i * 5 + 5).join("\n"),
          }),
        ),
      );
      await table.createIndex("text", { config: lancedb.Index.fts() });
      const paste = `what does this mean?\n${generic.join("\n")}\nfatal: handshake refused by zorvan`;
      const hits = await keywordSearch(table, { query: paste, limit: 5 });
      expect(hits.map((h) => h.id)).toContain("id-1");
    } finally {
      t.cleanup();
    }
  });
});
