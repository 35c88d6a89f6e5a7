/**
 * `funes models [status|pull]`: which models are in use, where their files are, and fetching what is missing.
 */
import {
  type DownloadProgress,
  downloadModel,
  EMBEDDER_SPEC,
  locateEmbedder,
  locateReranker,
  type ModelLocation,
  type ModelSpec,
  type ModelsConfig,
} from "../models/index.js";
import { hubClient, hubFailure, modelHub } from "../remote/index.js";
import { FunesError } from "./errors.js";

/** One model's state. */
export interface ModelReport {
  role: "embedder" | "reranker";
  repo: string;
  /** The pinned revision (a commit, or a branch resolved on first pull). */
  revision: string;
  /** The folder in use, or null when missing. */
  dir: string | null;
  from: "cache" | "folder" | null;
  note: string | null;
  /** The embedder's precision (FUNES_EMBED_PRECISION); null for the reranker. */
  precision: "fp32" | "int8" | null;
}

function report(role: ModelReport["role"], loc: ModelLocation): ModelReport {
  const precision: ModelReport["precision"] =
    role === "reranker" ? null : loc.spec.dtype === "q8-derived" ? "int8" : "fp32";
  const model = { role, repo: loc.spec.repo, precision };
  return loc.kind === "found"
    ? { ...model, revision: loc.revision, dir: loc.dir, from: loc.from, note: null }
    : { ...model, revision: loc.spec.revision, dir: null, from: null, note: loc.reason };
}

/** The embedder and the configured reranker. */
export function modelsStatus(cfg: ModelsConfig): ModelReport[] {
  return [report("embedder", locateEmbedder(cfg)), report("reranker", locateReranker(cfg))];
}

/** Downloads whichever of the two models is missing from the cache (folders given by variables are left alone). */
export async function pullModels(
  cfg: ModelsConfig,
  onProgress?: (spec: ModelSpec, p: DownloadProgress) => void,
): Promise<ModelReport[]> {
  for (const loc of [locateEmbedder(cfg), locateReranker(cfg)]) {
    // A folder variable that names no model is the user's to fix: pulling into the cache would not be used.
    if (loc.kind === "found" || loc.folder === true) continue;
    try {
      await downloadModel(cfg.hubCache, loc.spec, modelHub(hubClient(cfg)), (p) => onProgress?.(loc.spec, p));
    } catch (err) {
      // fetch says only "fetch failed": remote/ names the host and the cause (DNS, refused, TLS,
      // HF_HUB_OFFLINE…), or the Hub's status and words.
      const msg = hubFailure(err, cfg.hubUrl)?.detail ?? (err instanceof Error ? err.message : String(err));
      throw new FunesError(
        "unreachable",
        `could not download ${loc.spec.repo} from ${cfg.hubUrl}: ${msg} — recall stays keyword-only until it is pulled (or set ${loc.spec === EMBEDDER_SPEC ? "FUNES_EMBED_MODEL_DIR" : "FUNES_RERANK_MODEL_DIR"} to a local copy)`,
        err,
      );
    }
  }
  return modelsStatus(cfg);
}
