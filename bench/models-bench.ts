/**
 * Model figures for `npm run bench`, with random-weight models of the real shapes (speed depends on shape,
 * not weights): embedding throughput through funes's pipeline vs raw onnxruntime on the same model and
 * inputs, batch and thread choices, load times, reranker latency for 30 passages of ~300 tokens.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { writeBenchModels } from "../scripts/make-models.js";
import {
  cachedModelDir,
  EMBEDDER_SPEC,
  loadEmbedder,
  loadReranker,
  type ModelSpec,
  RERANKER_SPECS,
} from "../src/models/index.js";
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

/**
 * Whether an int8 embedder could be offered (issue 17): the share of fp32's top 10 that int8 keeps, over
 * every fixture chunk of the large pi session and 60 seven-word queries cut from them, with the bench's
 * bge-small-shaped model in both precisions (int8 = its MatMul weights dynamically quantized). Random
 * weights make near-identical vectors (mean pairwise cosine ≈ 0.9995), whose order small errors upset
 * easily: the figure decides for the models funes can generate, and says little about the trained one.
 */
async function benchInt8Agreement(embDir: string): Promise<Row[]> {
  const docs = sampleTexts(10_000);
  const queries = docs.slice(0, 60).map((t) => t.split(/\s+/).slice(3, 10).join(" "));
  const q8: ModelSpec = {
    ...EMBEDDER_SPEC,
    dtype: "q8",
    files: [...EMBEDDER_SPEC.files.filter((f) => !f.endsWith(".onnx")), "onnx/model_quantized.onnx"],
  };
  const run = async (spec: ModelSpec) => {
    const e = await loadEmbedder(embDir, spec, { threads: 2 });
    try {
      const [d, ms] = await time(() => e.embed(docs));
      return { d, q: await e.embed(queries), ms };
    } finally {
      await e.close();
    }
  };
  const fp32 = await run(EMBEDDER_SPEC);
  const int8 = await run(q8);
  let kept = 0;
  queries.forEach((_, i) => {
    const want = new Set(top10(fp32.q[i] as Float32Array, fp32.d));
    kept += top10(int8.q[i] as Float32Array, int8.d).filter((k) => want.has(k)).length / 10;
  });
  return [
    [
      "int8 embedder: top-10 agreement with fp32",
      `${(kept / queries.length).toFixed(3)} (${queries.length} queries, ${docs.length} chunks; random weights)`,
      "≥ 0.95 to offer int8",
    ],
    ["  int8 / fp32 embedding time", `${(int8.ms / fp32.ms).toFixed(2)}`, ""],
  ];
}

/** Runs the model benchmarks and returns their rows. */
export async function benchModels(): Promise<Row[]> {
  ensureBenchModels();
  const rows: Row[] = [];
  const embDir = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC) as string;
  const texts = sampleTexts(96);

  // Our pipeline (tokenize + run + CLS + normalise) at 2 threads, batches of 8 by length.
  const [emb, loadMs] = await time(() => loadEmbedder(embDir, EMBEDDER_SPEC, { threads: 2 }));
  await emb.embed(texts.slice(0, 8));
  const ours: number[] = [];
  for (let r = 0; r < 3; r++) ours.push((await time(() => emb.embed(texts)))[1]);
  await emb.close();

  // Raw onnxruntime-node on the same model and the same token batches.
  const { AutoTokenizer } = await import("@huggingface/transformers");
  const tok = await AutoTokenizer.from_pretrained(embDir, { local_files_only: true });
  const order = texts
    .map((_, i) => i)
    .sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
  const feeds: Record<string, ort.Tensor>[] = [];
  let tokens = 0;
  for (let i = 0; i < order.length; i += 8) {
    const batch = order.slice(i, i + 8).map((k) => texts[k] as string);
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
    `${oursRate.toFixed(1)} chunks/s (${Math.round(tokens / texts.length)} tokens/chunk avg, batch 8, 2 threads)`,
    "",
  ]);
  rows.push([
    "embedding throughput, raw onnxruntime",
    `${rawRate.toFixed(1)} chunks/s (same model, same token batches)`,
    "",
  ]);
  rows.push(["  ratio funes / raw", (oursRate / rawRate).toFixed(2), "≥ 0.9"]);
  rows.push(...(await benchInt8Agreement(embDir)));

  // Batch and thread choices (same texts, our pipeline).
  const sub = texts.slice(0, 32);
  for (const threads of [1, 2]) {
    const e = await loadEmbedder(embDir, EMBEDDER_SPEC, { threads });
    await e.embed(sub.slice(0, 4));
    const [, ms] = await time(() => e.embed(sub));
    rows.push([
      `  ${threads} thread${threads === 1 ? "" : "s"}, batch 8`,
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
