/**
 * A table kept open between reads answers from what it knows of one version only: rows forgotten (deleted,
 * or purged out of the files) or added by another writer are never answered from what was kept, and a
 * memory deleted and made again at the same path is read anew.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { deleteIds, purgeRows } from "./forget-rows.js";
import { ReadView } from "./read-view.js";
import { LocalStore } from "./store.js";
import { writeVectors } from "./vectors.js";

const NO_FILTER = {};

/** A memory of `n` rows ("plain row i", one with a secret-looking word), indexed, as `index` leaves it. */
async function memoryOf(dir: string, n: number, word: string): Promise<void> {
  const store = await LocalStore.openOrCreate(dir, { writer: true });
  try {
    await store.append(
      Array.from({ length: n }, (_, i) =>
        leakyRow(`id-${i}`, i === 3 ? `token ${word}` : `plain row ${i}`, i),
      ),
    );
    await writeVectors(store.table, unitVectors(n, 7));
    await store.maintainTextIndex();
  } finally {
    store.close();
  }
}

const keywordIds = async (view: ReadView, query: string) =>
  (await view.keyword({ query, limit: 10, filter: NO_FILTER, vectors: true })).map((h) => h.id);

async function viewOf(dir: string): Promise<ReadView> {
  const view = await ReadView.open(dir);
  if (view === null) throw new Error("no table");
  return view;
}

describe("a table kept open between reads", () => {
  it("keeps what it read for one version, and never answers a row forgotten since from it", async () => {
    const t = tempDir();
    try {
      await memoryOf(t.dir, 12, "zqsecret");
      const first = await viewOf(t.dir);
      expect(await keywordIds(first, "zqsecret")).toEqual(["id-3"]);
      const around = [{ sessionId: "leaky", from: 0, to: 20 }];
      expect((await first.around(around)).map((r) => r.id)).toContain("id-3");
      // The same version again: the same table, answered from what was kept.
      const again = await viewOf(t.dir);
      expect(again.version).toBe(first.version);
      expect(again.store).toBe(first.store);
      expect(await keywordIds(again, "zqsecret")).toEqual(["id-3"]);

      // Another writer (as `funes forget` in another process) hides the row: a new version.
      const writer = await LocalStore.open(t.dir, { writer: true });
      if (writer === null) throw new Error("no table");
      await deleteIds(writer.table, ["id-3"]);
      const afterDelete = await viewOf(t.dir);
      expect(afterDelete.version).toBeGreaterThan(first.version);
      expect(await keywordIds(afterDelete, "zqsecret")).toEqual([]);
      expect((await afterDelete.around(around)).map((r) => r.id)).not.toContain("id-3");
      expect(await afterDelete.rows()).toBe(11);
      expect((await afterDelete.session("leaky")).map((r) => r.id)).not.toContain("id-3");

      // A purge rewrites the files and drops the old versions: still nothing of the row.
      await purgeRows(writer.table, t.dir, new Set(["id-4"]), () => Date.now());
      writer.close();
      const afterPurge = await viewOf(t.dir);
      expect(await keywordIds(afterPurge, "plain row 4")).not.toContain("id-4");
      expect(await keywordIds(afterPurge, "zqsecret")).toEqual([]);
      expect(await afterPurge.rows()).toBe(10);
    } finally {
      t.cleanup();
    }
  });

  it("reads rows another writer added", async () => {
    const t = tempDir();
    try {
      await memoryOf(t.dir, 6, "zqfirst");
      const first = await viewOf(t.dir);
      expect(await keywordIds(first, "zqadded")).toEqual([]);
      expect(await first.rows()).toBe(6);
      const writer = await LocalStore.open(t.dir, { writer: true });
      if (writer === null) throw new Error("no table");
      await writer.append([leakyRow("id-new", "token zqadded", 50)]);
      writer.close();
      const added = await viewOf(t.dir);
      expect(await added.rows()).toBe(7);
      expect(await keywordIds(added, "zqadded")).toEqual(["id-new"]);
    } finally {
      t.cleanup();
    }
  });

  it("reads a memory deleted and made again at the same path anew, though its version number is the same", async () => {
    const t = tempDir();
    try {
      await memoryOf(t.dir, 6, "zqfirst");
      const first = await viewOf(t.dir);
      expect(await keywordIds(first, "zqfirst")).toEqual(["id-3"]);
      rmSync(t.dir, { recursive: true, force: true });
      expect(await ReadView.open(t.dir)).toBeNull();
      await memoryOf(t.dir, 6, "zqsecond");
      const remade = await viewOf(t.dir);
      expect(remade.version).toBe(first.version);
      expect(remade.store).not.toBe(first.store);
      expect(await keywordIds(remade, "zqfirst")).toEqual([]);
      expect(await keywordIds(remade, "zqsecond")).toEqual(["id-3"]);
    } finally {
      t.cleanup();
    }
  });
});
