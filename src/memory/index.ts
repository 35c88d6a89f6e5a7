/**
 * memory: what a memory is (local, a Hub memory at a commit, a federated set) and what state it is in; how
 * a `--memory` spec opens; reading it (search legs, neighbours, sessions); where a funes home keeps its
 * memory, its incremental state and its writer lock; publishing. Composes local, cache and remote; the one
 * layer that knows a local memory from a remote one. Decides nothing about what a command does with it.
 */

export {
  type AfterWrite,
  type BackfillOptions,
  type BackfillProgress,
  type BackfillResult,
  backfillOrder,
  backfillVectors,
} from "./backfill.js";
export { curationPath, type Decision, type Decisions, readDecisions, recordDecisions } from "./curation.js";
export {
  decisionComment,
  gateProject,
  type LocalSession,
  localSessions,
  type ProjectGate,
  type PublishScope,
  publishScope,
} from "./curation-gate.js";
export {
  FunesError,
  type FunesErrorCode,
  hubOfflineError,
  modelRepoError,
  notAuthorizedError,
  readOnlyError,
} from "./errors.js";
export { copiesOf } from "./forget-copies.js";
export { finishForget, markForget, readPendingForget } from "./forget-pending.js";
export {
  forgetRemoteRows,
  HistoryNotSquashedError,
  type HubForgetOptions,
  type HubForgetPlan,
  type HubForgetResult,
} from "./forget-publish.js";
export {
  compileSelectors,
  type ForgetPreview,
  type ForgetSelectors,
  type PreviewSession,
  previewOf,
} from "./forget-select.js";
export { type ForgottenEntry, ForgottenFileError, readForgotten, writeForgotten } from "./forgotten.js";
export {
  clearHookRefusal,
  type HookRefusal,
  readHookRefusals,
  recordHookRefusal,
  takeUnwarnedRefusals,
} from "./hook-refusals.js";
export { createDataset, hubLocation, openHubForWrite, requireToken, type WritableHub } from "./hub-write.js";
export { type Resolved, resolveSources, type SourceOptions } from "./index-sources.js";
export {
  isUnitCurrent,
  type Level,
  type LoadedState,
  loadIndexState,
  saveIndexState,
  type UnitState,
} from "./index-state.js";
export { type HubMemory, type LocalMemory, noIndexMessage, type SingleMemory } from "./memory.js";
export {
  type FederatedMemory,
  type HomeContext,
  localMemoryFor,
  openFederated,
  openReadTarget,
  type ReadContext,
  type ReadTarget,
  readFederatedWith,
  readWith,
  refusedRemote,
  settledTarget,
} from "./open-memory.js";
export { type FunesPaths, funesPaths } from "./paths.js";
export { type PublishOptions, type PublishResult, publishRows } from "./publish.js";
export {
  type PublishConsent,
  readPublishConsent,
  recordPublishConsent,
  withdrawPublishConsent,
} from "./publish-consent.js";
export { PublishConflictError, PublishUnreachableError } from "./publish-errors.js";
export { waitForPushCommits } from "./publish-turn.js";
export {
  type ComparedWith,
  type PushBase,
  type PushRemote,
  probePushRemote,
  publishPush,
  pushBase,
  type RowsGoing,
  rowsGoing,
  type TookBack,
  withPinnedLocal,
} from "./push-plan.js";
export { readReceipt, writeReceipt } from "./push-receipt.js";
export { type MemoryReader, openReader, openReaders, openStore } from "./reader.js";
export { remoteForgottenIds } from "./remote-forgotten.js";
export { type RemoteReadState, viewsRoot } from "./remote-memory.js";
export {
  type BlockChunk,
  type BlockKey,
  type DirtyBlock,
  dirtyBlocks,
  type FieldFinding,
  firstRule,
  type HeldBack,
  holdBack,
  isPlainValue,
} from "./secret-blocks.js";
export { listValues, type ResolvedSpec, resolveMemorySpec } from "./spec.js";
export { reachStep, setStepHook } from "./steps.js";
export { finishForgetIfFree, withWriterLock } from "./writer.js";
export { acquireWriterLock, WriterBusyError, type WriterLock } from "./writer-lock.js";
