/**
 * Tables a stranger can publish that issue 13's checks did not look at, read through the Hub stand-in with
 * the built CLI: a shallow clone's manifest placed where only `_versions/*.manifest` used to be decoded
 * (an old table's `_latest.manifest`, a branch's versions under `tree/`, a copy beside the real ones), and
 * a table whose columns have funes's names but other types (it used to end in an unexpected Lance error,
 * or a recall that silently found nothing).
 */
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import type { DataType } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow, COLUMNS, EMBEDDING_MODEL } from "../../src/local/index.js";
import { runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import {
  type HubStandin,
  type StandinRepo,
  standinUser,
  startHubStandin,
  tableRepoFiles,
} from "../helpers/hub-standin.js";

const INTS = new Set(["seq", "block_idx", "split_idx"]);
const vectorOf = (item: DataType) => new arrow.FixedSizeList(384, new arrow.Field("item", item, true));

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

/** A one-row memory table in `dir` with `column` given `type` (funes's own types otherwise). */
async function writeTable(dir: string, column?: string, type?: DataType): Promise<string> {
  const fields = COLUMNS.map((c) => {
    const own =
      c === "vector" ? vectorOf(new arrow.Float32()) : INTS.has(c) ? new arrow.Int64() : new arrow.Utf8();
    return new arrow.Field(c, c === column && type !== undefined ? type : own, true);
  });
  const row: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.name === "vector") row[f.name] = Array(384).fill(0.05);
    else if (INTS.has(f.name)) row[f.name] = f.name === column ? "0" : 0n;
    else if (f.name === column) row[f.name] = 7n;
    else row[f.name] = f.name === "text" ? "zebrafish notes" : f.name === "session_id" ? "s1" : "t1";
  }
  const db = await lancedb.connect(dir);
  const table = await db.createEmptyTable(
    "chunks",
    new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]])),
  );
  await table.add([row]);
  table.close();
  db.close();
  return join(dir, "chunks.lance");
}

function publish(name: string, files: Map<string, Buffer>): void {
  const repo: StandinRepo = { type: "dataset", commit: "f".repeat(40), files };
  hub.repos.set(name, repo);
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});

afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("manifests outside _versions/", () => {
  it("a shallow clone's manifest anywhere in the table folder is refused, naming the memory and the file", async () => {
    const source = await writeTable(join(t.dir, "source"));
    const db = await lancedb.connect(join(t.dir, "clone-db"));
    (await db.cloneTable("chunks", source, { isShallow: true })).close();
    db.close();
    const clone = tableRepoFiles(join(t.dir, "clone-db", "chunks.lance"));
    const hostile = [...clone].find(([p]) => p.endsWith(".manifest"))?.[1] as Buffer;
    const own = tableRepoFiles(source);
    const r = standinUser(t.dir, "reader", hub.url);
    for (const [i, rel] of [
      "_latest.manifest",
      "tree/b/_versions/1.manifest",
      "_versions/1.manifest-copy",
    ].entries()) {
      publish(`evil/where${i}`, new Map([...own, [`chunks.lance/${rel}`, hostile]]));
      const out = await runFunes(
        ["recall", "zebrafish", "--memory", `evil/where${i}`, "--rerank-budget", "0"],
        r,
      );
      expect(out.code, out.stderr).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr).toContain(`hf://datasets/evil/where${i}`);
      expect(out.stderr).toContain(`chunks.lance/${rel} names a base path outside the memory`);
      expect(out.stderr).not.toContain("    at ");
    }
    // The same table without the stray manifest is read.
    publish("evil/plain", own);
    const plain = await runFunes(
      ["recall", "zebrafish", "--memory", "evil/plain", "--rerank-budget", "0"],
      r,
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("zebrafish notes");
  });
});

describe("columns of another type", () => {
  it("recall, get and status refuse the table as not a funes memory, naming the column", async () => {
    const r = standinUser(t.dir, "types", hub.url);
    for (const [column, type] of [
      ["text", new arrow.Int64()],
      ["seq", new arrow.Utf8()],
    ] as const) {
      publish(
        `evil/type-${column}`,
        tableRepoFiles(await writeTable(join(t.dir, `type-${column}`), column, type)),
      );
      for (const args of [["recall", "zebrafish", "--rerank-budget", "0"], ["get", "s1", "t1"], ["status"]]) {
        const out = await runFunes([...args, "--memory", `evil/type-${column}`], r);
        expect(out.code, out.stderr).toBe(1);
        expect(out.stderr).toContain(`stores "${column}" as another type than a funes memory does`);
        expect(out.stderr).not.toContain("unexpected error");
      }
    }
  });
});
