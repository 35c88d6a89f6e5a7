import { describe, expect, it } from "vitest";
import { pickNeighbors } from "./neighbors.js";
import { parseTimeBound, RECENCY_SPAN, recencyFactors, withinTime } from "./recency.js";
import { fuseEvidence, KEYWORD_WEIGHT, MIN_RELEVANCE, poolOf } from "./relevance.js";
import { blendRelevance, orderByScore, rerankWithinBudget } from "./rerank.js";

describe("fuseEvidence", () => {
  const cand = (id: string, bm25: number | null, similarity: number | null, bestRank = 0) => ({
    id,
    bm25,
    similarity,
    foundBy: [],
    bestRank,
  });

  it("scores BM25 against the best BM25, so a clearly better keyword match stays clearly better", () => {
    const e = fuseEvidence([cand("weak", 3, null), cand("strong", 12, null), cand("mid", 6, null)]);
    expect(e.map((x) => x.id)).toEqual(["strong", "mid", "weak"]);
    expect(e.map((x) => x.relevance)).toEqual([1, 0.5, 0.25]);
  });

  it("blends both legs where both could see a row, and judges a row without a vector by keyword alone", () => {
    const e = fuseEvidence([
      cand("both", 10, 0.8),
      cand("vec-only", null, 0.4),
      cand("no-vector-yet", 10, null),
    ]);
    const by = new Map(e.map((x) => [x.id, x]));
    expect(by.get("both")?.relevance).toBeCloseTo(KEYWORD_WEIGHT + (1 - KEYWORD_WEIGHT), 9);
    expect(by.get("vec-only")?.relevance).toBeCloseTo((1 - KEYWORD_WEIGHT) * 0.5, 9);
    // Waiting for its vector is no reason to rank below an equal keyword match that has one.
    expect(by.get("no-vector-yet")?.relevance).toBe(1);
  });

  it("never gives a found row 0", () => {
    const e = fuseEvidence([cand("a", 5, 0.9), cand("b", null, -0.2)]);
    expect(Math.min(...e.map((x) => x.relevance))).toBeGreaterThanOrEqual(MIN_RELEVANCE);
  });

  it("fills the rerank pool from every leg's head first", () => {
    const cs = [
      cand("k0", 9, null, 0),
      cand("k1", 8, null, 1),
      cand("k2", 7, null, 2),
      cand("v0", null, 0.5, 0),
    ];
    expect(poolOf(cs, 2).map((c) => c.id)).toEqual(["k0", "v0"]);
    expect(poolOf(cs, 9)).toHaveLength(4);
  });
});

describe("recency", () => {
  const now = Date.parse("2026-07-01T00:00:00Z");
  it("parses dates, timestamps and spans, and rejects the rest", () => {
    expect(parseTimeBound("2026-06-01", now)).toBe(Date.parse("2026-06-01T00:00:00Z"));
    expect(parseTimeBound("2026-06-01T12:00:00+02:00", now)).toBe(Date.parse("2026-06-01T10:00:00Z"));
    expect(parseTimeBound("7d", now)).toBe(now - 7 * 86_400_000);
    expect(parseTimeBound("12h", now)).toBe(now - 12 * 3_600_000);
    expect(parseTimeBound("2w", now)).toBe(now - 14 * 86_400_000);
    expect(parseTimeBound("90m", now)).toBe(now - 90 * 60_000);
    for (const bad of ["yesterday", "7", "2026-13-45", "", "d7", "99999999999999999999d", "1e400w"])
      expect(parseTimeBound(bad, now), bad).toBeNull();
    expect(withinTime("2026-06-15T00:00:00Z", parseTimeBound("2026-06-01", now), null)).toBe(true);
    expect(withinTime("2026-05-15T00:00:00Z", parseTimeBound("2026-06-01", now), null)).toBe(false);
    expect(withinTime("", parseTimeBound("2026-06-01", now), null)).toBe(false);
  });
});

describe("recencyFactors", () => {
  const now = Date.parse("2026-07-01T00:00:00Z");
  const ago = (days: number) => new Date(now - days * 86_400_000).toISOString();

  it("puts the newer of two near-equal passages first, whatever the dates", () => {
    for (const base of [0, 30, 400, 3000]) {
      const items = [
        { relevance: 1, ts: ago(base + 60) },
        { relevance: 0.9, ts: ago(base) },
      ];
      const f = recencyFactors(items, now, 30);
      expect(0.9 * (f[1] as number), `base ${base}`).toBeGreaterThan(1 * (f[0] as number));
    }
  });

  it("never lets recency bury a clearly better passage", () => {
    const items = [
      { relevance: 1, ts: ago(5000) },
      { relevance: 1 - RECENCY_SPAN - 0.01, ts: ago(0) },
    ];
    const f = recencyFactors(items, now, 30);
    expect(f[1]).toBe(1);
    expect(f[0] as number).toBeGreaterThanOrEqual(1 - RECENCY_SPAN);
    expect(1 * (f[0] as number)).toBeGreaterThan((1 - RECENCY_SPAN - 0.01) * (f[1] as number));
  });

  it("is off at half-life 0, and counts undated passages as fresh", () => {
    const items = [
      { relevance: 1, ts: ago(100) },
      { relevance: 1, ts: "" },
    ];
    expect(recencyFactors(items, now, 0)).toEqual([1, 1]);
    const f = recencyFactors(items, now, 30);
    expect(f[1]).toBe(1);
    expect(f[0]).toBeLessThan(1);
  });

  it("lets no judge's clear difference be taken for a tie: what the cross-encoder finds stays above a newer blend", () => {
    // Old: the cross-encoder's 0.84 blended with retrieval 0.31 (found by the vector leg only); new: 0.16
    // with 0.80 (a keyword hit on a common word). The blends are near-equal; the cross-encoder is not.
    const old = { relevance: blendRelevance(0.84, 0.31), ts: ago(1500), judges: [0.84] };
    const newer = { relevance: blendRelevance(0.16, 0.8), ts: ago(3), judges: [0.16] };
    expect(newer.relevance).toBeGreaterThan((1 - RECENCY_SPAN) * old.relevance);
    expect(newer.relevance).toBeLessThan(old.relevance);
    const f = recencyFactors([old, newer], now, 30);
    expect(f).toEqual([1, 1]);
    // Without the judge's score (not reranked) the two are near-equals, and the newer is first.
    const g = recencyFactors([{ ...old, judges: [null] }, newer], now, 30);
    expect(newer.relevance * (g[1] as number)).toBeGreaterThan(old.relevance * (g[0] as number));
    // A revision the cross-encoder scores about as high as the original still comes first.
    const orig = { relevance: blendRelevance(0.95, 1), ts: ago(400), judges: [0.95] };
    const rev = { relevance: blendRelevance(0.9, 0.83), ts: ago(100), judges: [0.9] };
    const h = recencyFactors([orig, rev], now, 30);
    expect(rev.relevance * (h[1] as number)).toBeGreaterThan(orig.relevance * (h[0] as number));
  });

  it("weighs the age gap on the half-life's scale: part of the way below it, all the way from a half-life on", () => {
    const items = (gap: number) => [
      { relevance: 1, ts: ago(200 + gap) },
      { relevance: 0.8, ts: ago(200) },
    ];
    const f = (gap: number) => recencyFactors(items(gap), now, 30)[0] as number;
    // Half a half-life newer: the older loses half of the 20% between them, and stays first.
    expect(f(15)).toBeCloseTo(0.9, 5);
    expect(f(15)).toBeGreaterThan(0.8);
    // A half-life or more newer: the older sits just below the newer one, never further.
    for (const gap of [30, 300]) {
      expect(f(gap)).toBeLessThan(0.8);
      expect(f(gap)).toBeGreaterThan(0.8 - 1e-5);
    }
    expect(f(2)).toBeGreaterThan(f(15));
    // Equal relevance: the newer first at any gap, with the older's score all but unchanged.
    const tie = recencyFactors(
      [
        { relevance: 1, ts: ago(201) },
        { relevance: 1, ts: ago(200) },
      ],
      now,
      30,
    );
    expect(tie[0]).toBeLessThan(1);
    expect(tie[0]).toBeGreaterThan(0.999);
  });

  it("takes a newer passage for a near-equal only when it holds every question word the older holds", () => {
    const words = (...w: string[]) => new Set(w);
    const older = { relevance: 1, ts: ago(300), words: words("ledger", "rollback") };
    const revision = { relevance: 0.9, ts: ago(10), words: words("ledger", "rollback", "v2") };
    const other = { relevance: 0.9, ts: ago(10), words: words("ledger", "invoice") };
    expect(recencyFactors([older, revision], now, 30)[0]).toBeLessThan(0.9);
    expect(recencyFactors([older, other], now, 30)).toEqual([1, 1]);
  });
});

describe("rerankWithinBudget", () => {
  const pool = ["a", "b", "c", "d", "e"].map((id, i) => ({ item: id, relevance: 1 - i * 0.1 }));
  const fresh = (g: unknown[]) => g.map(() => 1);

  it("reranks best first, blends the cross-encoder with retrieval, and keeps unreranked rows last", async () => {
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
    });
    expect(ranked.map((r) => [r.item, r.rerank !== null])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
      ["d", true],
      ["e", false],
    ]);
    expect(ranked[1]?.relevance).toBeCloseTo(blendRelevance(0.9, 0.9), 9);
    const ordered = orderByScore(ranked, fresh);
    expect(ordered.map((r) => r.item)).toEqual(["b", "a", "c", "d", "e"]);
    // "e" has a higher relevance than some reranked rows, and still comes after every one of them.
    expect(ordered[4]?.relevance).toBeGreaterThan(ordered[3]?.relevance as number);
  });

  it("with no budget keeps the retrieval order, weighted by recency, and scores are what the order comes from", async () => {
    const ranked = await rerankWithinBudget(pool, {
      score: async () => {
        throw new Error("must not be called");
      },
      budgetMs: 0,
      batch: 8,
      now: () => 0,
    });
    const ordered = orderByScore(ranked, (g) => g.map((r) => (r.item === "a" ? 0.8 : 1)));
    expect(ordered.map((r) => r.item)).toEqual(["b", "a", "c", "d", "e"]);
    const scores = ordered.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(ordered[1]?.weight).toBe(0.8);
  });

  it("keeps equal scores in their incoming order, and leaves the rows it was given as they were", () => {
    const rows = ["p", "q", "r", "s"].map((item, i) => ({
      item,
      relevance: i === 2 ? 0.9 : 0.5,
      retrieval: 0.5,
      rerank: null,
    }));
    const before = JSON.stringify(rows);
    const ordered = orderByScore(rows, (g) => g.map(() => 1));
    expect(ordered.map((r) => r.item)).toEqual(["r", "p", "q", "s"]);
    expect(ordered.map((r) => [r.score, r.weight])).toEqual([
      [0.9, 1],
      [0.5, 1],
      [0.5, 1],
      [0.5, 1],
    ]);
    expect(JSON.stringify(rows)).toBe(before);
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
