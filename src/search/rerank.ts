/**
 * Bounded reranking: the fused pool is reranked best-first in small batches until a time budget runs out.
 * Reranked rows always rank above rows the budget did not reach (whose relevance is only their fused
 * score), so a slow machine gets fewer reranked rows, never a shuffled list.
 */

/** A candidate with its fused score. */
export interface PoolItem<T> {
  item: T;
  fused: number;
}

/** A ranked candidate: relevance in [0, 1], and whether the cross-encoder scored it. */
export interface Ranked<T> {
  item: T;
  relevance: number;
  reranked: boolean;
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
  /** The fused score that maps to relevance 1 for rows left unreranked. */
  maxFused: number;
}

/** Reranks `pool` (best fused first) within the budget. Output keeps reranked rows first, each group by relevance. */
export async function rerankWithinBudget<T>(pool: PoolItem<T>[], o: RerankOptions<T>): Promise<Ranked<T>[]> {
  const start = o.now();
  const scored: Ranked<T>[] = [];
  let i = 0;
  while (i < pool.length && o.budgetMs > 0 && o.now() - start < o.budgetMs) {
    const slice = pool.slice(i, i + o.batch);
    const scores = await o.score(slice.map((p) => p.item));
    slice.forEach((p, j) => {
      scored.push({ item: p.item, relevance: scores[j] ?? 0, reranked: true });
    });
    i += slice.length;
  }
  const rest = pool
    .slice(i)
    .map((p) => ({ item: p.item, relevance: Math.min(1, p.fused / o.maxFused), reranked: false }));
  return [...scored, ...rest];
}

/**
 * Applies a weight (recency) and orders: reranked rows first, each group by weighted relevance; ties keep
 * their incoming order.
 */
export function orderByScore<T>(
  ranked: Ranked<T>[],
  weight: (item: T) => number,
): (Ranked<T> & { score: number })[] {
  return ranked
    .map((r, idx) => ({ ...r, score: r.relevance * weight(r.item), idx }))
    .sort((a, b) => Number(b.reranked) - Number(a.reranked) || b.score - a.score || a.idx - b.idx)
    .map(({ idx: _idx, ...r }) => r);
}
