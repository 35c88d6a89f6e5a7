import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { PLANTED } from "../../test/helpers/secrets.js";
import { type Chunk, splitText } from "../chunk/index.js";
import { LocalStore, rowPlaces } from "../local/index.js";
import { dirtyBlocks, holdBack } from "./secret-blocks.js";

const secret = (kind: string): string => {
  const p = PLANTED.find(([k]) => k === kind);
  if (p === undefined) throw new Error(`no planted ${kind}`);
  return p[2](p[1]);
};

/**
 * 700 blocks (more than two scanner calls of 256), written in three appends so blocks cross fragments:
 * clean ones, whole secrets, and blocks of several chunks with a key cut in two.
 */
function memoryRows(): { rows: Chunk[]; dirty: Set<number> } {
  const rows: Chunk[] = [];
  const dirty = new Set<number>();
  for (let b = 0; b < 700; b++) {
    const id = (s: number) => `b${b}-s${s}`;
    if (b % 97 === 5) {
      dirty.add(b);
      rows.push(leakyRow(id(0), `deploy notes for block ${b}: ${secret("github classic token")}`, b));
    } else if (b % 131 === 7) {
      dirty.add(b);
      rows.push(leakyRow(id(0), `keys ${secret("aws access key id")} for block ${b}`, b));
    } else if (b === 300 || b === 555) {
      // A private key cut in two by chunking: the block is whole again only when stitched.
      const text = `${"x ".repeat(450)}${secret("private key (PEM)")}${" y".repeat(600)}`;
      dirty.add(b);
      splitText(text).forEach((piece, s) => {
        rows.push(leakyRow(id(s), piece, b, s));
      });
    } else rows.push(leakyRow(id(0), `plain words of block ${b}`, b));
  }
  return { rows, dirty };
}

describe("the secret gate by groups of blocks", () => {
  it("holds back exactly the same chunks, counted by rule, whatever the group size", async () => {
    const t = tempDir();
    try {
      const { rows, dirty } = memoryRows();
      const store = await LocalStore.openOrCreate(`${t.dir}/m`);
      try {
        // Block 300's pieces land in different appends (fragments) than most of their neighbours.
        await store.append(rows.slice(0, 250));
        await store.append(rows.slice(250, 520));
        await store.append(rows.slice(520));
        // Candidates: everything but block 5 (dirty, never counted) and one piece of block 300.
        const candidates = rows
          .filter((r) => r.blockIdx !== 5 && r.id !== "b300-s1")
          .map((r) => ({ id: r.id, sessionId: r.sessionId, turnUuid: r.turnUuid, blockIdx: r.blockIdx }));
        const whole = await holdBack(store, candidates);
        const places = await rowPlaces(store);
        const grouped = await holdBack(store, candidates, { places, groupRows: 1 });
        const midSized = await holdBack(store, candidates, { groupRows: 300 });
        // Every chunk of every dirty block but 5 is held, even the piece of 300 that is no candidate.
        const want = rows.filter((r) => dirty.has(r.blockIdx) && r.blockIdx !== 5).map((r) => r.id);
        expect([...whole.held.keys()].sort()).toEqual(want.sort());
        expect(whole.held.has("b300-s1")).toBe(true);
        const counted = Object.values(whole.byRule).reduce((a, b) => a + b, 0);
        expect(counted).toBe(want.length - 1);
        for (const other of [grouped, midSized]) {
          expect(other.byRule).toEqual(whole.byRule);
          expect([...other.held.entries()].sort()).toEqual([...whole.held.entries()].sort());
        }
        // Scrub's view: the same dirty blocks, whole, in the same order.
        const all = await dirtyBlocks(store);
        const allGrouped = await dirtyBlocks(store, undefined, { groupRows: 1 });
        expect(all.map((d) => d.chunks[0]?.blockIdx)).toEqual([...dirty]);
        expect(allGrouped.map((d) => [d.text, d.chunks.map((c) => c.id)])).toEqual(
          all.map((d) => [d.text, d.chunks.map((c) => c.id)]),
        );
        expect(all.find((d) => d.chunks[0]?.blockIdx === 300)?.chunks.length).toBeGreaterThan(1);
      } finally {
        store.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
