/**
 * commands: what funes does. Each command takes a plain options object (config already read by the CLI or
 * MCP boot), reports progress through callbacks, and returns data; rendering and exit codes belong to
 * cli/ and mcp/.
 */
export { FunesError, type FunesErrorCode } from "./errors.js";
export { type IndexEvent, type IndexOptions, type IndexSummary, indexSessions } from "./index-sessions.js";
export {
  formatRecallAgent,
  type RecallHit,
  type RecallNeighbor,
  type RecallOptions,
  recallKeyword,
} from "./recall.js";
export { memoryStatus, type StatusReport } from "./status.js";
