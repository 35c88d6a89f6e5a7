/**
 * memory: what a memory is and what state it is in; where a funes home keeps its memory, its incremental
 * state and its writer lock. Composes local (and, later, remote and cache); decides nothing about what a
 * command does with it.
 */

export {
  curationPath,
  type Decision,
  type Decisions,
  decisionLine,
  readDecisions,
  recordDecisions,
} from "./curation.js";
export {
  ForgottenFileError,
  forgetRemoteRows,
  HistoryNotSquashedError,
  type HubForgetOptions,
  type HubForgetPlan,
  type HubForgetResult,
  remoteForgottenIds,
} from "./forget-publish.js";
export {
  type ForgottenEntry,
  forgottenPath,
  readForgotten,
  writeForgotten,
} from "./forgotten.js";
export {
  isUnitCurrent,
  LEVELS,
  type Level,
  type LoadedState,
  loadIndexState,
  saveIndexState,
  type UnitState,
} from "./index-state.js";
export { type LocalMemory, localMemory, type MemoryState, memoryState } from "./local-memory.js";
export { type FunesPaths, funesPaths, remoteFileName } from "./paths.js";
export {
  PublishConflictError,
  type PublishOptions,
  type PublishResult,
  PublishUnreachableError,
  publishRows,
} from "./publish.js";
export { type RemoteReadState, readRemote, viewsRoot } from "./remote-memory.js";
export { type ResolvedSpec, resolveMemorySpec } from "./spec.js";
export { acquireWriterLock, WriterBusyError, type WriterLock } from "./writer-lock.js";
