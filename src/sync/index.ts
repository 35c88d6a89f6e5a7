/**
 * sync: a memory on the Hub written from here — publishing under the append-only compare-and-swap
 * protocol, push planning, forget on the Hub and its remote tombstones, curation decisions, the secret
 * gate a block passes before it leaves, consent to publish and hook pushes' refusals. Built on memory
 * (what a memory is and how it is read); decides nothing about what a command does with it.
 */

export {
  COMPACT_AT_FILES,
  type CompactNote,
  type CompactOptions,
  type CompactResult,
  compactAfterPush,
  compactRemote,
} from "./compact.js";
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
  forgetRemoteRows,
  HistoryNotSquashedError,
  type HubForgetOptions,
  type HubForgetPlan,
  type HubForgetResult,
} from "./forget-publish.js";
export {
  clearHookRefusal,
  type HookRefusal,
  readHookRefusals,
  recordHookRefusal,
  takeUnwarnedRefusals,
} from "./hook-refusals.js";
export {
  createDataset,
  hubLocation,
  openHubForWrite,
  openHubOrOffline,
  requireToken,
  type WritableHub,
} from "./hub-write.js";
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
export { remoteForgottenIds } from "./remote-forgotten.js";
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
