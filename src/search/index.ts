/**
 * search: pure ranking. Reciprocal-rank fusion, rerank ordering under a time budget, recency decay, time
 * filters, neighbour picking. Arrays in, arrays out: knows nothing of Lance, models or output formats.
 */
export { pickNeighbors, type SeqRow } from "./neighbors.js";
export { parseTimeBound, parseTimestamp, recencyWeight, withinTime } from "./recency.js";
export {
  orderByScore,
  type PoolItem,
  type Ranked,
  type RerankOptions,
  rerankWithinBudget,
} from "./rerank.js";
export { type Fused, fuseRrf, maxFusedScore, RRF_K } from "./rrf.js";
