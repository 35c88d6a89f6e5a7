/**
 * Relevance from the legs' own scores. Rank fusion throws the scores away: the first and the thirtieth
 * keyword hit differ by a third, however far apart their BM25 scores are, so any recency weight then
 * outweighs relevance. Here every candidate (found by either leg) is scored on both legs where it can be:
 * BM25 over the recall's best BM25, and cosine similarity to the query over the best similarity (0 is the
 * floor: unrelated text, not the weakest candidate, so a leg that cannot tell candidates apart cannot
 * spread them apart either). Relevance is their weighted mean (KEYWORD_WEIGHT); a row still waiting for its
 * vector, or from a memory searched by keyword only, is judged by its keyword score alone rather than
 * marked down for a leg that could not see it. Relevance lies in (0, 1]; 1 is the best this recall found.
 */

/** The retrieval legs. */
export type Leg = "keyword" | "vector";

/** A candidate and what each leg knows of it. */
export interface Candidate {
  id: string;
  /** BM25 score, or null when the keyword leg did not return it (its score is then below every hit's). */
  bm25: number | null;
  /** Cosine similarity to the query, or null when the row has no vector or no vector search ran. */
  similarity: number | null;
  /** The legs whose results held it. */
  foundBy: Leg[];
  /** Its best 0-based rank in any leg's results (what decides who enters the rerank pool). */
  bestRank: number;
}

/** A candidate with its evidence. */
export interface Evidence {
  id: string;
  /** In (0, 1]. */
  relevance: number;
  /** Normalised keyword score in [0, 1]. */
  keyword: number;
  /** Normalised vector score in [0, 1], or null when the row could not be scored by vector. */
  vector: number | null;
  foundBy: Leg[];
  bestRank: number;
}

/**
 * Share of relevance that comes from the keyword leg when both legs scored a row. Above half: transcripts
 * are full of identifiers, paths and error strings that BM25 matches exactly, and its scores spread far
 * wider than cosine similarities do, so an exact rare-word match should outweigh a passage that is merely
 * about the same things.
 */
export const KEYWORD_WEIGHT = 0.6;

/** The smallest relevance a found passage gets, so no shown hit scores 0. */
export const MIN_RELEVANCE = 0.001;

/**
 * The rerank pool: `size` candidates taken by their best rank in any leg (each leg's first, then each
 * leg's second, …, as the reference's rank fusion would take them), so a passage only one leg can find
 * (worded differently, or matching only by keyword) still reaches the cross-encoder. Order is kept.
 */
export function poolOf<T extends { bestRank: number }>(candidates: T[], size: number): T[] {
  if (candidates.length <= size) return candidates;
  const keep = new Set(
    candidates
      .map((c, i) => ({ r: c.bestRank, i }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .slice(0, size)
      .map((x) => x.i),
  );
  return candidates.filter((_, i) => keep.has(i));
}

/** Scores candidates; returns them best first (ties keep the order given). */
export function fuseEvidence(candidates: Candidate[]): Evidence[] {
  const maxBm25 = Math.max(0, ...candidates.map((c) => c.bm25 ?? 0));
  const maxSim = Math.max(0, ...candidates.map((c) => c.similarity ?? 0));
  return candidates
    .map((c, idx) => {
      const keyword = maxBm25 > 0 ? Math.max(0, c.bm25 ?? 0) / maxBm25 : 0;
      const vector = c.similarity === null ? null : maxSim > 0 ? Math.max(0, c.similarity) / maxSim : 0;
      const relevance = vector === null ? keyword : KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT) * vector;
      return {
        id: c.id,
        relevance: Math.max(MIN_RELEVANCE, relevance),
        keyword,
        vector,
        foundBy: c.foundBy,
        bestRank: c.bestRank,
        idx,
      };
    })
    .sort((a, b) => b.relevance - a.relevance || a.idx - b.idx)
    .map(({ idx: _idx, ...e }) => e);
}

/** Dot product: cosine similarity of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
