/**
 * The models funes uses, pinned: repo, revision, and exactly the files it needs.
 */

/** A model repo at a pinned revision and the files to fetch from it. */
export interface ModelSpec {
  /** Short name used by `--reranker` and `funes models`. */
  key: string;
  repo: string;
  /** A 40-hex commit (or, where no commit is known, a branch resolved once and recorded in refs/). */
  revision: string;
  files: string[];
  /**
   * Precision: `fp32` loads onnx/model.onnx, `q8` onnx/model_quantized.onnx (transformers.js's names),
   * `q8-derived` the int8 model funes derives from onnx/model.onnx (models/quantize.ts) and keeps beside it.
   */
  dtype: "fp32" | "q8" | "q8-derived";
}

/**
 * The embedder. Vectors in every memory come from this model (the reference's), in fp32 as the reference
 * computes them, so memories written by either tool can be searched together.
 */
export const EMBEDDER_SPEC: ModelSpec = {
  key: "bge-small-en-v1.5",
  repo: "BAAI/bge-small-en-v1.5",
  revision: "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
  files: ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"],
  dtype: "fp32",
};

/**
 * The embedder in int8, opt-in (`FUNES_EMBED_PRECISION=int8`): the same downloaded fp32 file, quantized by
 * funes (models/quantize.ts), ≈ 2x faster to backfill. Its vectors keep ≥ 0.95 of fp32's top 10
 * on the bench, and mix with fp32 ones in one memory.
 */
export const EMBEDDER_INT8_SPEC: ModelSpec = {
  ...EMBEDDER_SPEC,
  key: "bge-small-en-v1.5-int8",
  dtype: "q8-derived",
};

/** The embedder spec for a precision. */
export function embedderSpec(precision: EmbedPrecision): ModelSpec {
  return precision === "int8" ? EMBEDDER_INT8_SPEC : EMBEDDER_SPEC;
}

/** The embedder's precisions: fp32 as the reference computes, or funes's int8. */
export type EmbedPrecision = "fp32" | "int8";

/** Rerankers by key. */
export const RERANKER_SPECS = {
  /**
   * Default: a 6-layer MiniLM cross-encoder in int8. On a 2-core CPU it scores 30 pairs of 256 tokens in
   * about half a second, which fits a 1 s recall; bge-reranker-base takes 3–8 s for the same work.
   */
  "ms-marco-MiniLM-L-6-v2": {
    key: "ms-marco-MiniLM-L-6-v2",
    repo: "Xenova/ms-marco-MiniLM-L-6-v2",
    revision: "a09144355adeed5f58c8ed011d209bf8ee5a1fec",
    files: ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"],
    dtype: "q8",
  },
  /** The reference's reranker (XLM-RoBERTa base), for users who accept multi-second recalls. */
  "bge-reranker-base": {
    key: "bge-reranker-base",
    repo: "BAAI/bge-reranker-base",
    // No commit of this repo could be verified from here: `main` is resolved on first pull and recorded.
    revision: "main",
    files: ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"],
    dtype: "fp32",
  },
} as const satisfies Record<string, ModelSpec>;

/** A reranker key. */
export type RerankerKey = keyof typeof RERANKER_SPECS;

/** The default reranker. */
export const DEFAULT_RERANKER: RerankerKey = "ms-marco-MiniLM-L-6-v2";

/** The spec for a `--reranker` value, or null when unknown. */
export function rerankerSpec(key: string): ModelSpec | null {
  return (RERANKER_SPECS as Record<string, ModelSpec>)[key] ?? null;
}
