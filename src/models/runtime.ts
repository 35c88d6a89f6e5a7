/**
 * Embedder and Reranker implemented with @huggingface/transformers on onnxruntime-node, loading only from
 * a local folder: remote loading is switched off before anything loads, so a missing file is an error,
 * never a download. transformers.js is imported lazily (≈0.2 s) so keyword-only commands never pay for it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ModelSpec } from "./specs.js";

/** Texts to L2-normalised CLS vectors. */
export interface Embedder {
  readonly dim: number;
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Query + passages to relevance in (0, 1) (sigmoid of the cross-encoder's logit). */
export interface Reranker {
  score(query: string, passages: string[]): Promise<number[]>;
  close(): Promise<void>;
}

/** A model folder that cannot be used; the message names the folder and the fix. */
export class ModelLoadError extends Error {}

/** How to run a model. */
export interface LoadOptions {
  /** onnxruntime intra-op threads (2 uses both cores of a small machine; 1 for background work). */
  threads: number;
}

/** Tokens a passage is cut to: the embedder's limit. */
export const EMBED_MAX_TOKENS = 512;
/** Tokens a query+passage pair is cut to for reranking (keeps 30 pairs under a second on 2 cores). */
export const RERANK_MAX_TOKENS = 256;
/**
 * Embedder calls are batched by size, not count: texts are sorted by length and a batch takes texts while
 * (texts × the longest one's length) stays within what 8 full chunks would cost, up to 32 texts. Short
 * texts (most tool calls and replies) then run 16–32 to a call, long ones 8, and padding wastes little.
 */
const EMBED_BATCH_CHARS = 8 * 1200;
const EMBED_BATCH_MAX = 32;
/** Pairs per reranker call: as fast as one big batch, with far less peak memory. */
const RERANK_BATCH = 8;

type Transformers = typeof import("@huggingface/transformers");
let loaded: Promise<Transformers> | null = null;

async function transformers(): Promise<Transformers> {
  loaded ??= import("@huggingface/transformers").then((t) => {
    t.env.allowRemoteModels = false;
    t.env.allowLocalModels = true;
    t.env.useFSCache = false;
    return t;
  });
  return loaded;
}

function sessionOptions(o: LoadOptions) {
  // allow_spinning off: two sessions in one process (embedder + reranker) otherwise slow each other 1.5–1.9x.
  return {
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  };
}

function checkFolder(dir: string, spec: ModelSpec): void {
  const missing = spec.files.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0)
    throw new ModelLoadError(
      `model folder "${dir}" is incomplete (missing ${missing.join(", ")}) — run \`funes models pull\` or point the folder variable at a complete copy of ${spec.repo}`,
    );
}

async function guard<T>(dir: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ModelLoadError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new ModelLoadError(
      `could not load the ${what} from "${dir}": ${msg.split("\n")[0]} — delete the folder and run \`funes models pull\``,
    );
  }
}

/** Loads the embedder in `dir` and checks it makes vectors of `expectDim`. */
export async function loadEmbedder(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  expectDim = 384,
): Promise<Embedder> {
  checkFolder(dir, spec);
  const t = await transformers();
  const [tokenizer, model] = await guard(dir, "embedder", () =>
    Promise.all([
      t.AutoTokenizer.from_pretrained(dir, { local_files_only: true }),
      t.AutoModel.from_pretrained(dir, {
        local_files_only: true,
        dtype: spec.dtype,
        session_options: sessionOptions(opts),
      }),
    ]),
  );
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const enc = tokenizer(texts, { padding: true, truncation: true, max_length: EMBED_MAX_TOKENS });
    const out = await model(enc);
    const hidden = out.last_hidden_state as { dims: number[]; data: Float32Array };
    const [b = 0, s = 0, h = 0] = hidden.dims;
    const vecs: Float32Array[] = [];
    for (let i = 0; i < b; i++) {
      const v = hidden.data.slice(i * s * h, i * s * h + h);
      let n = 0;
      for (const x of v) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let j = 0; j < h; j++) v[j] = (v[j] as number) / n;
      vecs.push(v);
    }
    return vecs;
  };
  const probe = await guard(dir, "embedder", () => run(["dimension probe"]));
  const dim = probe[0]?.length ?? 0;
  if (dim !== expectDim) {
    await model.dispose();
    throw new ModelLoadError(
      `the embedder in "${dir}" makes ${dim}-d vectors; funes memories hold ${expectDim}-d vectors of ${spec.repo} — replace the folder with that model`,
    );
  }
  return {
    dim,
    async embed(texts) {
      const order = texts
        .map((_, i) => i)
        .sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
      const out: Float32Array[] = new Array(texts.length);
      for (let i = 0; i < order.length; ) {
        let end = i + 1;
        while (
          end < order.length &&
          end - i < EMBED_BATCH_MAX &&
          (end - i + 1) * Math.max(1, (texts[order[end] as number] as string).length) <= EMBED_BATCH_CHARS
        )
          end++;
        const idx = order.slice(i, end);
        i = end;
        const vecs = await run(idx.map((k) => texts[k] as string));
        idx.forEach((k, j) => {
          out[k] = vecs[j] as Float32Array;
        });
      }
      return out;
    },
    async close() {
      await model.dispose();
    },
  };
}

/** Loads a cross-encoder reranker from `dir`. */
export async function loadReranker(dir: string, spec: ModelSpec, opts: LoadOptions): Promise<Reranker> {
  checkFolder(dir, spec);
  const t = await transformers();
  const [tokenizer, model] = await guard(dir, "reranker", () =>
    Promise.all([
      t.AutoTokenizer.from_pretrained(dir, { local_files_only: true }),
      t.AutoModelForSequenceClassification.from_pretrained(dir, {
        local_files_only: true,
        dtype: spec.dtype,
        session_options: sessionOptions(opts),
      }),
    ]),
  );
  return {
    async score(query, passages) {
      const scores: number[] = [];
      for (let i = 0; i < passages.length; i += RERANK_BATCH) {
        const batch = passages.slice(i, i + RERANK_BATCH);
        const enc = tokenizer(
          batch.map(() => query),
          { text_pair: batch, padding: true, truncation: true, max_length: RERANK_MAX_TOKENS },
        );
        const { logits } = (await model(enc)) as { logits: { dims: number[]; data: Float32Array } };
        const labels = logits.dims[1] ?? 1;
        for (let j = 0; j < batch.length; j++)
          scores.push(1 / (1 + Math.exp(-(logits.data[j * labels] as number))));
      }
      return scores;
    },
    async close() {
      await model.dispose();
    },
  };
}
