/**
 * local: Lance mechanics. The memory schema, opening and creating `chunks.lance`, appends, the full-text
 * index, scans and counts. Knows Lance and the chunk row; knows nothing of the Hub, agents or commands.
 * Other layers read and write an open memory through the named queries (named-queries.ts, over a
 * LocalStore); the table-level functions exported beside them are for the bench and tests.
 */
export { annDir } from "./ann.js";
export { type ArrowTable, arrow } from "./arrow.js";
export { unreferencedDataFiles } from "./data-files.js";
export { diskFullOf } from "./disk-full.js";
export { type FoldResult, FULL_FRAGMENT_ROWS, foldFragmentsIn, foldGroup } from "./fold.js";
export { deleteIds, type ForgetCandidate, forgetCandidateRows, purgeRows } from "./forget-rows.js";
export {
  checkManifests,
  isManifestName,
  MAX_MANIFEST_BYTES,
  manifestTooLarge,
  UnsafeManifestError,
} from "./manifest-check.js";
export {
  newestManifestName,
  newestVersionFiles,
  TABLE_FOLDERS,
  UnsupportedManifestError,
  VERSION_HINT,
  type VersionFiles,
  versionFiles,
} from "./manifest-files.js";
export {
  countRows,
  deleteIdsIn,
  ensureSideIndex,
  purgeForgotten,
  purgeForgottenIn,
  type RowFilter,
  rowFilterSql,
  rowsPendingVectors,
  type SessionSummary,
  sessionFacts,
  sessionIds,
  sessionSummaries,
  sideIndexLeg,
  storePendingVectors,
  storeVectors,
  textsOfPending,
  type UserText,
  unindexedTextRows,
  userPrompts,
  userTextsOf,
} from "./named-queries.js";
export {
  appendMissing,
  cardCountsIn,
  embeddedRows,
  idsIn,
  nameProject,
  refreshTextIndex,
  refreshVectorIndex,
  selectRows,
} from "./publish-rows.js";
export {
  type LocalRows,
  pinVersion,
  type RowPlace,
  type RowStrings,
  rowBytes,
  rowPlaces,
  stringsAt,
  versionKept,
} from "./publish-stream.js";
export {
  type HitRow,
  type KeywordHit,
  type KeywordQuery,
  keywordSearch,
  type VectorHit,
  vectorSearch,
} from "./queries.js";
export { ReadView } from "./read-view.js";
export { chunksById, replaceChunks } from "./replace-rows.js";
export { checkRowBounds, OversizeMemoryError } from "./row-bounds.js";
export { chunksToArrow } from "./rows.js";
export { COLUMNS, chunkSchema, EMBEDDING_MODEL, REQUIRED_COLUMNS } from "./schema.js";
export {
  type HarnessCounts,
  IncompatibleMemoryError,
  LocalStore,
  type StoreStats,
  storeExists,
  type VectorIndexPlan,
  type VectorIndexRules,
} from "./store.js";
export { type PendingRow, pendingTexts, pendingVectorRows, writeVectors } from "./vectors.js";
