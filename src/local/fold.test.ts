import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { lancedb } from "./arrow.js";
import { foldFragmentsIn, foldGroup } from "./fold.js";
import { deleteIds } from "./forget-rows.js";
import { filesBesidesNewest, newestManifestName, newestVersionFiles } from "./manifest-files.js";
import { appendMissing, embeddedRows, refreshTextIndex } from "./publish-rows.js";
import { keywordSearch } from "./queries.js";
import { LocalStore } from "./store.js";
import { writeVectors } from "./vectors.js";

const frags = (...rows: number[]) => rows.map((r, i) => ({ id: BigInt(i), rows: r }));

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * A memory laid out as pushes leave it: one fragment per push of `sizes[i]` rows (`id-<n>`, text
 * `row <n> word<n>`), with a text index over the first `indexed` pushes.
 */
async function publishedLayout(dir: string, sizes: number[], indexed: number): Promise<number> {
  const total = sizes.reduce((a, b) => a + b, 0);
  const scratch = await LocalStore.openOrCreate(join(dir, "scratch"));
  await scratch.append(
    Array.from({ length: total }, (_, i) =>
      leakyRow(`id-${i}`, `row ${i} word${i}`, i % 20, 0, `s-${Math.floor(i / 20)}`),
    ),
  );
  await writeVectors(scratch.table, unitVectors(total, 3));
  const all = await embeddedRows(scratch);
  scratch.close();
  let from = 0;
  for (const [k, n] of sizes.entries()) {
    await appendMissing(join(dir, "base"), all.slice(from, from + n));
    from += n;
    if (k + 1 === indexed) await refreshTextIndex(join(dir, "base"), 0);
  }
  return total;
}

describe("the fold rule", () => {
  it("folds the newest small fragments while what joins an older one at least doubles it", () => {
    // Pushes of 10 rows on an older 60: the four newest fold (40 rows), the 60 is more than they hold.
    expect(foldGroup(frags(60, 10, 10, 10, 10), 100)).toEqual([1n, 2n, 3n, 4n]);
    // Once they hold as many rows as it, it joins too.
    expect(foldGroup(frags(40, 10, 10, 10, 10), 100)).toEqual([0n, 1n, 2n, 3n, 4n]);
    // A full fragment is never written again, nor anything older than it.
    expect(foldGroup(frags(10, 100, 10, 10), 100)).toEqual([2n, 3n]);
    // Tiny ones (a sixteenth of full) fold whatever their order; a larger older one is not written again
    // for a smaller new one.
    expect(foldGroup(frags(80, 5, 3, 2), 100)).toEqual([1n, 2n, 3n]);
    expect(foldGroup(frags(80, 30, 20), 100)).toEqual([]);
    // One small fragment alone is no fold.
    expect(foldGroup(frags(100, 100, 10), 100)).toEqual([]);
    expect(foldGroup(frags(80, 10), 100)).toEqual([]);
  });

  it("rewrites each row a logarithmic number of times over many pushes and folds", () => {
    const full = 16_384;
    let fragments: { id: bigint; rows: number }[] = [];
    let next = 0n;
    let rewritten = 0;
    let pushed = 0;
    for (let push = 1; push <= 19_800; push++) {
      fragments.push({ id: next++, rows: 8 });
      pushed += 8;
      if (push % 300 !== 0) continue; // a compaction every 300 pushes
      const group = new Set(foldGroup(fragments, full));
      const folded = fragments.filter((f) => group.has(f.id)).reduce((a, f) => a + f.rows, 0);
      rewritten += folded;
      if (group.size > 0)
        fragments = [...fragments.filter((f) => !group.has(f.id)), { id: next++, rows: folded }];
    }
    // 158,400 rows pushed: each written again ≈ 2.5 times (not once per compaction), few small fragments.
    expect(rewritten / pushed).toBeLessThan(3);
    expect(fragments.filter((f) => f.rows < full).length).toBeLessThan(16);
    expect(fragments.reduce((a, f) => a + f.rows, 0)).toBe(pushed);
  });
});

describe("folding a staged memory", () => {
  it("keeps every row and its vector, leaves the newest version's files only, and a current text index", async () => {
    const t = tempDir();
    try {
      const total = await publishedLayout(t.dir, [60, 20, 20, 20, 10, 10, 10], 2);
      const dir = join(t.dir, "base");
      const expected = unitVectors(total, 3);
      // A forget on the Hub hid a row with a deletion file (its id is in the forgotten list too); another
      // id is listed as forgotten while its row is still there (belt and braces: a fold drops it).
      const db = await lancedb.connect(dir);
      const table = await db.openTable("chunks");
      await deleteIds(table, ["id-65"]);
      table.close();
      db.close();
      const before = newestVersionFiles(dir);
      expect(before?.contents.fragments.length).toBe(7);
      expect(before?.contents.fragments.some((f) => f.deletionFile !== null)).toBe(true);
      for (const f of before?.contents.fragments ?? [])
        if (f.deletionFile !== null) expect(existsSync(join(dir, "chunks.lance", f.deletionFile))).toBe(true);
      expect(filesBesidesNewest(dir).length).toBeGreaterThan(10);

      const r = await foldFragmentsIn(dir, { forgotten: new Set(["id-65", "id-125"]), fullRows: 100 });
      expect(r).toMatchObject({
        rows: total - 2,
        fragmentsBefore: 7,
        forgottenRemoved: 1,
        textIndex: "rebuilt",
        vectorIndex: "none",
      });
      // Each older fragment holds no more rows than the newer ones gathered: all seven fold into one.
      expect(r.folded).toBe(7);
      expect(r.fragmentsAfter).toBe(1);
      expect(r.rowsRewritten).toBe(total - 2);
      expect(r.filesRemoved).toBeGreaterThan(10);
      expect(filesBesidesNewest(dir)).toEqual([]);
      const lance = join(dir, "chunks.lance");
      expect(readdirSync(join(lance, "_versions")).filter((n) => n.endsWith(".manifest"))).toHaveLength(1);
      expect(filesUnder(join(lance, "_transactions")).length).toBeLessThanOrEqual(1);
      expect(filesUnder(join(lance, "_deletions"))).toEqual([]);
      expect(readdirSync(join(lance, "_indices"))).toHaveLength(1);

      const store = await LocalStore.open(dir);
      if (store === null) throw new Error("no table");
      const rows = await store.table.query().select(["id", "vector"]).toArray();
      expect(rows.length).toBe(total - 2);
      expect(rows.some((row) => row.id === "id-65" || row.id === "id-125")).toBe(false);
      for (const row of rows)
        expect(Array.from(row.vector as Iterable<number>)).toEqual(
          Array.from(expected.get(String(row.id)) ?? []),
        );
      expect((await store.table.indexStats("text_idx"))?.numUnindexedRows).toBe(0);
      for (const word of ["word3", "word139"])
        expect((await keywordSearch(store.table, { query: word, limit: 3 })).map((h) => h.id)).toContain(
          `id-${word.slice(4)}`,
        );
      store.close();
    } finally {
      t.cleanup();
    }
  });

  it("folds only the newest small fragments, leaving older ones' files as they were", async () => {
    const t = tempDir();
    try {
      await publishedLayout(t.dir, [100, 100, 10, 10, 10], 5);
      const dir = join(t.dir, "base");
      const before = newestVersionFiles(dir);
      const kept = before?.contents.fragments.slice(0, 2).flatMap((f) => f.dataFiles) ?? [];
      const r = await foldFragmentsIn(dir, { forgotten: new Set(), fullRows: 100 });
      expect(r).toMatchObject({ folded: 3, rowsRewritten: 30, fragmentsAfter: 3, rows: 230 });
      const after = newestVersionFiles(dir);
      expect(after?.contents.fragments.slice(0, 2).flatMap((f) => f.dataFiles)).toEqual(kept);
      // Nothing left to fold: a second run folds nothing and finds the index current.
      const again = await foldFragmentsIn(dir, { forgotten: new Set(), fullRows: 100 });
      expect(again).toMatchObject({ folded: 0, rowsRewritten: 0, textIndex: "current", filesRemoved: 0 });
    } finally {
      t.cleanup();
    }
  });
});

describe("a version's files", () => {
  it("finds the newest manifest by either of Lance's namings, and refuses a mix", () => {
    const v2 = (v: bigint) => `${(1n << 64n) - 1n - v}.manifest`;
    expect(newestManifestName([v2(3n), v2(12n), v2(7n), "latest_version_hint.json"])).toBe(v2(12n));
    expect(newestManifestName(["3.manifest", "12.manifest", "7.manifest"])).toBe("12.manifest");
    expect(newestManifestName([])).toBeNull();
    expect(() => newestManifestName(["3.manifest", v2(4n)])).toThrow(/mixes/);
    expect(() => newestManifestName(["x.manifest"])).toThrow(/not named/);
  });
});
