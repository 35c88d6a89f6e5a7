/**
 * traces: where sessions come from. One parser per agent format, the Turn/Block model they all map into,
 * and the TraceSource interface the index command walks. Knows transcript formats and file layouts; knows
 * nothing of chunks, Lance or the Hub.
 */
export { isSubagentId, type ParseContext, parseClaudeTranscript } from "./claude.js";
export { parseCodexRollout } from "./codex.js";
export { epochToRfc3339, HermesSource, parseHermesRows } from "./hermes.js";
export { compactLossless, parseLossless, ryuFormat, serdeNumber } from "./json-compact.js";
export { SKIP_MALFORMED, SKIP_NOT_OBJECT, SKIP_SURROGATE } from "./jsonl.js";
export { ParquetLayoutError, ParquetSource, parseTraceRows, readTraceParquet } from "./parquet.js";
export { parsePiSession } from "./pi.js";
export { RepoFacets, remoteToOwnerName, repoFacetOf } from "./repo.js";
export {
  detectHarness,
  JsonlTreeSource,
  KNOWN_ROOTS,
  knownSources,
  parseHarness,
  sourceForPath,
  UnknownHarnessError,
} from "./sources.js";
export { fallbackWorkdir, fileStem, isBlank, mungeCwd, rustTrim } from "./text.js";
export {
  type Block,
  type BlockType,
  countSkip,
  type Harness,
  mergeSkips,
  type Session,
  type SkipCounts,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
} from "./types.js";
