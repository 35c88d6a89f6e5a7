/**
 * Generated model folders (config.json, tokenizer files, onnx/model*.onnx) in the layout transformers.js
 * loads. Two families:
 * - tiny bag-of-words models for tests: the embedder's every position (CLS included) carries the masked mean
 *   of its token embeddings, so vectors depend on the whole text and texts sharing words are close; the
 *   reranker's logit is the dot product of the query's and the passage's mean embeddings, so a passage that
 *   shares the query's words scores higher. Both go through the exact production loading path.
 * - BERT-shaped models with random weights and the real models' shapes, for honest speed figures.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GraphBuilder, randomTensor, seededRandom } from "./onnx-graph.js";
import { SPECIALS, tokenizerFiles } from "./tokenizer.js";

/** Shape of a BERT encoder. */
export interface BertShape {
  layers: number;
  hidden: number;
  heads: number;
  ffn: number;
  vocab: number;
  maxPositions: number;
  typeVocab: number;
}

/** bge-small-en-v1.5. */
export const BGE_SMALL: BertShape = {
  layers: 12,
  hidden: 384,
  heads: 12,
  ffn: 1536,
  vocab: 30522,
  maxPositions: 512,
  typeVocab: 2,
};
/** cross-encoder/ms-marco-MiniLM-L-6-v2. */
export const MINILM_L6: BertShape = {
  layers: 6,
  hidden: 384,
  heads: 12,
  ffn: 1536,
  vocab: 30522,
  maxPositions: 512,
  typeVocab: 2,
};
/** BAAI/bge-reranker-base (XLM-RoBERTa base). */
export const BGE_RERANKER_BASE: BertShape = {
  layers: 12,
  hidden: 768,
  heads: 12,
  ffn: 3072,
  vocab: 250002,
  maxPositions: 514,
  // XLM-R has one token type; ours is 2 so the generated BERT-style pair tokenizer's type ids fit (768 floats).
  typeVocab: 2,
};

/** Writes a model folder: config, tokenizer and ONNX files (name → bytes) under onnx/. */
function writeFolder(
  dir: string,
  config: object,
  vocab: string[],
  onnxFiles: Record<string, Uint8Array>,
): void {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  const tok = tokenizerFiles(vocab);
  writeFileSync(join(dir, "config.json"), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, "tokenizer.json"), tok.tokenizer);
  writeFileSync(join(dir, "tokenizer_config.json"), tok.config);
  for (const [name, bytes] of Object.entries(onnxFiles)) writeFileSync(join(dir, "onnx", name), bytes);
}

/** Function words the tiny models ignore, as a real model mostly does. */
const STOP_WORDS = new Set(
  "a an and are as at be but by do does did for from how i if in is it its of on or our so that the their this to was we were what when where which who why will with you your".split(
    " ",
  ),
);

/** Tokens that carry meaning for the tiny models: words, not special tokens, characters or stop words. */
export function contentTokens(vocab: string[]): boolean[] {
  return vocab.map((t, i) => i >= SPECIALS.length && t.replace(/^##/, "").length > 1 && !STOP_WORDS.has(t));
}

/** Word embeddings with zero rows for special tokens and stop words (they would otherwise dominate every mean). */
function wordEmbeddings(vocab: string[], dim: number, seed: number): Float32Array {
  const w = randomTensor(vocab.length * dim, seededRandom(seed), 1 / Math.sqrt(dim));
  vocab.forEach((t, i) => {
    if (i < SPECIALS.length || STOP_WORDS.has(t)) w.fill(0, i * dim, (i + 1) * dim);
  });
  return w;
}

/** Masked mean of token embeddings over the sequence: [B, D] (or [B, 1, D] with keepdims). */
function maskedMean(g: GraphBuilder, emb: string, maskF: string, keep: number): string {
  const m3 = g.op("Unsqueeze", [maskF, g.ints([2])]);
  const sum = g.op("ReduceSum", [g.op("Mul", [emb, m3]), g.ints([1])], { keepdims: keep });
  const cnt = g.op("ReduceSum", [m3, g.ints([1])], { keepdims: keep });
  return g.op("Div", [sum, g.op("Add", [cnt, g.float(1e-6)])]);
}

/** The tiny test embedder: `dim`-wide output (384 like bge-small), every position = masked mean of word embeddings. */
export function writeTinyEmbedder(dir: string, vocab: string[], dim = 384): void {
  const g = new GraphBuilder();
  const ids = g.input("input_ids", "int64", ["batch", "seq"]);
  const mask = g.input("attention_mask", "int64", ["batch", "seq"]);
  const tt = g.input("token_type_ids", "int64", ["batch", "seq"]);
  const emb = g.op("Gather", [g.init([vocab.length, dim], wordEmbeddings(vocab, dim, 7)), ids]);
  const maskF = g.op("Cast", [mask], { to: 1 });
  // token_type_ids is read (times zero) so the graph takes the three inputs a BERT export takes.
  const zero = g.op("Mul", [g.op("Cast", [tt], { to: 1 }), g.float(0)]);
  const mean = maskedMean(g, emb, g.op("Add", [maskF, zero]), 1);
  g.op("Expand", [mean, g.op("Shape", [emb])], {}, 1, "last_hidden_state");
  g.output("last_hidden_state", "float", ["batch", "seq", dim]);
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: dim,
    num_attention_heads: 1,
    num_hidden_layers: 1,
  };
  writeFolder(dir, config, vocab, { "model.onnx": g.encode() });
}

/**
 * The tiny test reranker: for each query word, its best match among the passage's words (dot product of
 * unit word vectors, 1 for the same word, near 0 otherwise); the logit grows with the share of query words
 * the passage contains, whatever the passage's length (a MaxSim scorer).
 */
export function writeTinyReranker(dir: string, vocab: string[]): void {
  const dim = 64;
  const g = new GraphBuilder();
  const ids = g.input("input_ids", "int64", ["batch", "seq"]);
  const mask = g.input("attention_mask", "int64", ["batch", "seq"]);
  const tt = g.input("token_type_ids", "int64", ["batch", "seq"]);
  const w = wordEmbeddings(vocab, dim, 11);
  for (let r = SPECIALS.length; r < vocab.length; r++) {
    let n = 0;
    for (let c = 0; c < dim; c++) n += (w[r * dim + c] as number) ** 2;
    if (n > 0) for (let c = 0; c < dim; c++) w[r * dim + c] = (w[r * dim + c] as number) / Math.sqrt(n);
  }
  const emb = g.op("Gather", [g.init([vocab.length, dim], w), ids]);
  // Words only: real tokens (not padding) that carry meaning (not special tokens, letters or stop words).
  const content = Float32Array.from(contentTokens(vocab), (c) => (c ? 1 : 0));
  const word = g.op("Mul", [
    g.op("Cast", [mask], { to: 1 }),
    g.op("Gather", [g.init([vocab.length], content), ids]),
  ]);
  const ttF = g.op("Cast", [tt], { to: 1 });
  const inQuery = g.op("Mul", [word, g.op("Sub", [g.float(1), ttF])]);
  const inPassage = g.op("Mul", [word, ttF]);
  const sim = g.op("MatMul", [emb, g.op("Transpose", [emb], { perm: [0, 2, 1] })]);
  const colOk = g.op("Unsqueeze", [inPassage, g.ints([1])]);
  const masked = g.op("Sub", [g.op("Mul", [sim, colOk]), g.op("Sub", [g.float(1), colOk])]);
  // Unrelated random words still have small dot products; only near-identical words count.
  const best = g.op("Mul", [
    g.op("Relu", [g.op("Sub", [g.op("ReduceMax", [masked], { axes: [2], keepdims: 0 }), g.float(0.5)])]),
    g.float(2),
  ]);
  const sum = g.op("ReduceSum", [g.op("Mul", [best, inQuery]), g.ints([1])], { keepdims: 1 });
  const share = g.op("Div", [
    sum,
    g.op("Add", [g.op("ReduceSum", [inQuery, g.ints([1])], { keepdims: 1 }), g.float(1e-6)]),
  ]);
  g.op("Sub", [g.op("Mul", [share, g.float(10)]), g.float(5)], {}, 1, "logits");
  g.output("logits", "float", ["batch", 1]);
  const config = {
    model_type: "bert",
    architectures: ["BertForSequenceClassification"],
    id2label: { "0": "LABEL_0" },
    label2id: { LABEL_0: 0 },
    hidden_size: dim,
  };
  writeFolder(dir, config, vocab, { "model.onnx": g.encode() });
}

interface Weights {
  rand: () => number;
  quantize: boolean;
  plan: Int8Plan;
  /** Linears whose activations are quantized in two passes (int8 only). */
  twoPass: ReadonlySet<LinearRole>;
}

/** Where a linear sits in the encoder: what a quantization plan chooses by. */
export type LinearRole = "attention" | "attention-out" | "ffn-up" | "ffn-down" | "head";

/**
 * How the int8 file is quantized. Every linear's weights are int8 (one scale per matrix) and its activations
 * are quantized on the fly to uint8 (onnxruntime's dynamic quantization); the `twoPass` roles quantize their
 * activations twice, the second time the rounding error of the first, and multiply both by the int8 weights:
 * ≈ 16-bit activations for two integer products instead of one.
 */
export interface Int8Plan {
  twoPass: LinearRole[];
  /**
   * `blocks`: onnxruntime's MatMulNBits at 8 bits instead: weights in blocks of `block` values along a
   * column, each with its own scale, and the activations quantized to int8 inside the kernel, again one
   * scale per block of each row (accuracy level 4), so one outlier costs only its own block precision.
   */
  scheme?: "dynamic" | "blocks";
  block?: number;
}

/**
 * x·W as onnxruntime's dynamic quantizer emits it (uint8 activations × int8 weights, rescaled to float), and
 * a function giving the activations' rounding error, for a second pass.
 */
function quantizedProduct(
  g: GraphBuilder,
  x: string,
  weights: string,
  scale: number,
): [string, () => string] {
  const [xq, xs, xz] = g.opN("DynamicQuantizeLinear", [x], 3) as [string, string, string];
  const prod = g.op("MatMulInteger", [xq, weights, xz, g.init([], Int8Array.of(0))]);
  const y = g.op("Mul", [g.op("Cast", [prod], { to: 1 }), g.op("Mul", [xs, g.float(scale)])]);
  return [y, () => g.op("Sub", [x, g.op("DequantizeLinear", [xq, xs, xz])])];
}

/**
 * Per-block int8 weights for onnxruntime's MatMulNBits: column by column, `block` values along k share one
 * scale (max |w| / 127), stored as unsigned bytes around the default zero point 128; returns the packed
 * [n, blocks, block] bytes and the [n × blocks] scales.
 */
export function packBlocks(
  weights: Float32Array,
  k: number,
  n: number,
  block: number,
): { packed: Uint8Array; scales: Float32Array } {
  const blocks = Math.ceil(k / block);
  const packed = new Uint8Array(n * blocks * block).fill(128);
  const scales = new Float32Array(n * blocks);
  for (let c = 0; c < n; c++)
    for (let b = 0; b < blocks; b++) {
      const end = Math.min(k, (b + 1) * block);
      let max = 0;
      for (let r = b * block; r < end; r++) max = Math.max(max, Math.abs(weights[r * n + c] as number));
      const scale = max / 127 || 1;
      scales[c * blocks + b] = scale;
      const at = (c * blocks + b) * block - b * block;
      for (let r = b * block; r < end; r++)
        packed[at + r] = Math.round((weights[r * n + c] as number) / scale) + 128;
    }
  return { packed, scales };
}

function blockProduct(
  g: GraphBuilder,
  x: string,
  weights: Float32Array,
  k: number,
  n: number,
  block: number,
): string {
  const { packed, scales } = packBlocks(weights, k, n, block);
  const blocks = Math.ceil(k / block);
  return g.op(
    "MatMulNBits",
    [x, g.init([n, blocks, block], packed), g.init([n * blocks], scales)],
    { K: k, N: n, bits: 8, block_size: block, accuracy_level: 4 },
    1,
    undefined,
    "com.microsoft",
  );
}

/** MatMul by a random [k, n] weight, quantized as `w` says when writing the int8 file. */
function linear(g: GraphBuilder, x: string, k: number, n: number, w: Weights, role: LinearRole): string {
  const weights = randomTensor(k * n, w.rand, 0.02);
  const bias = g.init([n], randomTensor(n, w.rand, 0.02));
  if (!w.quantize) return g.op("Add", [g.op("MatMul", [x, g.init([k, n], weights)]), bias]);
  if (w.plan.scheme === "blocks")
    return g.op("Add", [blockProduct(g, x, weights, k, n, w.plan.block ?? 32), bias]);
  return g.op("Add", [int8Product(g, x, weights, [k, n], w.twoPass.has(role)), bias]);
}

/** x·W in int8 as onnxruntime's dynamic quantizer emits it, in two passes when `twoPass`. */
function int8Product(
  g: GraphBuilder,
  x: string,
  weights: Float32Array,
  dims: [number, number],
  twoPass: boolean,
): string {
  let max = 0;
  for (const v of weights) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const q = new Int8Array(weights.length);
  for (let i = 0; i < weights.length; i++) q[i] = Math.round((weights[i] as number) / scale);
  const wq = g.init(dims, q);
  const [first, error] = quantizedProduct(g, x, wq, scale);
  return twoPass ? g.op("Add", [first, quantizedProduct(g, error(), wq, scale)[0]]) : first;
}

function layerNorm(g: GraphBuilder, x: string, h: number): string {
  return g.op(
    "LayerNormalization",
    [x, g.init([h], new Float32Array(h).fill(1)), g.init([h], new Float32Array(h))],
    {
      axis: -1,
      epsilon: { f: 1e-12 },
    },
  );
}

/** A BERT encoder graph; returns the last hidden state's name. */
function bertEncoder(g: GraphBuilder, s: BertShape, w: Weights): string {
  const ids = g.input("input_ids", "int64", ["batch", "seq"]);
  const mask = g.input("attention_mask", "int64", ["batch", "seq"]);
  const tt = g.input("token_type_ids", "int64", ["batch", "seq"]);
  const h = s.hidden;
  const dh = h / s.heads;
  const seqLen = g.op("Gather", [g.op("Shape", [ids]), g.ints([1], [])], { axis: 0 });
  const pos = g.op("Range", [g.ints([0], []), seqLen, g.ints([1], [])]);
  let x = g.op("Add", [
    g.op("Add", [
      g.op("Gather", [g.init([s.vocab, h], randomTensor(s.vocab * h, w.rand, 0.02)), ids]),
      g.op("Gather", [g.init([s.maxPositions, h], randomTensor(s.maxPositions * h, w.rand, 0.02)), pos]),
    ]),
    g.op("Gather", [g.init([s.typeVocab, h], randomTensor(s.typeVocab * h, w.rand, 0.02)), tt]),
  ]);
  x = layerNorm(g, x, h);
  const maskF = g.op("Cast", [g.op("Unsqueeze", [mask, g.ints([1, 2])])], { to: 1 });
  const bias = g.op("Mul", [g.op("Sub", [g.float(1), maskF]), g.float(-10000)]);
  const split = g.ints([0, 0, s.heads, dh]);
  for (let l = 0; l < s.layers; l++) {
    const heads = (t: string, perm: number[]) => g.op("Transpose", [g.op("Reshape", [t, split])], { perm });
    const q = heads(linear(g, x, h, h, w, "attention"), [0, 2, 1, 3]);
    const k = heads(linear(g, x, h, h, w, "attention"), [0, 2, 3, 1]);
    const v = heads(linear(g, x, h, h, w, "attention"), [0, 2, 1, 3]);
    const scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), g.float(1 / Math.sqrt(dh))]), bias]);
    const ctx = g.op("MatMul", [g.op("Softmax", [scores], { axis: -1 }), v]);
    const merged = g.op("Reshape", [g.op("Transpose", [ctx], { perm: [0, 2, 1, 3] }), g.ints([0, 0, h])]);
    x = layerNorm(g, g.op("Add", [x, linear(g, merged, h, h, w, "attention-out")]), h);
    const up = linear(g, x, h, s.ffn, w, "ffn-up");
    const gelu = g.op("Mul", [
      g.op("Mul", [up, g.float(0.5)]),
      g.op("Add", [g.float(1), g.op("Erf", [g.op("Div", [up, g.float(Math.SQRT2)])])]),
    ]);
    x = layerNorm(g, g.op("Add", [x, linear(g, gelu, s.ffn, h, w, "ffn-down")]), h);
  }
  return x;
}

/** Which ONNX files to write: fp32 `model.onnx` and/or int8 `model_quantized.onnx`. */
export type Precision = "fp32" | "int8";

/** One ONNX file per precision, each graph built by `build` (fp32 → model.onnx, int8 → model_quantized.onnx). */
function perPrecision(
  precisions: Precision[],
  build: (g: GraphBuilder, w: Weights) => void,
  seed: number,
  plan: Int8Plan = { twoPass: [] },
): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const p of precisions) {
    const g = new GraphBuilder();
    build(g, { rand: seededRandom(seed), quantize: p === "int8", twoPass: new Set(plan.twoPass), plan });
    files[p === "fp32" ? "model.onnx" : "model_quantized.onnx"] = g.encode();
  }
  return files;
}

/** A BERT-shaped feature-extraction model with random weights (its int8 file quantized by `plan`). */
export function writeBertEmbedder(
  dir: string,
  shape: BertShape,
  vocab: string[],
  precisions: Precision[],
  plan?: Int8Plan,
): void {
  const files = perPrecision(
    precisions,
    (g, w) => {
      g.op("Identity", [bertEncoder(g, shape, w)], {}, 1, "last_hidden_state");
      g.output("last_hidden_state", "float", ["batch", "seq", shape.hidden]);
    },
    3,
    plan,
  );
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: shape.hidden,
    num_attention_heads: shape.heads,
    num_hidden_layers: shape.layers,
  };
  writeFolder(dir, config, vocab, files);
}

/** A BERT-shaped sequence-classification model (pooler + one logit) with random weights. */
export function writeBertReranker(
  dir: string,
  shape: BertShape,
  vocab: string[],
  precisions: Precision[],
): void {
  const files = perPrecision(
    precisions,
    (g, w) => {
      const cls = g.op("Gather", [bertEncoder(g, shape, w), g.ints([0], [])], { axis: 1 });
      const pooled = g.op("Tanh", [linear(g, cls, shape.hidden, shape.hidden, w, "head")]);
      g.op("Identity", [linear(g, pooled, shape.hidden, 1, w, "head")], {}, 1, "logits");
      g.output("logits", "float", ["batch", 1]);
    },
    5,
  );
  const config = {
    model_type: "bert",
    architectures: ["BertForSequenceClassification"],
    id2label: { "0": "LABEL_0" },
    label2id: { LABEL_0: 0 },
    hidden_size: shape.hidden,
  };
  writeFolder(dir, config, vocab, files);
}
