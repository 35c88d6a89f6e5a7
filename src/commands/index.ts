/**
 * commands: what funes does. Each command takes a plain options object (config already read by the CLI or
 * MCP boot), reports progress through callbacks, and returns data; rendering and exit codes belong to
 * cli/ and mcp/.
 */

export type { ForgetPreview, PreviewSession } from "../memory/index.js";
export {
  type BackfillResult,
  type FederatedMemory,
  type HomeContext,
  listValues,
  localMemoryFor,
  openFederated,
  openReadTarget,
  type ReadContext,
  type ReadTarget,
  readWith,
  settledTarget,
} from "../memory/index.js";
export {
  DEFAULT_RERANKER,
  type Loaded,
  type ModelLocation,
  ModelSession,
  type ModelsConfig,
  type ServerLink,
} from "../models/index.js";
export { type HookRefusal, takeUnwarnedRefusals } from "../sync/index.js";
export {
  type AddOptions,
  type AddSummary,
  addAgent,
  type RemovedAgent,
  removeAgent,
  removeAllAgents,
} from "./add-agent.js";
export { type AskOptions, type AskResult, ask, askPrompt, DEFAULT_ASK_TIMEOUT_S } from "./ask.js";
export {
  type BoundaryPushOptions,
  type BoundaryPushResult,
  pushAtBoundary,
  type StillWaiting,
} from "./boundary-push.js";
export { type CompactCommandOptions, type CompactSummary, compactMemory } from "./compact.js";
export { type CurateOptions, type CurateSummary, curate, type ReviewAnswer } from "./curate.js";
export { type DoctorCheck, type DoctorContext, runDoctor } from "./doctor.js";
export {
  BadArgumentError,
  describeFailure,
  type FailureLine,
  FunesError,
  type FunesErrorCode,
  NEXT_STEP,
} from "./errors.js";
export { type ForgetOptions, type ForgetProposal, type ForgetSummary, forgetRows } from "./forget.js";
export { getTurn, holdsSession, resolveTurnIds, sessionIdCore, shortTurnId, type TurnView } from "./get.js";
export { indexSessions, runIsolatedStep } from "./index-sessions.js";
export {
  DEFAULT_VECTOR_BUDGET_MS,
  type IndexEvent,
  type IndexOptions,
  type IndexSummary,
  type IsolatedResult,
  type IsolatedStep,
  type Isolation,
  type VectorSummary,
} from "./index-types.js";
export { type ModelReport, modelsStatus, pullModels } from "./models.js";
export { type PushOptions, type PushSummary, pushMemory } from "./push.js";
export {
  type RecallHit,
  type RecallNeighbor,
  type RecallResult,
  recall,
  recallMemories,
} from "./recall.js";
export { DEFAULT_RERANK_BUDGET_MS, type RecallOptions, recallOptions } from "./recall-options.js";
export {
  MAX_SCAN_CONTEXT,
  MAX_SCAN_MATCHES,
  type ScanMatch,
  type ScanOptions,
  type ScanResult,
  type ScanTurn,
  scanOfMemories,
  scanSession,
} from "./scan.js";
export { type ScrubOptions, type ScrubSummary, scrubMemory } from "./scrub.js";
export {
  checkBounds,
  readSession,
  type SessionTurns,
  seqSpan,
  sessionHolder,
  settledMemories,
  type TurnBounds,
} from "./session-turns.js";
export {
  DEFAULT_SESSIONS_LIMIT,
  listSessions,
  MAX_SESSIONS_LIMIT,
  type SessionEntry,
  type SessionsOptions,
  type SessionsResult,
  sessionsOfMemories,
  sessionsOptions,
} from "./sessions.js";
export { memoryStatus, type StatusReport, type WiredAgent, wiredAgents } from "./status.js";
export {
  RANGE_MAX_CHARS,
  RANGE_TURNS,
  type RangeResult,
  rangeOfMemories,
  readTurnRange,
} from "./turn-range.js";
