/**
 * cache: content-addressed copies of remote memories. Files fetched whole into the Hugging Face cache, and
 * per-commit folders of hard links Lance opens read-only. Fetches through remote/; knows nothing of commands.
 */

export { type CachedMemory, listCachedMemories, type PruneResult, pruneCache } from "./inventory.js";
export {
  adoptAsView,
  cachedView,
  IncompleteDownloadError,
  materializeView,
  newestView,
  type SnapshotView,
  type ViewProgress,
} from "./snapshot-view.js";
export { addedFiles, type Stage, stageFrom } from "./staging.js";
