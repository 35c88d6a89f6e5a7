/**
 * Model figures for `npm run bench`, with random-weight models of the real shapes (speed depends on shape,
 * not weights): embedding throughput through funes's pipeline vs raw onnxruntime on the same model and
 * inputs, thread choices, load times, reranker latency for 30 passages of ~300 tokens; and on every chunk
 * of the real fixture transcripts: backfill throughput against the machine's ≈ 4k tokens/s, the padding
 * its batches compute, and int8's speed and top-10 agreement with fp32.
 */
import "./native-env.js";
import { copyFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import * as ort from "onnxruntime-node";
import { writeBenchModels } from "../scripts/make-models.js";
import { BGE_SMALL, type Int8Plan, writeBertEmbedder } from "../scripts/model-gen/models.js";
import { ALL_TIERS, chunkTurns } from "../src/chunk/index.js";
import {
  cachedModelDir,
  EMBEDDER_INT8_SPEC,
  EMBEDDER_SPEC,
  type Embedder,
  embedBatches,
  loadEmbedder,
  loadReranker,
  type ModelSpec,
  RERANKER_SPECS,
} from "../src/models/index.js";
import { parseClaudeTranscript, parseCodexRollout, parsePiSession } from "../src/traces/index.js";
import { ROOT, TRACES } from "../test/helpers/fixtures.js";

/** A figure: label, value, goal. */
export type Row = [string, string, string];

/** The bench models' hub cache (generated once, kept between runs; gitignored). */
export const BENCH_HUB = join(ROOT, ".bench", "hub");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

/** Chunk-sized texts from the fixtures (most 100–1200 characters, like stored chunks). */
export function sampleTexts(n: number): string[] {
  const text = readFileSync(join(TRACES, "pi", "pi-mono-large-session.jsonl"), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/"text":"((?:[^"\\]|\\.){200,1200})"/g)) {
    out.push(JSON.parse(`"${m[1]}"`) as string);
    if (out.length >= n) break;
  }
  return out;
}

/**
 * The chunks `funes index` makes of every real Claude, Codex and pi transcript under test/fixtures/traces
 * (corpus/ included; all tiers, thinking kept), in file order: what a backfill embeds, repeats and all.
 */
export function corpusChunkTexts(): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith(".jsonl")) files.push(p);
    }
  };
  walk(TRACES);
  const out: string[] = [];
  for (const path of files) {
    const harness = relative(TRACES, path)
      .split("/")
      .find((s) => s === "claude" || s === "codex" || s === "pi");
    const parse =
      harness === "claude" ? parseClaudeTranscript : harness === "codex" ? parseCodexRollout : parsePiSession;
    if (harness === undefined) continue;
    for (const session of parse(readFileSync(path, "utf8"), { path }).sessions)
      for (const c of chunkTurns(session.turns, { tiers: ALL_TIERS, thinking: true, repo: "" }))
        out.push(c.text);
  }
  return out;
}

/** Ensures the bench models exist (generation takes ~30 s the first time). */
export function ensureBenchModels(): void {
  if (
    cachedModelDir(BENCH_HUB, EMBEDDER_SPEC) !== null &&
    cachedModelDir(BENCH_HUB, RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"]) !== null
  )
    return;
  process.stderr.write(`generating same-shape benchmark models under ${BENCH_HUB}…\n`);
  writeBenchModels(BENCH_HUB, process.env.BENCH_RERANKER_BASE === "1");
}

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/** Indices of the 10 texts nearest `q` by dot product (the vectors are normalised: cosine). */
function top10(q: Float32Array, docs: Float32Array[]): number[] {
  return docs
    .map((d, i) => [dot(q, d), i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 10)
    .map(([, i]) => i);
}

/** Mean of `xs` and a 95% bootstrap interval (2,000 resamples, a fixed seed so reruns agree). */
function meanWithInterval(xs: number[]): { mean: number; lo: number; hi: number } {
  let seed = 17;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const means: number[] = [];
  for (let r = 0; r < 2000; r++) {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(rand() * xs.length)] as number;
    means.push(sum / xs.length);
  }
  means.sort((a, b) => a - b);
  return {
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    lo: means[50] as number,
    hi: means[1949] as number,
  };
}

/** Token counts (cut at 512) and what the embedder's batches compute, padding included. */
async function tokenCounts(dir: string, texts: string[]): Promise<{ useful: number; computed: number }> {
  const { AutoTokenizer } = await import("@huggingface/transformers");
  const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  let useful = 0;
  let computed = 0;
  for (let i = 0; i < texts.length; i += BACKFILL_CALL) {
    const call = [...new Set(texts.slice(i, i + BACKFILL_CALL))];
    const counts = call.map((t) => Math.min(512, tok.encode(t).length));
    for (const b of embedBatches(counts))
      computed += b.length * Math.max(...b.map((k) => counts[k] as number));
    useful += texts.slice(i, i + BACKFILL_CALL).reduce((n, t) => n + Math.min(512, tok.encode(t).length), 0);
  }
  return { useful, computed };
}

/** Texts per embedder call in a backfill (its step). */
const BACKFILL_CALL = 128;

/** Embeds `texts` in backfill-sized calls; returns the vectors and the seconds it took. */
async function embedLikeBackfill(e: Embedder, texts: string[]): Promise<[Float32Array[], number]> {
  const t0 = performance.now();
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += BACKFILL_CALL)
    out.push(...(await e.embed(texts.slice(i, i + BACKFILL_CALL))));
  return [out, (performance.now() - t0) / 1000];
}

/** The backfill's texts, its distinct texts, and 400 seven-word queries cut from them (every few distinct). */
export interface AgreementCorpus {
  texts: string[];
  unique: string[];
  queries: string[];
}

export function agreementCorpus(): AgreementCorpus {
  const texts = corpusChunkTexts();
  const unique = [...new Set(texts)];
  const step = Math.max(1, Math.floor(unique.length / 400));
  const queries = unique
    .filter((_, i) => i % step === 0)
    .map((t) => t.split(/\s+/).slice(3, 10).join(" "))
    .filter((q) => q.length > 0)
    .slice(0, 400);
  return { texts, unique, queries };
}

/** One embedder's vectors for the distinct texts and the queries, and the seconds its backfill took. */
export interface CorpusVectors {
  docs: Float32Array[];
  q: Float32Array[];
  secs: number;
}

/** Embeds the corpus as a backfill does (every text, 128 a call), then each query alone as recall does. */
export async function embedCorpus(dir: string, spec: ModelSpec, c: AgreementCorpus): Promise<CorpusVectors> {
  const e = await loadEmbedder(dir, spec, { threads: 2 });
  try {
    await e.embed(c.texts.slice(0, 8));
    const [all, secs] = await embedLikeBackfill(e, c.texts);
    const byText = new Map(c.texts.map((t, i) => [t, all[i] as Float32Array]));
    const q: Float32Array[] = [];
    for (const x of c.queries) q.push((await e.embed([x]))[0] as Float32Array);
    return { docs: c.unique.map((t) => byText.get(t) as Float32Array), q, secs };
  } finally {
    await e.close();
  }
}

/** The share of fp32's top 10 that `other` keeps, per query, as a mean with its 95% interval. */
export function topTenAgreement(
  fp32: CorpusVectors,
  other: CorpusVectors,
): { mean: number; lo: number; hi: number } {
  const kept = fp32.q.map((fq, i) => {
    const want = new Set(top10(fq, fp32.docs));
    return top10(other.q[i] as Float32Array, other.docs).filter((k) => want.has(k)).length / 10;
  });
  return meanWithInterval(kept);
}

/** The embedder spec that loads a folder's int8 file. */
export const INT8_SPEC: ModelSpec = {
  ...EMBEDDER_SPEC,
  dtype: "q8",
  files: [...EMBEDDER_SPEC.files.filter((f) => !f.endsWith(".onnx")), "onnx/model_quantized.onnx"],
};

const agreementText = (a: { mean: number; lo: number; hi: number }) =>
  `${a.mean.toFixed(3)} [95% ${a.lo.toFixed(3)}–${a.hi.toFixed(3)}]`;

/**
 * What a backfill costs on real text, and whether an int8 embedder could be offered (issue 17). Every chunk
 * of the real transcripts (repeats included, in file order, 128 to a call as the backfill does) is embedded
 * with the bge-small-shaped model in fp32 and in the int8 funes derives from it (models/quantize.ts).
 * Agreement is the share of fp32's top 10 that int8 keeps among the distinct chunks, for 400 seven-word queries cut
 * from them (each embedded alone, as recall does), with a 95% bootstrap interval over queries. Random
 * weights make near-identical vectors (mean pairwise cosine ≈ 0.9995), whose order small errors upset
 * easily: the figure decides for the models funes can generate, and says little about the trained one.
 */
export async function benchRealChunks(embDir: string): Promise<Row[]> {
  const c = agreementCorpus();
  const { useful, computed } = await tokenCounts(embDir, c.texts);
  const fp32 = await embedCorpus(embDir, EMBEDDER_SPEC, c);
  const int8 = await embedCorpus(embDir, EMBEDDER_INT8_SPEC, c);
  const tps = useful / fp32.secs;
  return [
    [
      "backfill embedding, real chunks (fp32, 2 threads, 128 a call)",
      `${(c.texts.length / fp32.secs).toFixed(1)} chunks/s, ${Math.round(tps)} tokens/s = ${Math.round((tps / 4000) * 100)}% of ≈ 4k (${c.texts.length} chunks, ${Math.round(useful / c.texts.length)} tokens each)`,
      "near ≈ 4k tokens/s",
    ],
    [
      "  tokens computed / real tokens",
      `${(computed / useful).toFixed(3)} (padding, less ${(100 * (1 - c.unique.length / c.texts.length)).toFixed(1)}% repeated chunks run once a call)`,
      "",
    ],
    [
      "  int8 (FUNES_EMBED_PRECISION=int8): chunks/s, time / fp32",
      `${(c.texts.length / int8.secs).toFixed(1)}, ${(int8.secs / fp32.secs).toFixed(2)}`,
      "",
    ],
    [
      "int8 embedder: top-10 agreement with fp32",
      `${agreementText(topTenAgreement(fp32, int8))} (${c.queries.length} queries, ${c.unique.length} chunks; random weights)`,
      "≥ 0.95 to offer int8",
    ],
    [
      "  fp32 queries over int8 vectors (a mixed memory, the reference reading ours)",
      agreementText(topTenAgreement(fp32, { ...int8, q: fp32.q })),
      "≥ 0.95",
    ],
  ];
}

/**
 * int8's time over fp32's on `texts`, the median of 3 rounds that run each model in turn (both loaded), so
 * a machine busy with other work slows both alike.
 */
export async function alternatingTimeRatio(
  fp32Dir: string,
  int8Dir: string,
  texts: string[],
  int8Spec: ModelSpec = INT8_SPEC,
): Promise<number> {
  const fp32 = await loadEmbedder(fp32Dir, EMBEDDER_SPEC, { threads: 2 });
  const int8 = await loadEmbedder(int8Dir, int8Spec, { threads: 2 });
  try {
    const ratios: number[] = [];
    for (let r = 0; r < 3; r++) {
      const [, a] = await embedLikeBackfill(fp32, texts);
      const [, b] = await embedLikeBackfill(int8, texts);
      ratios.push(b / a);
    }
    return median(ratios);
  } finally {
    await fp32.close();
    await int8.close();
  }
}

/** The int8 plans the study compares: plain dynamic quantization, then two passes where it matters most. */
const INT8_PLANS: [string, Int8Plan][] = [
  ["plain (onnxruntime's dynamic quantization)", { twoPass: [] }],
  ["two-pass activations into the FFN's down projection", { twoPass: ["ffn-down"] }],
  ["two-pass activations into both FFN projections", { twoPass: ["ffn-up", "ffn-down"] }],
  ["two-pass activations everywhere", { twoPass: ["attention", "attention-out", "ffn-up", "ffn-down"] }],
  [
    "blocks of 32 (MatMulNBits, int8 activations per block of 32)",
    { twoPass: [], scheme: "blocks", block: 32 },
  ],
];

/**
 * `npm run bench -- --int8`: where int8's disagreement with fp32 comes from and what buys it back, on the
 * same corpus and queries as the gate. Weights quantized alone keep ≈ 0.996 of fp32's top 10; the loss is
 * the activations' rounding. Each plan's int8 file is generated from the same random weights as the bench's
 * fp32 model, with the bench's tokenizer.
 */
export async function benchInt8Study(work: string): Promise<Row[]> {
  ensureBenchModels();
  const embDir = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC) as string;
  const vocab = Object.entries(
    (
      JSON.parse(readFileSync(join(embDir, "tokenizer.json"), "utf8")) as {
        model: { vocab: Record<string, number> };
      }
    ).model.vocab,
  )
    .sort((a, b) => a[1] - b[1])
    .map(([w]) => w);
  const c = agreementCorpus();
  const fp32 = await embedCorpus(embDir, EMBEDDER_SPEC, c);
  const rows: Row[] = [
    [
      "fp32 backfill of the corpus",
      `${fp32.secs.toFixed(1)} s (${c.texts.length} chunks, ${c.queries.length} queries)`,
      "",
    ],
  ];
  const only = process.env.BENCH_INT8_PLANS;
  for (const [name, plan] of INT8_PLANS.filter(
    (_, i) => only === undefined || only.split(",").includes(String(i)),
  )) {
    const dir = join(
      work,
      `int8-${plan.scheme === "blocks" ? `blocks${plan.block}` : plan.twoPass.join("-") || "plain"}`,
    );
    writeBertEmbedder(dir, BGE_SMALL, vocab, ["int8"], plan);
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) copyFileSync(join(embDir, f), join(dir, f));
    const int8 = await embedCorpus(dir, INT8_SPEC, c);
    const ratio = await alternatingTimeRatio(embDir, dir, c.texts.slice(0, 384));
    rows.push([
      `int8, ${name}`,
      `agreement ${agreementText(topTenAgreement(fp32, int8))}, time ${ratio.toFixed(2)} of fp32`,
      "≥ 0.95 and well under 1",
    ]);
  }
  const ours = await embedCorpus(embDir, EMBEDDER_INT8_SPEC, c);
  const ratio = await alternatingTimeRatio(embDir, embDir, c.texts.slice(0, 384), EMBEDDER_INT8_SPEC);
  rows.push([
    "int8, funes's (FUNES_EMBED_PRECISION=int8): plain, but row 0's products after attention also in fp32",
    `agreement ${agreementText(topTenAgreement(fp32, ours))}, time ${ratio.toFixed(2)} of fp32`,
    "≥ 0.95 and well under 1",
  ]);
  return rows;
}

/** Runs the model benchmarks and returns their rows. */
export async function benchModels(): Promise<Row[]> {
  ensureBenchModels();
  const rows: Row[] = [];
  const embDir = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC) as string;
  const texts = sampleTexts(96);

  // Our pipeline (tokenize + run + CLS + normalise) at 2 threads, batched by tokens.
  const [emb, loadMs] = await time(() => loadEmbedder(embDir, EMBEDDER_SPEC, { threads: 2 }));
  await emb.embed(texts.slice(0, 8));
  const ours: number[] = [];
  for (let r = 0; r < 3; r++) ours.push((await time(() => emb.embed(texts)))[1]);
  await emb.close();

  // Raw onnxruntime-node on the same model and the same token batches.
  const { AutoTokenizer } = await import("@huggingface/transformers");
  const tok = await AutoTokenizer.from_pretrained(embDir, { local_files_only: true });
  const counts = texts.map((t) => Math.min(512, tok.encode(t).length));
  const feeds: Record<string, ort.Tensor>[] = [];
  let tokens = 0;
  for (const idx of embedBatches(counts)) {
    const batch = idx.map((k) => texts[k] as string);
    const enc = tok(batch, { padding: true, truncation: true, max_length: 512 }) as Record<
      string,
      { data: BigInt64Array; dims: number[] }
    >;
    const feed: Record<string, ort.Tensor> = {};
    for (const name of ["input_ids", "attention_mask", "token_type_ids"]) {
      const t = enc[name] as { data: BigInt64Array; dims: number[] };
      feed[name] = new ort.Tensor("int64", t.data, t.dims);
    }
    tokens += (enc.attention_mask as { data: BigInt64Array }).data.reduce((a, b) => a + Number(b), 0);
    feeds.push(feed);
  }
  const session = await ort.InferenceSession.create(join(embDir, "onnx", "model.onnx"), {
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
  });
  await session.run(feeds[0] as Record<string, ort.Tensor>);
  const raw: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (const f of feeds) await session.run(f);
    raw.push(performance.now() - t0);
  }
  await session.release();
  const oursRate = texts.length / (median(ours) / 1000);
  const rawRate = texts.length / (median(raw) / 1000);
  rows.push(["embedder (bge-small shape, fp32) load", `${loadMs.toFixed(0)} ms`, ""]);
  rows.push([
    "embedding throughput, funes pipeline",
    `${oursRate.toFixed(1)} chunks/s (${Math.round(tokens / texts.length)} tokens/chunk avg, 2 threads)`,
    "",
  ]);
  rows.push([
    "embedding throughput, raw onnxruntime",
    `${rawRate.toFixed(1)} chunks/s (same model, same token batches)`,
    "",
  ]);
  rows.push(["  ratio funes / raw", (oursRate / rawRate).toFixed(2), "≥ 0.9"]);
  rows.push(...(await benchRealChunks(embDir)));

  // Batch and thread choices (same texts, our pipeline).
  const sub = texts.slice(0, 32);
  for (const threads of [1, 2]) {
    const e = await loadEmbedder(embDir, EMBEDDER_SPEC, { threads });
    await e.embed(sub.slice(0, 4));
    const [, ms] = await time(() => e.embed(sub));
    rows.push([
      `  ${threads} thread${threads === 1 ? "" : "s"}`,
      `${(sub.length / (ms / 1000)).toFixed(1)} chunks/s`,
      "",
    ]);
    await e.close();
  }

  // Reranker latency: 30 passages of ~300 tokens with one query.
  const query = "why does the lance full text index build hang on a two core machine";
  const passages = sampleTexts(200)
    .filter((t) => t.length > 900)
    .slice(0, 30);
  const base = RERANKER_SPECS["bge-reranker-base"];
  const variants: [string, ModelSpec][] = [
    ["ms-marco-MiniLM-L-6-v2", RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"]],
    ["bge-reranker-base", base],
    [
      "bge-reranker-base",
      { ...base, dtype: "q8", files: [...base.files.slice(0, 3), "onnx/model_quantized.onnx"] },
    ],
  ];
  for (const [key, spec] of variants) {
    const dir = cachedModelDir(BENCH_HUB, spec);
    if (dir === null) {
      rows.push([`reranker ${key} (${spec.dtype})`, "not generated (BENCH_RERANKER_BASE=1 builds it)", ""]);
      continue;
    }
    const [rr, rLoad] = await time(() => loadReranker(dir, spec, { threads: 2 }));
    await rr.score(query, passages.slice(0, 4));
    const lat: number[] = [];
    for (let r = 0; r < 3; r++) lat.push((await time(() => rr.score(query, passages)))[1]);
    await rr.close();
    rows.push([`reranker ${key} (${spec.dtype}) load`, `${rLoad.toFixed(0)} ms`, ""]);
    rows.push([
      `reranker ${key} (${spec.dtype}): 30 passages, cut at 256 tokens`,
      `${median(lat).toFixed(0)} ms median of 3`,
      key === "ms-marco-MiniLM-L-6-v2" ? "fits a 1 s recall" : "",
    ]);
  }
  return rows;
}
