/**
 * The contract every TraceSource keeps, run against each implementation with its own sample data
 * (unstorage's testDriver pattern): units are listed and limited, reads are deterministic, turns are
 * numbered densely, no blank block is produced, and bad records are counted rather than fatal.
 */
import { describe, expect, it } from "vitest";
import type { TraceSource } from "../../src/traces/index.js";

/** How to build a source over sample data, and how to damage it. */
export interface ContractSetup {
  /** A source over at least one readable session. */
  make(): Promise<{ source: TraceSource; cleanup: () => void }>;
  /** A source whose data holds one bad record among good ones (a torn line, an unparsable element…). */
  makeDamaged(): Promise<{ source: TraceSource; cleanup: () => void }>;
  /** The facet every turn must carry (parquet: the row's own). */
  harness: string;
}

/** Registers the contract tests for one source kind. */
export function traceSourceContract(name: string, setup: ContractSetup): void {
  describe(`TraceSource contract: ${name}`, () => {
    it("lists units, reads sessions with dense seq and non-blank blocks", async () => {
      const { source, cleanup } = await setup.make();
      try {
        const units = await source.listUnits();
        expect(units.length).toBeGreaterThan(0);
        let turns = 0;
        for (const unit of units) {
          expect(typeof unit.key).toBe("string");
          const read = await source.readUnit(unit);
          expect(read.records).toBeGreaterThan(0);
          for (const s of read.sessions) {
            expect(s.sessionId).not.toBe("");
            s.turns.forEach((t, i) => {
              expect(t.seq).toBe(i);
              expect(t.sessionId).toBe(s.sessionId);
              expect(t.harness).toBe(setup.harness);
              expect(t.blocks.length).toBeGreaterThan(0);
              for (const b of t.blocks) expect(b.text.trim()).not.toBe("");
            });
            turns += s.turns.length;
          }
        }
        expect(turns).toBeGreaterThan(0);
      } finally {
        cleanup();
      }
    });

    it("reads the same turns twice (ids are stable)", async () => {
      const { source, cleanup } = await setup.make();
      try {
        const [unit] = await source.listUnits();
        if (unit === undefined) throw new Error("no unit");
        const a = await source.readUnit(unit);
        const b = await source.readUnit(unit);
        const ids = (r: typeof a) => r.sessions.flatMap((s) => s.turns.map((t) => `${t.turnUuid}@${t.seq}`));
        expect(ids(b)).toEqual(ids(a));
        expect(new Set(ids(a)).size).toBe(ids(a).length);
      } finally {
        cleanup();
      }
    });

    it("respects limit", async () => {
      const { source, cleanup } = await setup.make();
      try {
        expect((await source.listUnits(1)).length).toBe(1);
      } finally {
        cleanup();
      }
    });

    it("counts a bad record and keeps the rest", async () => {
      const good = await setup.make();
      const bad = await setup.makeDamaged();
      try {
        const turnsOf = async (src: TraceSource) => {
          let n = 0;
          let skipped = 0;
          for (const u of await src.listUnits()) {
            const r = await src.readUnit(u);
            n += r.sessions.reduce((a, s) => a + s.turns.length, 0);
            skipped += Object.values(r.skipped).reduce((a, b) => a + b, 0);
          }
          return { n, skipped };
        };
        const g = await turnsOf(good.source);
        const d = await turnsOf(bad.source);
        expect(d.n).toBe(g.n);
        expect(d.skipped).toBeGreaterThan(g.skipped);
      } finally {
        good.cleanup();
        bad.cleanup();
      }
    });
  });
}
