import { describe, expect, it } from "vitest";
import { pickNeighbors } from "./neighbors.js";
import { parseTimeBound, recencyWeight, withinTime } from "./recency.js";
import { orderByScore, rerankWithinBudget } from "./rerank.js";
import { fuseRrf, maxFusedScore } from "./rrf.js";

describe("fuseRrf", () => {
  it("adds 1/(60 + rank) per list, so agreement between lists wins", () => {
    const fused = fuseRrf([
      ["a", "b", "c"],
      ["c", "d"],
    ]);
    expect(fused.map((f) => f.id)).toEqual(["c", "a", "b", "d"]);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 60, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 60, 12);
    expect(maxFusedScore(2)).toBeCloseTo(2 / 60, 12);
  });

  it("breaks ties by first appearance, deterministically", () => {
    expect(fuseRrf([["x"], ["y"]]).map((f) => f.id)).toEqual(["x", "y"]);
    expect(fuseRrf([["y"], ["x"]]).map((f) => f.id)).toEqual(["y", "x"]);
  });
});

describe("recency", () => {
  const now = Date.parse("2026-07-01T00:00:00Z");
  it("halves a score every half-life, and ignores what it cannot date", () => {
    expect(recencyWeight("2026-07-01T00:00:00Z", now, 30)).toBe(1);
    expect(recencyWeight("2026-05-02T00:00:00Z", now, 30)).toBeCloseTo(0.25, 6);
    expect(recencyWeight("2026-06-01T00:00:00+02:00", now, 30)).toBeCloseTo(0.5 ** (30.0833333 / 30), 4);
    expect(recencyWeight("2027-01-01T00:00:00Z", now, 30)).toBe(1);
    expect(recencyWeight("", now, 30)).toBe(1);
    expect(recencyWeight("1776072558813", now, 30)).toBe(1);
    expect(recencyWeight("2020-01-01T00:00:00Z", now, 0)).toBe(1);
  });

  it("parses dates, timestamps and spans, and rejects the rest", () => {
    expect(parseTimeBound("2026-06-01", now)).toBe(Date.parse("2026-06-01T00:00:00Z"));
    expect(parseTimeBound("2026-06-01T12:00:00+02:00", now)).toBe(Date.parse("2026-06-01T10:00:00Z"));
    expect(parseTimeBound("7d", now)).toBe(now - 7 * 86_400_000);
    expect(parseTimeBound("12h", now)).toBe(now - 12 * 3_600_000);
    expect(parseTimeBound("2w", now)).toBe(now - 14 * 86_400_000);
    expect(parseTimeBound("90m", now)).toBe(now - 90 * 60_000);
    for (const bad of ["yesterday", "7", "2026-13-45", "", "d7"])
      expect(parseTimeBound(bad, now), bad).toBeNull();
    expect(withinTime("2026-06-15T00:00:00Z", parseTimeBound("2026-06-01", now), null)).toBe(true);
    expect(withinTime("2026-05-15T00:00:00Z", parseTimeBound("2026-06-01", now), null)).toBe(false);
    expect(withinTime("", parseTimeBound("2026-06-01", now), null)).toBe(false);
  });
});

describe("rerankWithinBudget", () => {
  const pool = ["a", "b", "c", "d", "e"].map((id, i) => ({ item: id, fused: 1 / (60 + i) }));

  it("reranks best-fused first and never lets an unreranked row rise above a reranked one", async () => {
    let t = 0;
    const ranked = await rerankWithinBudget(pool, {
      // Each call "takes" 10 ms; the budget allows two calls of two.
      score: async (items) => {
        t += 10;
        return items.map((i) => (i === "b" ? 0.9 : 0.1));
      },
      budgetMs: 15,
      batch: 2,
      now: () => t,
      maxFused: maxFusedScore(1),
    });
    expect(ranked.map((r) => [r.item, r.reranked])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
      ["d", true],
      ["e", false],
    ]);
    const ordered = orderByScore(ranked, () => 1);
    expect(ordered.map((r) => r.item)).toEqual(["b", "a", "c", "d", "e"]);
    // "e" has a higher fused-derived relevance than the reranked rows' 0.1, and still comes last.
    expect(ordered[4]?.relevance).toBeGreaterThan(0.1);
  });

  it("with no budget keeps the fused order, weighted", async () => {
    const ranked = await rerankWithinBudget(pool, {
      score: async () => {
        throw new Error("must not be called");
      },
      budgetMs: 0,
      batch: 8,
      now: () => 0,
      maxFused: maxFusedScore(1),
    });
    expect(orderByScore(ranked, (i) => (i === "c" ? 2 : 1)).map((r) => r.item)).toEqual([
      "c",
      "a",
      "b",
      "d",
      "e",
    ]);
  });
});

describe("pickNeighbors", () => {
  it("takes other turns of the same session within the window, in order", () => {
    const row = (sessionId: string, turnUuid: string, seq: number, blockIdx = 0, splitIdx = 0) => ({
      sessionId,
      turnUuid,
      seq,
      blockIdx,
      splitIdx,
    });
    const hit = row("s", "t5", 5);
    const rows = [
      row("s", "t6", 6, 1),
      row("s", "t6", 6, 0),
      row("s", "t5", 5, 1),
      row("s", "t4", 4),
      row("s", "t7", 7),
      row("x", "t6", 6),
    ];
    expect(pickNeighbors(hit, rows, 1).map((r) => `${r.turnUuid}/${r.blockIdx}`)).toEqual([
      "t4/0",
      "t6/0",
      "t6/1",
    ]);
  });
});
