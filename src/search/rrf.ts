/**
 * Reciprocal-rank fusion (k = 60, the reference's): each list adds 1/(k + rank) to an item's score
 * (rank 0-based). Ties keep the order items were first seen in (vector list first), so results are
 * reproducible (the reference's tie order is arbitrary).
 */

/** The reference's RRF constant. */
export const RRF_K = 60;

/** An item's fused score. */
export interface Fused {
  id: string;
  score: number;
}

/** Fuses ranked id lists; returns every id, best first. */
export function fuseRrf(lists: string[][], k = RRF_K): Fused[] {
  const score = new Map<string, number>();
  const first = new Map<string, number>();
  let seen = 0;
  for (const list of lists)
    list.forEach((id, rank) => {
      score.set(id, (score.get(id) ?? 0) + 1 / (k + rank));
      if (!first.has(id)) first.set(id, seen++);
    });
  return [...score.entries()]
    .map(([id, s]) => ({ id, score: s }))
    .sort((a, b) => b.score - a.score || (first.get(a.id) ?? 0) - (first.get(b.id) ?? 0));
}

/** The largest fused score possible with `lists` lists (an item first in each). */
export function maxFusedScore(lists: number, k = RRF_K): number {
  return lists / k;
}
