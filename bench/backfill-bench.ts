/**
 * Backfill figures for the cost curve (issue 17): how fast rows waiting for vectors get them, split into
 * what Lance costs (reading the rows, writing the vectors; a constant embedder) and what the bge-small-shape
 * embedder costs against this machine's arithmetic limit (≈ 4k tokens/s fp32 on 2 cores,
 * docs/performance.md#model-speed-on-two-cores). Works on a copy, so the memory under test is left as it was.
 */
import "./native-env.js";
import { cpSync, rmSync } from "node:fs";
import { LocalStore, pendingTexts, pendingVectorRows, vectorSearch } from "../src/local/index.js";
import { backfillVectors } from "../src/memory/backfill.js";
import { cachedModelDir, EMBEDDER_SPEC, type Embedder, loadEmbedder } from "../src/models/index.js";
import { BENCH_HUB } from "./models-bench.js";

/** An embedder that costs nothing: every text gets the same unit vector (isolates Lance's share). */
const constantEmbedder: Embedder = {
  dim: 384,
  async embed(texts) {
    return texts.map(() => {
      const v = new Float32Array(384);
      v[0] = 1;
      return v;
    });
  },
  async close() {},
};

/** Backfill chunks/s with a free embedder, on a copy of `memoryDir`, for up to `budgetMs`. */
export async function lanceBackfillRate(
  memoryDir: string,
  scratch: string,
  budgetMs: number,
): Promise<string> {
  rmSync(scratch, { recursive: true, force: true });
  cpSync(memoryDir, scratch, { recursive: true });
  const store = await LocalStore.open(scratch);
  if (store === null) throw new Error(`no memory in ${scratch}`);
  try {
    const r = await backfillVectors(store, constantEmbedder, { budgetMs, now: () => performance.now() });
    return `${Math.round(r.embedded / r.seconds)} chunks/s (${r.embedded} rows in ${r.seconds.toFixed(1)} s)`;
  } finally {
    store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The bge-small-shape embedder (fp32, 2 threads) on the first `n` rows in backfill order, in the
 * backfill's steps of 128: chunks/s and real (unpadded) tokens/s, against the arithmetic limit.
 */
export async function embedderBackfillRate(memoryDir: string, n: number): Promise<string> {
  const dir = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC);
  if (dir === null) return "bench models missing";
  const store = await LocalStore.open(memoryDir);
  if (store === null) throw new Error(`no memory in ${memoryDir}`);
  const rows = (await pendingVectorRows(store.table)).slice(0, n);
  const texts = [...(await pendingTexts(store.table, rows)).values()];
  store.close();
  const t = await import("@huggingface/transformers");
  const tokenizer = await t.AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  let tokens = 0;
  for (const s of texts) tokens += Math.min(512, tokenizer.encode(s).length);
  const embedder = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 2 });
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 128) await embedder.embed(texts.slice(i, i + 128));
  const secs = (performance.now() - t0) / 1000;
  await embedder.close();
  const tps = tokens / secs;
  return `${(texts.length / secs).toFixed(1)} chunks/s, ${Math.round(tps)} tokens/s (${(tokens / texts.length).toFixed(0)} tokens a chunk; ${Math.round((tps / 4000) * 100)}% of ≈ 4k tokens/s)`;
}

/**
 * recall@k of the vector leg as recall runs it against an exact scan, over `n` stored vectors (nudged, so a
 * query is not its own top hit) as queries. Counted by distance, not id: the bench's history is replicated,
 * so every vector has hundreds of identical copies and which k of them a search returns is arbitrary.
 */
export async function vectorRecallAtK(memoryDir: string, n: number, k = 20): Promise<string> {
  const store = await LocalStore.open(memoryDir);
  if (store === null) throw new Error(`no memory in ${memoryDir}`);
  try {
    const step = 50;
    const probes = await store.table
      .query()
      .where("vector IS NOT NULL")
      .select(["vector"])
      .limit(n * step)
      .toArray();
    let agree = 0;
    let asked = 0;
    const ms: number[] = [];
    for (let i = 0; i < probes.length && asked < n; i += step) {
      const raw = probes[i]?.vector as { toArray(): ArrayLike<number> };
      const v = Float32Array.from(raw.toArray(), (x, j) => x + (j % 7 === 0 ? 0.01 : -0.003));
      const norm = Math.hypot(...v);
      for (let j = 0; j < v.length; j++) v[j] = (v[j] as number) / norm;
      const t0 = performance.now();
      const approx = await vectorSearch(store.table, { vector: v, limit: k });
      ms.push(performance.now() - t0);
      const exact = await vectorSearch(store.table, { vector: v, limit: k, exactMaxRows: Infinity });
      const kth = exact[exact.length - 1]?.similarity ?? 1;
      agree += approx.filter((h) => h.similarity >= kth - 1e-5).length;
      asked++;
    }
    ms.sort((a, b) => a - b);
    const indexes = (await store.table.listIndices()).map((i) => i.indexType).join(", ");
    return `${(agree / (asked * k)).toFixed(3)} of exact (${asked} queries; vector leg p50 ${(ms[Math.floor(ms.length / 2)] ?? 0).toFixed(0)} ms; indexes: ${indexes})`;
  } finally {
    store.close();
  }
}
