/**
 * Bounded reranking and the final order. The pool (best retrieval relevance first) is reranked best-first
 * in small batches until a time budget runs out. A reranked passage's relevance blends the cross-encoder's
 * probability with its retrieval relevance, so a weakly calibrated or small reranker refines the order
 * rather than overturning strong keyword and vector evidence. Reranked rows rank above rows the budget did
 * not reach, so a slow machine gets fewer reranked rows, never a shuffled list.
 */

/** A candidate with its retrieval relevance in (0, 1]. */
export interface PoolItem<T> {
  item: T;
  relevance: number;
}

/** A ranked candidate. */
export interface Ranked<T> {
  item: T;
  /** What the order comes from before recency, in (0, 1]. */
  relevance: number;
  /** Retrieval relevance (the legs' scores). */
  retrieval: number;
  /** The cross-encoder's probability, or null when the budget did not reach this row. */
  rerank: number | null;
}

/** Options for one rerank. */
export interface RerankOptions<T> {
  /** Scores a batch of items in (0, 1). */
  score: (items: T[]) => Promise<number[]>;
  /** Stop starting batches after this many ms; 0 reranks nothing. */
  budgetMs: number;
  /** Items per scoring call. */
  batch: number;
  now: () => number;
}

/** Share of a reranked passage's relevance that comes from the cross-encoder; the rest is retrieval. */
export const RERANK_WEIGHT = 0.5;

/** Blends a cross-encoder probability with retrieval relevance. */
export function blendRelevance(rerank: number, retrieval: number): number {
  return RERANK_WEIGHT * rerank + (1 - RERANK_WEIGHT) * retrieval;
}

/** Reranks `pool` (best first) within the budget. Output keeps reranked rows first, then the rest. */
export async function rerankWithinBudget<T>(pool: PoolItem<T>[], o: RerankOptions<T>): Promise<Ranked<T>[]> {
  const start = o.now();
  const scored: Ranked<T>[] = [];
  let i = 0;
  while (i < pool.length && o.budgetMs > 0 && o.now() - start < o.budgetMs) {
    const slice = pool.slice(i, i + o.batch);
    const scores = await o.score(slice.map((p) => p.item));
    slice.forEach((p, j) => {
      const ce = Math.min(1, Math.max(0, scores[j] ?? 0));
      scored.push({
        item: p.item,
        relevance: blendRelevance(ce, p.relevance),
        retrieval: p.relevance,
        rerank: ce,
      });
    });
    i += slice.length;
  }
  const rest = pool
    .slice(i)
    .map((p) => ({ item: p.item, relevance: p.relevance, retrieval: p.relevance, rerank: null }));
  return [...scored, ...rest];
}

/**
 * Applies recency and orders: reranked rows first, each group by relevance × its recency factor (computed
 * within the group, whose relevances share a scale); ties keep their incoming order.
 */
export function orderByScore<T>(
  ranked: Ranked<T>[],
  factors: (group: Ranked<T>[]) => number[],
): (Ranked<T> & { score: number; weight: number })[] {
  const groups = [ranked.filter((r) => r.rerank !== null), ranked.filter((r) => r.rerank === null)];
  return groups.flatMap((g) => {
    const f = factors(g);
    // Object.assign, not `{ ...r, score }`: Node 20's V8 builds a spread with more properties slowly.
    const scored = g.map((r, idx) =>
      Object.assign({}, r, { score: r.relevance * (f[idx] ?? 1), weight: f[idx] ?? 1 }),
    );
    return scored
      .map((_, idx) => idx)
      .sort(
        (a, b) => (scored[b] as { score: number }).score - (scored[a] as { score: number }).score || a - b,
      )
      .map((idx) => scored[idx] as Ranked<T> & { score: number; weight: number });
  });
}

/** Shown passages come in pages of this many: recency reorders within a page, never across one. */
export const RECENCY_PAGE = 5;

/**
 * The first k of passages in `ordered` (as `orderByScore` gives them), where recency may reorder but never
 * replace: each page of RECENCY_PAGE shown (and the first k) holds the passages relevance alone ranks there
 * (reranked before unreranked, as `orderByScore` groups them), in the order given. So a newer look-alike
 * within a quarter of an answer's relevance may move above it, never push it off the first page (or out of
 * the k shown) where relevance alone keeps it. `tier` ranks whole classes after others (0 before 1:
 * originals before a recall's own exchange). `time` (epoch ms; undated passages count as fresh) settles
 * exact ties of relevance at a page's edge for the older passage: of two equally relevant passages the
 * earlier is the likelier original, the later the likelier copy or look-alike.
 */
export function topByRelevance<T extends { relevance: number; rerank: number | null }>(
  ordered: T[],
  k: number,
  tier: (item: T) => number = () => 0,
  time: (item: T) => number = () => 0,
): T[] {
  const at = (i: number) => ordered[i] as T;
  const idx = ordered.map((_, i) => i);
  const unranked = (i: number) => (at(i).rerank === null ? 1 : 0);
  const byRelevance = [...idx]
    .sort(
      (a, b) =>
        tier(at(a)) - tier(at(b)) ||
        unranked(a) - unranked(b) ||
        at(b).relevance - at(a).relevance ||
        time(at(a)) - time(at(b)) ||
        a - b,
    )
    .slice(0, Math.max(0, k));
  const out: T[] = [];
  for (let start = 0; start < byRelevance.length; start += RECENCY_PAGE) {
    const page = byRelevance
      .slice(start, start + RECENCY_PAGE)
      .sort((a, b) => tier(at(a)) - tier(at(b)) || a - b);
    out.push(...page.map(at));
  }
  return out;
}
