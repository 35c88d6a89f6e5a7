/**
 * format: how results read for an agent (the reference's agent format for recall and get, status), and text
 * made safe for a terminal or an agent. Pure: results in, strings out; knows the commands' result types and
 * nothing of the MCP SDK, so the CLI can load it without the server.
 */
export { formatGetAgent, formatRangeAgent, formatRecallAgent, rangeTrailer } from "./agent-format.js";
export {
  messageLine,
  oneLine,
  outputGuard,
  safeText,
  shellId,
  shellMemory,
  terminalLine,
  terminalSafeRecall,
  terminalText,
} from "./safe-text.js";
export { formatScanAgent, matchExcerpt, scanSummary, scanTrailer } from "./scan-format.js";
export {
  formatSessionsAgent,
  PROMPT_CHARS,
  promptLine,
  sessionPlace,
  sessionsTrailer,
} from "./sessions-format.js";
export { formatStatus } from "./status-format.js";
