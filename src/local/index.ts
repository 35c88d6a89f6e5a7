/**
 * local: Lance mechanics. The memory schema, opening and creating `chunks.lance`, appends, the full-text
 * index, scans and counts. Knows Lance and the chunk row; knows nothing of the Hub, agents or commands.
 * Other layers read and write an open memory through the named queries (named-queries.ts, over a
 * LocalStore); the table-level functions exported beside them are for the bench and tests.
 */
export { ANN_MIN_ROWS, annDir, annSearch, buildAnnIndex } from "./ann.js";
export { type ArrowTable, arrow } from "./arrow.js";
export { unreferencedDataFiles } from "./data-files.js";
export { diskFullOf } from "./disk-full.js";
export {
  deleteIds,
  dropOldVersions,
  type ForgetCandidate,
  forgetCandidates,
  purgeRows,
  rebuildTextIndex,
  rewriteWithout,
  withStagedTable,
} from "./forget-rows.js";
export { checkManifests, UnsafeManifestError } from "./manifest-check.js";
export {
  chunksById,
  countRows,
  deleteIdsIn,
  ensureSideIndex,
  forgetCandidateRows,
  purgeForgotten,
  purgeForgottenIn,
  type RowFilter,
  replaceChunks,
  rowFilterSql,
  rowsPendingVectors,
  sessionFacts,
  sessionIds,
  sideIndexLeg,
  storePendingVectors,
  storeVectors,
  textsOfPending,
  unindexedTextRows,
  userPrompts,
} from "./named-queries.js";
export {
  appendMissing,
  cardCountsIn,
  countRowsIn,
  embeddedRows,
  idsIn,
  nameProject,
  REMOTE_REINDEX_ROWS,
  REMOTE_VECTOR_INDEX_MIN_ROWS,
  refreshTextIndex,
  refreshVectorIndex,
  selectRows,
  VECTOR_INDEX,
} from "./publish-rows.js";
export {
  type LocalRows,
  pinVersion,
  type RowPlace,
  rowBytes,
  rowPlaces,
  textsAt,
  versionKept,
} from "./publish-stream.js";
export {
  type HitRow,
  hasHarnessColumn,
  type KeywordHit,
  type KeywordQuery,
  keywordSearch,
  rowsInRanges,
  sessionRows,
  type VectorHit,
  vectorSearch,
} from "./queries.js";
export { ReadView } from "./read-view.js";
export { chunksWithIds, replaceRows } from "./replace-rows.js";
export { checkRowBounds, OversizeMemoryError } from "./row-bounds.js";
export { chunksToArrow } from "./rows.js";
export {
  COLUMNS,
  chunkSchema,
  EMBEDDING_MODEL,
  REQUIRED_COLUMNS,
  TABLE_NAME,
  VECTOR_DIM,
} from "./schema.js";
export { sqlString } from "./sql.js";
export {
  type HarnessCounts,
  IncompatibleMemoryError,
  LocalStore,
  type StoreStats,
  storeExists,
  TEXT_INDEX,
  type VectorIndexPlan,
  type VectorIndexRules,
} from "./store.js";
export {
  type PendingRow,
  pendingTexts,
  pendingVectorRows,
  writePendingVectors,
  writeVectors,
} from "./vectors.js";
