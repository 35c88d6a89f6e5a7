/**
 * cache: content-addressed copies of remote memories. Files fetched whole into the Hugging Face cache, and
 * per-commit folders of hard links Lance opens read-only. Fetches through remote/; knows nothing of commands.
 */

export { DownloadCapError, IntegrityError } from "./blob-store.js";
export { HubTraceSource, type HubTracesOptions } from "./hub-traces.js";
export {
  type CachedMemory,
  listCachedMemories,
  type PruneResult,
  pruneCache,
  type VerifyFailure,
  type VerifyResult,
  verifyCache,
} from "./inventory.js";
export {
  adoptAsView,
  cachedView,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  materializeView,
  newestView,
  type SnapshotView,
  UnsafeMemoryError,
  type ViewProgress,
} from "./snapshot-view.js";
export { addedFiles, removeStaleStages, type Stage, stageEtags, stageFrom } from "./staging.js";
