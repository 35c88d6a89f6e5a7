/**
 * search: pure ranking. Score fusion of the retrieval legs, rerank ordering under a time budget, recency decay, time
 * filters, neighbour picking. Arrays in, arrays out: knows nothing of Lance, models or output formats.
 */
export {
  COPY_RUN_WORDS,
  copyLinks,
  coveredShare,
  type DatedText,
  MIN_QUOTED,
  type Placeable,
  QUOTED_SHARE,
  rankAfterSources,
  runHash,
  runsOf,
  wordIds,
} from "./copies.js";
export {
  type EchoReason,
  echoOf,
  exchangeKinds,
  type FunesTool,
  funesToolOfName,
  hasFunesOutput,
  mayBeCall,
  type NamedTurn,
  type PlacedRow,
  quotedTurns,
  type RowKind,
  type SessionKinds,
  type SessionRow,
  type StoredRow,
  sessionKinds,
  turnIndex,
  turnKey,
} from "./echoes.js";
export { pickNeighbors, type SeqRow } from "./neighbors.js";
export {
  contentStems,
  contentWords,
  isFunctionWord,
  matchedStems,
  stemWord,
  wordsOf,
} from "./query-words.js";
export {
  type Dated,
  parseTimeBound,
  parseTimestamp,
  RECENCY_SPAN,
  recencyFactors,
  withinTime,
} from "./recency.js";
export { type Candidate, dot, type Evidence, fuseEvidence, type Leg, poolOf } from "./relevance.js";
export {
  blendRelevance,
  orderByScore,
  type PoolItem,
  type Ranked,
  type RerankOptions,
  rerankWithinBudget,
  topByRelevance,
} from "./rerank.js";
export { type SessionCandidate, withSessionEvidence } from "./session-evidence.js";
export { type NamedTime, timeMatch, timeMentions } from "./time-mentions.js";
