/**
 * traces: where sessions come from. One parser per agent format, the Turn/Block model they all map into,
 * and the TraceSource interface the index command walks. Knows transcript formats and file layouts; knows
 * nothing of chunks, Lance or the Hub.
 */

export { injectedReason } from "./boilerplate.js";
export { isSubagentId, type ParseContext, parseClaudeTranscript } from "./claude.js";
export { parseCodexRollout } from "./codex.js";
export { parseCopilotEvents } from "./copilot.js";
export { sniffFile } from "./detect.js";
export { parseGeminiSession } from "./gemini.js";
export { epochToRfc3339, HermesSource, parseHermesRows } from "./hermes.js";
export {
  HermesFilesSource,
  parseHermesSessionFile,
  SKIP_IN_STATE_DB,
  SKIP_SNAPSHOT_DUPLICATE,
} from "./hermes-legacy.js";
export { compactLossless, parseLossless, ryuFormat, serdeNumber } from "./json-compact.js";
export { SKIP_MALFORMED, SKIP_NOT_OBJECT, SKIP_SURROGATE } from "./jsonl.js";
export { JsonlTreeSource } from "./jsonl-tree.js";
export { ParquetLayoutError, ParquetSource, parseTraceRows, readTraceParquet } from "./parquet.js";
export { SKIP_PERSISTED_MISSING } from "./persisted-output.js";
export { parsePiSession } from "./pi.js";
export { parseQwenSession } from "./qwen.js";
export { RepoFacets, remoteToOwnerName, repoFacetOf } from "./repo.js";
export {
  type AgentDirs,
  agentFolders,
  detectHarness,
  knownRoots,
  knownSources,
  parseHarness,
  sourceForPath,
  sourcesForPath,
  TracePathError,
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
