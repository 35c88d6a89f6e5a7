/**
 * Where the models are and how to run them, as the CLI (or MCP boot) read it from the environment, and
 * finding a usable model folder: an explicit folder variable wins, else the pinned snapshot in the cache.
 */

import { join } from "node:path";
import {
  cachedCommit,
  cachedModelDir,
  cachedSnapshots,
  isFolder,
  missingFiles,
  repoCacheDir,
} from "./hf-cache.js";
import { type EmbedPrecision, embedderSpec, type ModelSpec, rerankerSpec } from "./specs.js";

/** A reranker key funes does not know (bad input: its message names the ones it does). */
export class UnknownRerankerError extends Error {}

/** Model settings. */
export interface ModelsConfig {
  /** The Hugging Face hub cache (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`). */
  hubCache: string;
  /** `FUNES_EMBED_MODEL_DIR`: a local folder used instead of the cache. */
  embedDir?: string | undefined;
  /** `FUNES_RERANK_MODEL_DIR`. */
  rerankDir?: string | undefined;
  /** `--reranker` / `FUNES_RERANKER`. */
  reranker: string;
  /** `FUNES_EMBED_PRECISION`: fp32 (the default, the reference's) or int8 (opt-in, faster backfill). */
  embedPrecision?: EmbedPrecision | undefined;
  /** onnxruntime threads. */
  threads: number;
  /** `HF_ENDPOINT`. */
  hubUrl: string;
  token?: string | undefined;
  /** `FUNES_MAX_DOWNLOAD_MB` in bytes: how large a Hub memory funes downloads (NaN: the variable is not a number). */
  maxDownloadBytes?: number | undefined;
}

/** A model folder to load, or why there is none. */
export type ModelLocation =
  | { kind: "found"; dir: string; spec: ModelSpec; revision: string; from: "cache" | "folder" }
  /** `folder`: the folder variable names a place without the model, which `funes models pull` cannot fix. */
  | { kind: "missing"; spec: ModelSpec; reason: string; folder?: boolean };

function locate(
  spec: ModelSpec,
  cfg: ModelsConfig,
  dirOverride: string | undefined,
  envName: string,
): ModelLocation {
  if (dirOverride !== undefined) {
    const lacks = isFolder(dirOverride) ? missingFiles(dirOverride, spec) : null;
    if (lacks === null || lacks.length > 0)
      return {
        kind: "missing",
        spec,
        folder: true,
        reason: `${envName}="${dirOverride}" ${lacks === null ? "is not a folder" : `lacks ${lacks.join(", ")}`} — point it at a copy of ${spec.repo} (${spec.files.join(", ")}), or unset it to use the cache`,
      };
    return { kind: "found", dir: dirOverride, spec, revision: `${envName}=${dirOverride}`, from: "folder" };
  }
  const dir = cachedModelDir(cfg.hubCache, spec);
  if (dir !== null)
    return {
      kind: "found",
      dir,
      spec,
      revision: cachedCommit(cfg.hubCache, spec) ?? spec.revision,
      from: "cache",
    };
  return { kind: "missing", spec, reason: missingReason(spec, cfg.hubCache, envName) };
}

/**
 * Why the pinned model is not usable from the cache, as one of three cases: its revision is there but
 * lacks files funes loads (a download made for another library, without `onnx/model.onnx`); only other
 * revisions are there; or it was never downloaded.
 */
function missingReason(spec: ModelSpec, hubCache: string, envName: string): string {
  const pinned = `${spec.repo}@${spec.revision.slice(0, 12)}`;
  const next = `run \`funes models pull\` (or set ${envName})`;
  const commit = cachedCommit(hubCache, spec);
  const snapshot = commit === null ? null : join(repoCacheDir(hubCache, spec.repo), "snapshots", commit);
  if (snapshot !== null && isFolder(snapshot))
    return `${pinned} is in ${hubCache} without ${missingFiles(snapshot, spec).join(", ")} (downloaded for another library?) — ${next} to fetch the missing files`;
  const others = cachedSnapshots(hubCache, spec.repo);
  if (others.length > 0)
    return `${spec.repo} is in ${hubCache} only at another revision (${others.map((c) => c.slice(0, 12)).join(", ")}), not the pinned ${spec.revision.slice(0, 12)} — ${next} to add the pinned one beside it`;
  return `${pinned} is not in ${hubCache} — ${next}`;
}

/** Where the embedder is. */
export function locateEmbedder(cfg: ModelsConfig): ModelLocation {
  return locate(embedderSpec(cfg.embedPrecision ?? "fp32"), cfg, cfg.embedDir, "FUNES_EMBED_MODEL_DIR");
}

/** Where the configured reranker is; an unknown key is an {@link UnknownRerankerError}. */
export function locateReranker(cfg: ModelsConfig): ModelLocation {
  const spec = rerankerSpec(cfg.reranker);
  if (spec === null)
    throw new UnknownRerankerError(
      `unknown reranker "${cfg.reranker}" — use ms-marco-MiniLM-L-6-v2 (the default) or bge-reranker-base`,
    );
  return locate(spec, cfg, cfg.rerankDir, "FUNES_RERANK_MODEL_DIR");
}

/** How a found model is named in summaries: `repo@revision`, with ` int8` for the int8 embedder. */
export function modelLabel(loc: { spec: ModelSpec; revision: string }): string {
  return `${loc.spec.repo}@${loc.revision}${loc.spec.dtype === "q8-derived" ? " int8" : ""}`;
}
