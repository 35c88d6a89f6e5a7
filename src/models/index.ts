/**
 * models: the embedder and reranker behind two small interfaces; which models (pinned), where their files
 * live in the Hugging Face cache, loading them from a local folder only, and fetching missing files; the
 * settings the CLI read for them, and a session that loads each once and keeps it warm (or uses the shared
 * model server). Knows nothing of memories, Lance or commands.
 */
export {
  type DownloadProgress,
  downloadModel,
  type ModelFileDownload,
  type ModelSource,
} from "./download.js";
export { cachedModelDir } from "./hf-cache.js";
export { ModelClient, ModelServerError } from "./model-client.js";
export {
  type ModelRef,
  type ServeOptions,
  type ServeOutcome,
  type ServerStatus,
  serveModels,
} from "./model-server.js";
export { type Loaded, ModelSession, type ServerLink } from "./model-session.js";
export {
  locateEmbedder,
  locateReranker,
  type ModelLocation,
  type ModelsConfig,
  UnknownRerankerError,
} from "./models-config.js";
export { type OpenedEmbedder, openEmbedder } from "./open-embedder.js";
export {
  type Embedder,
  embedBatches,
  type LoadOptions,
  loadEmbedder,
  loadReranker,
  type Reranker,
} from "./runtime.js";
export { releaseSocket } from "./socket-claim.js";
export { modelSocketPath, type SocketPlaces } from "./socket-place.js";
export {
  DEFAULT_RERANKER,
  EMBEDDER_INT8_SPEC,
  EMBEDDER_SPEC,
  type EmbedPrecision,
  type ModelSpec,
  RERANKER_SPECS,
  type RerankerKey,
} from "./specs.js";
