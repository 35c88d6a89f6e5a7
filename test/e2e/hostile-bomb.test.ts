/**
 * Decompression bombs: a memory small on the wire and huge inside (a zstd text column of repeated bytes),
 * generated here as a real Lance table with funes's columns, published through the Hub stand-in and read
 * with `--memory` by the CLI and over MCP. funes refuses it before reading it for anything, with one clear
 * line, fast, and never a raw Lance error.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow, COLUMNS, EMBEDDING_MODEL } from "../../src/local/index.js";
import { runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin, tableRepoFiles } from "../helpers/hub-standin.js";
import { connectMcp } from "../helpers/mcp.js";

const INTS = new Set(["seq", "block_idx", "split_idx"]);

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

/**
 * A funes-shaped table of `rows` rows whose text is `bytes` bytes each of one repeated letter, stored
 * zstd-compressed (Lance's field metadata asks for it), and no vectors (a bomb saves their bytes) unless
 * `vectors`; returns the table folder and its size on disk.
 */
async function writeBomb(
  dir: string,
  rows: number,
  bytes: number,
  vectors = false,
): Promise<{ table: string; onDisk: number }> {
  const fields = COLUMNS.map((c) => {
    const type =
      c === "vector"
        ? new arrow.FixedSizeList(384, new arrow.Field("item", new arrow.Float32(), true))
        : INTS.has(c)
          ? new arrow.Int64()
          : new arrow.Utf8();
    const meta = c === "text" ? new Map([["lance-encoding:compression", "zstd"]]) : new Map<string, string>();
    return new arrow.Field(c, type, true, meta);
  });
  const schema = new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]]));
  const db = await lancedb.connect(dir);
  const table = await db.createEmptyTable("chunks", schema);
  const vector = Array.from({ length: 384 }, (_, i) => Math.sin(i) / 14);
  const step = Math.max(1, Math.floor((32 * 1024 * 1024) / bytes));
  for (let from = 0; from < rows; from += step) {
    const batch = [];
    for (let i = from; i < Math.min(rows, from + step); i++) {
      const row: Record<string, unknown> = {};
      for (const f of fields)
        row[f.name] =
          f.name === "vector"
            ? vectors
              ? vector
              : null
            : INTS.has(f.name)
              ? BigInt(i)
              : f.name === "text"
                ? `zebrafish ${i} `.padEnd(bytes, "z")
                : f.name === "session_id"
                  ? "s1"
                  : `${f.name}-${i}`;
      batch.push(row);
    }
    await table.add(lancedb.makeArrowTable(batch, { schema }));
  }
  table.close();
  db.close();
  const tableDir = join(dir, "chunks.lance");
  const files = tableRepoFiles(tableDir);
  return { table: tableDir, onDisk: [...files.values()].reduce((n, b) => n + b.length, 0) };
}

/** Publishes the table as `name` on the stand-in and recalls from it as a new reader. */
function publishAndRecall(name: string, table: string) {
  hub.repos.set(name, { type: "dataset", commit: "c".repeat(40), files: tableRepoFiles(table) });
  const r = standinUser(t.dir, `${name.replace("/", "-")}-reader`, hub.url);
  return runFunes(["recall", "zebrafish", "--memory", name, "--rerank-budget", "0"], r);
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("a decompression bomb on the Hub", () => {
  it("rows far longer than funes writes: refused by recall, status and MCP, in one line", async () => {
    // 100 rows of 4 MB each: 400 MB of text in a table of a few dozen KB.
    const bomb = await writeBomb(join(t.dir, "long"), 100, 4_000_000);
    expect(bomb.onDisk).toBeLessThan(200_000);
    hub.repos.set("evil/long", {
      type: "dataset",
      commit: "e".repeat(40),
      files: tableRepoFiles(bomb.table),
    });
    const r = standinUser(t.dir, "long-reader", hub.url);
    for (const args of [["recall", "zebrafish", "--rerank-budget", "0"], ["status"]]) {
      const out = await runFunes([...args, "--memory", "evil/long"], r);
      expect(out.code, out.stderr).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr).toMatch(
        /^funes: .*hf:\/\/datasets\/evil\/long.*chunks\.lance has a row of 3907 KiB of text, far beyond the longest chunk funes writes \(1,200 code points\) — funes reads only memories shaped as it writes them; check who published it\n$/,
      );
      expect(out.stderr).not.toMatch(/\.cargo|\.rs:\d|unexpected error/);
    }
    // The MCP tool answers, as an error, instead of hanging.
    const mcp = await connectMcp(["evil/long"], r);
    try {
      const res = await mcp.result("recall", { query: "zebrafish", k: 4 });
      expect(res.isError).toBe(true);
      expect(res.text).toContain("has a row of 3907 KiB of text");
    } finally {
      await mcp.close();
    }
  }, 180_000);

  it("many rows each under the per-row bound: refused once the text outgrows its files", async () => {
    // 6,000 rows of 60 KiB: 360 MB of text.
    const bomb = await writeBomb(join(t.dir, "wide"), 6000, 60 * 1024);
    const ondisk = bomb.onDisk;
    expect(ondisk).toBeLessThan(2_000_000);
    const out = await publishAndRecall("evil/wide", bomb.table);
    expect(out.code, out.stderr).toBe(1);
    expect(out.stderr).toMatch(
      /chunks\.lance inflates to more than [\d.]+ MiB of text, 16× its data files on disk/,
    );
    expect(out.stderr).not.toMatch(/\.cargo|\.rs:\d|unexpected error/);
  }, 180_000);

  it("a memory shaped as funes writes it is read as before", async () => {
    const fine = await writeBomb(join(t.dir, "fine"), 20, 1000, true);
    const out = await publishAndRecall("evil/fine", fine.table);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("zebrafish");
    expect(statSync(fine.table).isDirectory()).toBe(true);
  });
});
