/**
 * traces: where sessions come from. One parser per agent format, the Turn/Block model they all map into,
 * and the TraceSource interface the index command walks. Knows transcript formats and file layouts; knows
 * nothing of chunks, Lance or the Hub.
 */

export { type ParseContext, parseClaudeTranscript } from "./claude.js";
export { parseCodexRollout } from "./codex.js";
export { parseCopilotEvents } from "./copilot.js";
export { sniffFile } from "./detect.js";
export {
  type AgentDirs,
  type AgentEnv,
  agentFolder,
  formatOf,
  movedFolders,
  TRACE_FORMATS,
  type TraceFormat,
} from "./formats.js";
export { parseGeminiSession, streamGeminiSession } from "./gemini.js";
export { parseHermesSessionFile } from "./hermes-legacy.js";
export { SKIP_MALFORMED, SKIP_NOT_OBJECT, SKIP_SURROGATE } from "./jsonl.js";
export { JsonlTreeSource } from "./jsonl-tree.js";
export { readTraceParquet } from "./parquet.js";
export { parsePiSession } from "./pi.js";
export { parseQwenSession } from "./qwen.js";
export { RepoFacets } from "./repo.js";
export {
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
export { rustTrim } from "./text.js";
export {
  type Block,
  type BlockType,
  type Harness,
  mergeSkips,
  type Session,
  type SkipCounts,
  type StreamedSession,
  type StreamedUnit,
  type TraceSource,
  type Turn,
  type Unit,
  type UnitRead,
} from "./types.js";
