/**
 * Embedder and Reranker on onnxruntime-node and @huggingface/tokenizers, loading only from a local folder
 * (nothing here can download: a missing file is an error). Their outputs equal what funes computed with
 * transformers.js 4.3 before (bge CLS pooling + L2 norm; the cross-encoder's sigmoid of logit 0; its
 * padding and truncation, see tokenize.ts), which a parity test checks against transformers.js itself.
 * onnxruntime is imported lazily so keyword-only commands never pay for it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { type DerivedModel, forgetInt8Model, int8Model } from "./derived-model.js";
import type { ModelSpec } from "./specs.js";
import { type BatchTokenizer, type Encoded, loadBatchTokenizer, type TokenBatch } from "./tokenize.js";

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
  /**
   * Let onnxruntime's worker threads spin between a call's operators instead of sleeping: ≈ 11% faster for
   * a batch job whose one session runs alone (int8 backfill, bench), but two sessions in one process
   * (recall's embedder and reranker) then slow each other 1.5–1.9x, so it is for batch jobs only.
   */
  spin?: boolean;
  /**
   * Calls of many shapes (a backfill's batches, from 64 short texts to one at 512 tokens): onnxruntime's
   * memory pattern, a plan and a block kept per input shape, is turned off. The bge-small fp32 session
   * over a backfill's batch shapes then peaks ≈ 60 MiB lower (309–336 against 369–394 MiB, 3 alternating
   * runs each) for the same CPU time (13.6 against 13.9 s, medians); a recall's one-row queries, which
   * repeat few shapes, keep it (without it 7% more CPU a query, inside the noise).
   */
  varyingShapes?: boolean;
}

/** Tokens a passage is cut to: the embedder's limit. */
export const EMBED_MAX_TOKENS = 512;
/** Tokens a query+passage pair is cut to for reranking (keeps 30 pairs under a second on 2 cores). */
export const RERANK_MAX_TOKENS = 256;
/**
 * Embedder calls are batched by tokens, not texts: every text is tokenized first, then texts are sorted by
 * token count and a batch takes texts while (texts × the longest one's tokens) stays within
 * EMBED_BATCH_TOKENS, up to EMBED_BATCH_MAX texts. Padding then costs a few percent (batches by character
 * count computed ≈ 1.3x the real tokens on real transcripts, whose characters per token vary 3x between
 * prose and code), a text at the 512-token limit runs alone or with one other, short ones many to a call.
 */
const EMBED_BATCH_TOKENS = 1024;
const EMBED_BATCH_MAX = 64;
/** The embedder's batches for texts of these token counts: indices, fewest tokens first (the rule above). */
export function embedBatches(tokenCounts: number[]): number[][] {
  const order = tokenCounts
    .map((_, i) => i)
    .sort((a, b) => (tokenCounts[a] as number) - (tokenCounts[b] as number));
  const batches: number[][] = [];
  for (let i = 0; i < order.length; ) {
    let end = i + 1;
    while (
      end < order.length &&
      end - i < EMBED_BATCH_MAX &&
      (end - i + 1) * (tokenCounts[order[end] as number] as number) <= EMBED_BATCH_TOKENS
    )
      end++;
    batches.push(order.slice(i, end));
    i = end;
  }
  return batches;
}

type Ort = typeof import("onnxruntime-node");
let ortLoaded: Promise<Ort> | null = null;

async function ort(): Promise<Ort> {
  // Its telemetry is switched off by `ORT_DISABLE_TELEMETRY`, which the process's entry point sets before
  // this loads (cli/native-env.ts).
  ortLoaded ??= import("onnxruntime-node").then((o) => {
    // Fatal only: its own log lines (`[E:onnxruntime:…]`, colour codes included) would reach stderr raw
    // beside funes's one line; every failure still comes back as an exception that funes reports itself.
    o.env.logLevel = "fatal";
    return o;
  });
  return ortLoaded;
}

/** The ONNX file a spec's dtype names, as transformers.js picks it (`q8` → the `_quantized` suffix). */
function onnxFile(dir: string, spec: Pick<ModelSpec, "dtype">): string {
  return join(dir, spec.dtype === "q8" ? "onnx/model_quantized.onnx" : "onnx/model.onnx");
}

function sessionOptions(o: LoadOptions) {
  // allow_spinning off unless asked: two sessions in one process (embedder + reranker) otherwise slow
  // each other 1.5–1.9x.
  return {
    executionProviders: ["cpu"],
    logSeverityLevel: 4 as const,
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    extra: { session: { intra_op: { allow_spinning: o.spin === true ? "1" : "0" } } },
    ...(o.varyingShapes === true ? { enableMemPattern: false } : {}),
  };
}

/** A tokenizer and an onnxruntime session over one model folder. */
interface Loaded {
  tokenizer: BatchTokenizer;
  session: InferenceSession;
  /** Runs the model on a batch and returns the named output. */
  run(batch: TokenBatch, output: string): Promise<{ dims: readonly number[]; data: Float32Array }>;
}

/** Loads the folder's tokenizer and `file` (default: the spec's file; bytes for a model held in memory). */
async function loadModel(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  file: string | Uint8Array = onnxFile(dir, spec),
): Promise<Loaded> {
  const o = await ort();
  const [tok, made] = await Promise.allSettled([
    loadBatchTokenizer(dir),
    typeof file === "string"
      ? o.InferenceSession.create(file, sessionOptions(opts))
      : o.InferenceSession.create(file, sessionOptions(opts)),
  ]);
  if (made.status === "rejected" || tok.status === "rejected") {
    if (made.status === "fulfilled") await made.value.release();
    throw made.status === "rejected" ? made.reason : (tok as PromiseRejectedResult).reason;
  }
  const tokenizer = tok.value;
  const session = made.value;
  const feedNames = new Set(["input_ids", "attention_mask", "token_type_ids"]);
  const unknown = session.inputNames.filter((n) => !feedNames.has(n));
  if (unknown.length > 0) {
    await session.release();
    throw new Error(`the model takes inputs funes does not give (${unknown.join(", ")})`);
  }
  return {
    tokenizer,
    session,
    async run(batch, output) {
      const dims = [batch.rows, batch.length];
      const feeds: Record<string, Tensor> = {};
      for (const name of session.inputNames) {
        // A model that takes token type ids the tokenizer does not give gets zeros (transformers.js's rule).
        const data =
          name === "input_ids"
            ? batch.inputIds
            : name === "attention_mask"
              ? batch.attentionMask
              : (batch.tokenTypeIds ?? new BigInt64Array(batch.rows * batch.length));
        feeds[name] = new o.Tensor("int64", data, dims);
      }
      const out = (await session.run(feeds))[output];
      if (out === undefined) throw new Error(`the model has no "${output}" output`);
      return { dims: out.dims, data: out.data as Float32Array };
    },
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

/** The next step for an int8 model funes derived that cannot be used: embed in fp32. */
const UNSET_INT8 = "unset FUNES_EMBED_PRECISION to embed in fp32";

/** Loads the embedder in `dir` and checks it makes vectors of `expectDim`. */
export async function loadEmbedder(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  expectDim = 384,
): Promise<Embedder> {
  checkFolder(dir, spec);
  return spec.dtype === "q8-derived"
    ? loadInt8Embedder(dir, spec, opts, expectDim)
    : openEmbedderFile(dir, spec, opts, expectDim);
}

/** The embedder in `file` (default: the spec's), checked to make vectors of `expectDim`. */
async function openEmbedderFile(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  expectDim: number,
  file?: string | Uint8Array,
): Promise<Embedder> {
  const int8 = spec.dtype === "q8-derived";
  // A derived model's failures are loadInt8Embedder's to word: re-pulling the files would not help.
  const guarded = <T>(fn: () => Promise<T>): Promise<T> => (int8 ? fn() : guard(dir, "embedder", fn));
  const model = await guarded(() => loadModel(dir, spec, opts, file));
  // One padded batch to vectors: CLS pooling (position 0 of each row), L2-normalised.
  const run = async (batch: TokenBatch): Promise<Float32Array[]> => {
    const hidden = await model.run(batch, "last_hidden_state");
    const [b = 0, s = 0, h = 0] = hidden.dims;
    const vecs: Float32Array[] = [];
    for (let i = 0; i < b; i++) {
      const v = hidden.data.slice(i * s * h, i * s * h + h);
      let n = 0;
      for (const x of v) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let j = 0; j < h; j++) v[j] = (v[j] as number) / n;
      // A damaged model file can compute NaN or infinity: refused here, before any vector is kept.
      if (!v.every(Number.isFinite))
        throw new ModelLoadError(
          `the ${int8 ? "int8 " : ""}embedder in "${dir}" made vectors that are not finite (NaN or infinity) — ${int8 ? UNSET_INT8 : "delete the folder and run `funes models pull`"}`,
        );
      vecs.push(v);
    }
    return vecs;
  };
  const probe = await guarded(() =>
    run(model.tokenizer.encode(["dimension probe"], { maxLength: EMBED_MAX_TOKENS })),
  ).catch(async (err: unknown) => {
    await model.session.release();
    throw err;
  });
  const dim = probe[0]?.length ?? 0;
  if (dim !== expectDim) {
    await model.session.release();
    throw new ModelLoadError(
      `the embedder in "${dir}" makes ${dim}-d vectors; funes memories hold ${expectDim}-d vectors of ${spec.repo} — replace the folder with that model`,
    );
  }
  return {
    dim,
    async embed(texts) {
      // A text repeated in one call (the same tool output or boilerplate in many sessions) runs once.
      const slotOf = new Map<string, number>();
      const unique: string[] = [];
      const slots = texts.map((t) => {
        let k = slotOf.get(t);
        if (k === undefined) {
          k = unique.length;
          slotOf.set(t, k);
          unique.push(t);
        }
        return k;
      });
      const enc = model.tokenizer.tokenize(unique, { maxLength: EMBED_MAX_TOKENS });
      const vecs: Float32Array[] = new Array(unique.length);
      for (const idx of embedBatches(enc.map((e) => e.ids.length))) {
        const got = await run(model.tokenizer.pad(idx.map((k) => enc[k] as Encoded)));
        idx.forEach((k, j) => {
          vecs[k] = got[j] as Float32Array;
        });
      }
      // Each caller's row gets its own array, repeats included.
      const given = new Set<number>();
      return slots.map((k) => {
        const v = vecs[k] as Float32Array;
        if (given.has(k)) return v.slice();
        given.add(k);
        return v;
      });
    },
    async close() {
      await model.session.release();
    },
  };
}

/**
 * The int8 embedder: the derived file when one is kept (it passed its check when it was made), else the
 * model rewritten now, checked against fp32, and only then kept. Any failure is one load error saying to
 * embed in fp32, and a kept file that fails is removed, so the next load derives it again.
 */
async function loadInt8Embedder(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  expectDim: number,
): Promise<Embedder> {
  const derived = deriveInt8(dir);
  let embedder: Embedder | null = null;
  try {
    embedder = await openEmbedderFile(
      dir,
      spec,
      opts,
      expectDim,
      derived.kind === "kept" ? derived.file : derived.bytes,
    );
    if (derived.kind === "fresh") {
      await checkAgainstFp32(dir, spec, opts, embedder);
      derived.keep();
    }
    return embedder;
  } catch (err) {
    await embedder?.close().catch(() => {});
    if (derived.kind === "kept") forgetInt8Model(derived.file);
    if (err instanceof ModelLoadError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new ModelLoadError(
      `the int8 embedder derived from "${dir}" does not run: ${msg.split("\n")[0]} — ${UNSET_INT8}`,
    );
  }
}

/** The folder's int8 model, or a load error saying why funes cannot derive one and what to do instead. */
function deriveInt8(dir: string): DerivedModel {
  try {
    return int8Model(dir);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new ModelLoadError(
      `could not derive an int8 embedder from "${dir}": ${msg.split("\n")[0]} — ${UNSET_INT8}`,
    );
  }
}

/** Texts an int8 model just derived must embed as fp32 does: prose, code, a log line, one word. */
const INT8_PROBES = [
  "why does the full text index build hang on a two core machine",
  "export function add(a: number, b: number): number { return a + b; }",
  "Error: ENOENT: no such file or directory, open '/home/user/.funes/state.json'",
  "deadlock",
];
/** The least cosine an int8 vector may have with its fp32 twin on those probes. */
const INT8_MIN_COSINE = 0.98;

/**
 * A freshly derived int8 model is compared with the fp32 model it came from before it is used: a model of
 * a shape the rewrite does not expect fails here, its file is removed, and the load fails saying so.
 */
async function checkAgainstFp32(
  dir: string,
  spec: ModelSpec,
  opts: LoadOptions,
  int8: Embedder,
): Promise<void> {
  const fp32 = await openEmbedderFile(dir, { ...spec, dtype: "fp32" }, opts, int8.dim);
  try {
    const [a, b] = [await int8.embed(INT8_PROBES), await fp32.embed(INT8_PROBES)];
    const worst = Math.min(
      ...a.map((v, i) => v.reduce((s, x, j) => s + x * ((b[i] as Float32Array)[j] as number), 0)),
    );
    if (!(worst >= INT8_MIN_COSINE)) {
      throw new ModelLoadError(
        `the int8 embedder derived from "${dir}" is too far from its fp32 model (cosine ${worst.toFixed(3)} < ${INT8_MIN_COSINE}) — ${UNSET_INT8}`,
      );
    }
  } finally {
    await fp32.close();
  }
}

/** Loads a cross-encoder reranker from `dir`. */
export async function loadReranker(dir: string, spec: ModelSpec, opts: LoadOptions): Promise<Reranker> {
  checkFolder(dir, spec);
  const model = await guard(dir, "reranker", () => loadModel(dir, spec, opts));
  return {
    async score(query, passages) {
      // Batched by tokens like the embedder: pairs of like length together, so a short passage is not
      // padded to the longest one beside it.
      const enc = model.tokenizer.tokenize(
        passages.map(() => query),
        { pairs: passages, maxLength: RERANK_MAX_TOKENS },
      );
      const scores: number[] = new Array(passages.length);
      for (const idx of embedBatches(enc.map((e) => e.ids.length))) {
        const logits = await model.run(model.tokenizer.pad(idx.map((k) => enc[k] as Encoded)), "logits");
        const labels = logits.dims[1] ?? 1;
        idx.forEach((k, j) => {
          scores[k] = 1 / (1 + Math.exp(-(logits.data[j * labels] as number)));
        });
      }
      return scores;
    },
    async close() {
      await model.session.release();
    },
  };
}
