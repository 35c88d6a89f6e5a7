import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import type { Chunk } from "../chunk/index.js";
import { annDir, annSearch, buildAnnIndex } from "./ann.js";
import { LocalStore } from "./store.js";
import { writeVectors } from "./vectors.js";

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe("side index for federated recall", () => {
  it("finds what an exact search finds, without writing into the memory it indexes", async () => {
    const t = tempDir();
    try {
      const dir = join(t.dir, "view");
      const store = await LocalStore.openOrCreate(dir);
      const n = 3000;
      const chunk = (i: number): Chunk => ({
        id: `id-${i}`,
        text: `row ${i}`,
        sessionId: `s-${i % 7}`,
        workdir: "-w",
        turnUuid: `t-${i}`,
        parentUuid: null,
        seq: i,
        ts: "2026-11-01T00:00:00Z",
        role: "user",
        blockType: "text",
        toolName: null,
        sourcePath: "/x",
        blockIdx: 0,
        splitIdx: 0,
        harness: "pi",
        repo: "",
      });
      await store.append(Array.from({ length: n }, (_, i) => chunk(i)));
      const vectors = unitVectors(n, 11);
      await writeVectors(store.table, vectors);
      const before = files(dir);
      expect(await buildAnnIndex(store.table, dir, 5000)).toBe(false);
      expect(await buildAnnIndex(store.table, dir, 1000)).toBe(true);
      expect(files(dir)).toEqual(before);
      expect(readdirSync(annDir(dir)).length).toBeGreaterThan(0);
      for (const probe of ["id-5", "id-1234", "id-2999"]) {
        const hits = await annSearch(store.table, dir, vectors.get(probe) as Float32Array, 5);
        expect(hits?.[0]?.id).toBe(probe);
        expect(hits?.[0]?.text).toBe(`row ${probe.slice(3)}`);
      }
      expect(
        await annSearch(store.table, join(t.dir, "other"), vectors.get("id-5") as Float32Array, 5),
      ).toBeNull();
      store.close();
    } finally {
      t.cleanup();
    }
  });
});
