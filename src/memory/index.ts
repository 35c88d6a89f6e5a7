/**
 * memory: what a memory is (local, a Hub memory at a commit, a federated set) and what state it is in; how
 * a `--memory` spec opens; reading it (search legs, neighbours, sessions); where a funes home keeps its
 * memory, its incremental state and its writer lock; publishing. Composes local, cache and remote; the one
 * layer that knows a local memory from a remote one. Decides nothing about what a command does with it.
 */

export { writeFileAtomic, writeFileAtomicSync } from "./atomic-file.js";
export {
  type AfterWrite,
  type BackfillOptions,
  type BackfillProgress,
  type BackfillResult,
  backfillOrder,
  backfillVectors,
} from "./backfill.js";
export {
  FunesError,
  type FunesErrorCode,
  hubOfflineError,
  modelRepoError,
  notAuthorizedError,
  readOnlyError,
} from "./errors.js";
export { type CopiesAndMentions, copiesAndMentions, copiesOf } from "./forget-copies.js";
export { finishForget, locallyForgottenIds, markForget, readPendingForget } from "./forget-pending.js";
export {
  compileSelectors,
  type ForgetPreview,
  type ForgetSelectors,
  type PreviewExtras,
  type PreviewSession,
  previewOf,
} from "./forget-select.js";
export {
  type ForgottenEntry,
  ForgottenFileError,
  parseRemoteForgotten,
  readForgotten,
  remoteForgottenPath,
  renderRemoteForgotten,
  writeForgotten,
} from "./forgotten.js";
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
export { type FunesPaths, funesPaths, remoteFileName } from "./paths.js";
export { type MemoryReader, openReader, openReaders, openStore } from "./reader.js";
export { type RemoteReadState, viewsRoot } from "./remote-memory.js";
export { listValues, type ResolvedSpec, resolveMemorySpec } from "./spec.js";
export { reachStep, setStepHook } from "./steps.js";
export { finishForgetIfFree, withWriterLock } from "./writer.js";
export { acquireWriterLock, WriterBusyError, type WriterLock } from "./writer-lock.js";
