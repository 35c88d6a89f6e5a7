/**
 * A hostile memory's manifest padded with unknown protobuf fields (issue 40: 25 M of them, 75 MB, under the
 * download cap, drove recall to 5 GB and a heap crash after 156 s; an agent's MCP server died the same way).
 * Generated here from a real funes-shaped table, served by the Hub stand-in and read with `--memory` by the
 * CLI and over MCP: a manifest larger than funes writes is refused from the listing, before it is fetched;
 * one under that size but padded is refused by its field counts. Both in one line, fast.
 */
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow, COLUMNS, EMBEDDING_MODEL } from "../../src/local/index.js";
import { runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin, tableRepoFiles } from "../helpers/hub-standin.js";
import { connectMcp } from "../helpers/mcp.js";
import { padManifest } from "../helpers/padded-manifest.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let files: Map<string, Buffer>;

/** A one-row table with funes's columns; its repo files. */
async function funesTable(dir: string): Promise<Map<string, Buffer>> {
  const ints = new Set(["seq", "block_idx", "split_idx"]);
  const vector = new arrow.FixedSizeList(384, new arrow.Field("item", new arrow.Float32(), true));
  const fields = COLUMNS.map(
    (c) =>
      new arrow.Field(c, c === "vector" ? vector : ints.has(c) ? new arrow.Int64() : new arrow.Utf8(), true),
  );
  const row: Record<string, unknown> = {};
  for (const f of fields)
    row[f.name] =
      f.name === "vector"
        ? Array(384).fill(0.05)
        : ints.has(f.name)
          ? 0n
          : f.name === "text"
            ? "zebrafish"
            : "s1";
  const db = await lancedb.connect(dir);
  const table = await db.createEmptyTable(
    "chunks",
    new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]])),
  );
  await table.add([row]);
  table.close();
  db.close();
  return tableRepoFiles(join(dir, "chunks.lance"));
}

/** `files` with every manifest padded by `count` unknown fields. */
function padded(count: number): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [p, b] of files) out.set(p, p.endsWith(".manifest") ? padManifest(b, count) : b);
  return out;
}

beforeAll(async () => {
  t = tempDir();
  files = await funesTable(join(t.dir, "source"));
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("a padded manifest on the Hub", () => {
  it("under the size cap: refused by its field counts, by recall, status and MCP, in one line", async () => {
    // 2 M unknown fields, 5.7 MiB: the reader that kept every field held 549 MB and took 1.7 s for these.
    hub.repos.set("evil/padded", { type: "dataset", commit: "d".repeat(40), files: padded(2_000_000) });
    const r = standinUser(t.dir, "padded-reader", hub.url);
    for (const args of [["recall", "zebrafish", "--rerank-budget", "0"], ["status"]]) {
      const started = performance.now();
      const out = await runFunes([...args, "--memory", "evil/padded"], r);
      expect(out.code, out.stderr).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr).toMatch(
        /^funes: hf:\/\/datasets\/evil\/padded: chunks\.lance\/_versions\/\d+\.manifest a message holds more than 256 fields of unknown numbers, far more than a Lance manifest holds — funes reads only memories shaped as it writes them; check who published it\n$/,
      );
      expect(performance.now() - started).toBeLessThan(30_000);
    }
    const mcp = await connectMcp(["evil/padded"], r);
    try {
      const res = await mcp.result("recall", { query: "zebrafish", k: 4 });
      expect(res.isError).toBe(true);
      expect(res.text).toContain("fields of unknown numbers");
    } finally {
      await mcp.close();
    }
  }, 180_000);

  it("over the size cap: refused from the listing, the manifest never fetched", async () => {
    // 7 M fields, 20 MiB (the was 75 MB): more than the 16 MiB funes allows a manifest.
    hub.repos.set("evil/huge", { type: "dataset", commit: "f".repeat(40), files: padded(7_000_000) });
    const r = standinUser(t.dir, "huge-reader", hub.url);
    const out = await runFunes(["recall", "zebrafish", "--memory", "evil/huge", "--rerank-budget", "0"], r);
    expect(out.code, out.stderr).toBe(1);
    expect(out.stderr).toMatch(
      /^funes: hf:\/\/datasets\/evil\/huge: chunks\.lance\/_versions\/\d+\.manifest is 20\.0 MiB, far larger than funes writes a manifest \(16 MiB at most\) — funes reads only memories shaped as it writes them; check who published it\n$/,
    );
    const fetched = hub.requests.filter((q) => q.path.includes("/evil/huge/resolve/"));
    expect(fetched).toEqual([]);
  }, 180_000);

  it("a manifest as funes writes it, a few fields of a newer Lance included, is read as before", async () => {
    hub.repos.set("fine/mem", { type: "dataset", commit: "e".repeat(40), files: padded(3) });
    const r = standinUser(t.dir, "fine-reader", hub.url);
    const out = await runFunes(["recall", "zebrafish", "--memory", "fine/mem", "--rerank-budget", "0"], r);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("zebrafish");
  }, 180_000);
});
