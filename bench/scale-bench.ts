/**
 * The cost curve (`npm run bench -- --scale`, issue 17): memories of 10k, 100k and 1M chunks
 * (`BENCH_SCALES=10000,100000` to choose) built from the real fixture transcripts replicated under new ids,
 * and for each: the text-first pass (chunks/s and input MB/s, peak RSS), disk per chunk (text only, then
 * with vectors, by part), the backfill's Lance share and the bge-small-shape embedder's rate, `index --yes`
 * with the tiny model (its vectors stand in for real ones: the real embedder would take hours at 1M), the
 * vector leg's recall@20 against an exact scan, a later `index --yes` adding ≈ 5% (the vector index folds
 * it in or searches it beside the index); for each `index --yes`, its vector-index steps and the longest, recall p50/p95 in-process (keyword-only, hybrid, with rerank; bench-shaped models) and from a
 * shell, recall's peak RSS, and against the loopback Hub a first push of the whole memory (time, peak RSS)
 * and push bytes per new chunk (`BENCH_SCALE_PUSH=0` skips both).
 */
import "./native-env.js";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { ModelSession } from "../src/commands/index.js";
import { LocalStore } from "../src/local/index.js";
import { CLI, runFunes } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeSyntheticHistory } from "../test/helpers/synth.js";
import { embedderBackfillRate, lanceBackfillRate, vectorRecallAtK } from "./backfill-bench.js";
import { BENCH_HUB, ensureBenchModels, type Row } from "./models-bench.js";
import { timeRecalls } from "./recall-bench.js";
import { groupRssSampler, peakKiB, peakText, readPeak } from "./rss.js";

/** Chunks one replica of the fixture sessions adds (measured: 75 replicas ≈ 103k chunks). */
const CHUNKS_PER_COPY = 1373;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const duBytes = (path: string) => Number(execFileSync("du", ["-sb", path]).toString().split("\t")[0]);

/** Bytes per chunk of each part of `chunks.lance` (data, indexes, deletion files, manifests + transactions). */
function diskParts(memoryDir: string, chunks: number): string {
  const table = join(memoryDir, "chunks.lance");
  const part = (names: string[]) =>
    names.reduce((s, n) => s + (existsSync(join(table, n)) ? duBytes(join(table, n)) : 0), 0);
  const per = (b: number) => `${Math.round(b / chunks)}`;
  return `data ${per(part(["data"]))}, indexes ${per(part(["_indices"]))}, deletions ${per(part(["_deletions"]))}, versions ${per(part(["_versions", "_transactions"]))} B`;
}

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number; groupKiB: number }> {
  // The probe appends a line per process: a run's file holds that run's lines only.
  if (env.BENCH_RSS_FILE !== undefined) rmSync(env.BENCH_RSS_FILE, { force: true });
  const t0 = performance.now();
  // Its own process group, so that the workers `index` starts are measured with it.
  const child = spawn(process.execPath, ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", LANCE_CPU_THREADS: "2", FUNES_SERVER: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const stop = child.pid === undefined ? () => 0 : groupRssSampler(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.on("close", (code) =>
      resolve({ code, stdout, stderr, ms: performance.now() - t0, groupKiB: stop() }),
    ),
  );
}

/** The vector-index steps an index run reported on stderr ("built … (12.3 s", "added … (4.5 s"): count, longest. */
function vectorIndexSteps(stderr: string): string {
  const steps = [...stderr.matchAll(/^(\w+).*vector index \((\d+(?:\.\d+)?) s/gm)].map((m) => ({
    what: m[1] === "added" ? "fold" : (m[1] ?? ""),
    s: Number(m[2]),
  }));
  if (steps.length === 0) return "no vector-index step";
  const longest = steps.reduce((a, b) => (b.s > a.s ? b : a));
  const n = (w: string) => steps.filter((x) => x.what === w).length;
  return `vector-index steps: ${n("built")} trained, ${n("rebuilt")} retrained, ${n("fold")} folds; longest ${longest.s.toFixed(1)} s (${longest.what})`;
}

/**
 * A first push of the whole memory (its time and peak RSS), then push bytes per new chunk (a later push of a
 * few new sessions), against the loopback Hub.
 */
async function pushRuns(
  home: string,
  funesHome: string,
  tinyHub: string,
  rssFile: string,
  copies: number,
): Promise<{ first: string; bytes: string }> {
  const server = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "hub-server.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) =>
    server.stdout.once("data", (d) => resolve(String(d).trim())),
  );
  try {
    const extra = {
      HF_HUB_CACHE: tinyHub,
      HF_ENDPOINT: url,
      HF_TOKEN: "hf_benchtokenfortheloopbackhub",
      LANCE_CPU_THREADS: "2",
    };
    const env = { home, funesHome, extra };
    const first = await runCli(["push", "bench/scale", "--create", "--json"], {
      HOME: home,
      FUNES_HOME: funesHome,
      BENCH_RSS_FILE: rssFile,
      ...extra,
    });
    if (first.code !== 0) throw new Error(`push failed: ${first.stderr}`);
    const firstOut = JSON.parse(first.stdout) as { published: number };
    const firstPeak = readPeak(rssFile, first.groupKiB);
    writeSyntheticHistory(home, 1, copies + 9000);
    await runFunes(["index", "--yes"], env);
    const second = await runFunes(["push", "bench/scale", "--json"], env);
    const s = JSON.parse(second.stdout) as { published: number; bytes: number };
    return {
      first: `${firstOut.published} chunks in ${(first.ms / 1000).toFixed(0)} s, peak RSS ${peakText(firstPeak)}`,
      bytes: `${Math.round(s.bytes / Math.max(1, s.published))} B/chunk (${s.published} new chunks)`,
    };
  } finally {
    server.stdin.end();
  }
}

/**
 * A later `index --yes` that adds enough sessions for the vector index to fold them in (5% of the rows, at
 * least 10k): its time and peak RSS, and the index after it (what it was trained on, rows outside it).
 */
async function laterRun(
  home: string,
  funesHome: string,
  tinyHub: string,
  rssFile: string,
  copies: number,
  chunks: number,
): Promise<string> {
  const add = Math.ceil((Math.max(10_000, chunks * 0.05) * 1.1) / CHUNKS_PER_COPY);
  writeSyntheticHistory(home, add, copies + 5000);
  const env = { HOME: home, FUNES_HOME: funesHome, BENCH_RSS_FILE: rssFile, HF_HUB_CACHE: tinyHub };
  const r = await runCli(["index", "--yes", "--json"], env);
  if (r.code !== 0) throw new Error("the later index run failed");
  const rss = peakKiB(rssFile, r.groupKiB) / 1024;
  const out = JSON.parse(r.stdout) as { chunksAdded: number };
  const steps = vectorIndexSteps(r.stderr);
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) throw new Error("no memory after the later run");
  try {
    const st = await store.table.indexStats("vector_idx");
    // The row count it was trained on (changes only when it is retrained).
    const trained = (await store.table.schema()).fields
      .find((f) => f.name === "vector")
      ?.metadata.get("funes:vector_index_rows");
    return `+${out.chunksAdded} chunks in ${(r.ms / 1000).toFixed(1)} s, peak RSS ${rss.toFixed(0)} MiB; ${steps}; vector index trained on ${trained} rows, ${st?.numIndices} segment(s), ${st?.numUnindexedRows} rows of unindexed fragments`;
  } finally {
    store.close();
  }
}

/** Runs the scale benchmark; returns one block of rows per size. */
export async function benchScale(dir: string): Promise<Row[]> {
  ensureBenchModels();
  const tinyHub = join(dir, "scale-tiny");
  writeTestModels(tinyHub);
  const none = join(dir, "scale-none");
  mkdirSync(none, { recursive: true });
  const sizes = (process.env.BENCH_SCALES ?? "10000,100000,1000000").split(",").map(Number);
  const rows: Row[] = [];
  let printed = 0;
  for (const size of sizes) {
    const base = join(dir, `scale-${size}`);
    const home = join(base, "home");
    const funesHome = join(base, "funes");
    const copies = Math.max(1, Math.round(size / CHUNKS_PER_COPY));
    writeSyntheticHistory(home, copies);
    const inputBytes = duBytes(home);
    const rssFile = join(base, "rss");
    const env = { HOME: home, FUNES_HOME: funesHome, BENCH_RSS_FILE: rssFile };
    const text = await runCli(["index", "--json"], { ...env, HF_HUB_CACHE: none });
    if (text.code !== 0) throw new Error(`index failed at ${size}`);
    const chunks = (JSON.parse(text.stdout) as { chunksAdded: number }).chunksAdded;
    const textRss = peakKiB(rssFile);
    const textDisk = duBytes(join(funesHome, "memory"));
    const memoryDir = join(funesHome, "memory");
    // Backfill speed, measured on the text-only memory: Lance's share (a free embedder, on a copy, up to a
    // minute) at every size, the bge-small-shape embedder's once (it does not depend on the memory's size).
    const lanceRate = await lanceBackfillRate(memoryDir, join(base, "scratch"), 60_000);
    const embedRate = size === sizes[0] ? await embedderBackfillRate(memoryDir, 384) : "";
    const vec = await runCli(["index", "--yes", "--json"], { ...env, HF_HUB_CACHE: tinyHub });
    const vecPeak = readPeak(rssFile, vec.groupKiB);
    const vecOut = JSON.parse(vec.stdout) as { vectors: { embedded: number; seconds: number } };
    const disk = duBytes(memoryDir);
    const parts = diskParts(memoryDir, chunks);
    const annRecall = await vectorRecallAtK(memoryDir, 40);

    const cfg = {
      hubCache: BENCH_HUB,
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 2,
      hubUrl: "http://127.0.0.1:9",
    };
    const models = new ModelSession(cfg);
    const rerank = await timeRecalls(funesHome, home, models, 500);
    const hybrid = await timeRecalls(funesHome, home, models, 0);
    await models.close();
    const bare = new ModelSession({ ...cfg, hubCache: none });
    const keyword = await timeRecalls(funesHome, home, bare, 0);
    await bare.close();
    // Each from a new process, as from a shell (no model server): p50 / p95 of 6, and the largest peak RSS.
    const shell = async (hub: string, extra: string[] = []) => {
      const out: number[] = [];
      const rss: number[] = [];
      for (const q of ["session compaction summary", "git tag and push", "oauth login flow"])
        for (let i = 0; i < 2; i++) {
          out.push((await runCli(["recall", q, ...extra], { ...env, HF_HUB_CACHE: hub })).ms);
          rss.push(peakKiB(rssFile) / 1024);
        }
      const mib = `peak RSS ${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MiB`;
      return `${pct(out, 50).toFixed(0)} / ${pct(out, 95).toFixed(0)} ms (${mib})`;
    };
    const shellKeyword = await shell(none);
    const shellHybrid = await shell(BENCH_HUB, ["--rerank-budget", "0"]);
    const shellModels = await shell(BENCH_HUB);
    const later = await laterRun(home, funesHome, tinyHub, rssFile, copies, chunks);
    const push =
      process.env.BENCH_SCALE_PUSH === "0"
        ? { first: "skipped", bytes: "skipped" }
        : await pushRuns(home, funesHome, tinyHub, rssFile, copies);
    const f = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)} ms`;
    const k = `${(chunks / 1000).toFixed(0)}k`;
    const secs = text.ms / 1000;
    rows.push(
      [
        `[${k}] text-first pass`,
        `${Math.round(chunks / secs)} chunks/s, ${(inputBytes / 1048576 / secs).toFixed(1)} MB/s of transcripts, peak RSS ${(textRss / 1024).toFixed(0)} MiB`,
        size >= 1e6 ? "≥ 10,000 chunks/s, RSS ≤ 1.5 GB" : "",
      ],
      [`[${k}] disk per chunk, text only`, `${Math.round(textDisk / chunks)} B`, ""],
      [
        `[${k}] disk per chunk, with vectors`,
        `${Math.round(disk / chunks)} B (${parts})`,
        size >= 1e6 ? "≤ 2.3 KB" : "",
      ],
      [`[${k}] backfill, Lance's share (free embedder)`, lanceRate, ""],
      ...(embedRate === "" ? [] : ([[`backfill, bge-small shape fp32 (any size)`, embedRate, ""]] as Row[])),
      [
        `[${k}] index --yes with the tiny model (backfill + compaction + indexes)`,
        `${(vec.ms / 1000).toFixed(0)} s (backfill ${Math.round(vecOut.vectors.embedded / vecOut.vectors.seconds)} chunks/s), peak RSS ${peakText(vecPeak)}; ${vectorIndexSteps(vec.stderr)}`,
        size >= 1e6 ? "RSS ≤ 1.5 GB" : "",
      ],
      [`[${k}] vector leg recall@20`, annRecall, "≥ 0.98"],
      [
        `[${k}] recall in-process p50/p95: keyword`,
        f(keyword),
        size >= 1e6 ? "≤ 50 ms" : size >= 1e5 ? "≤ 30 ms" : "",
      ],
      [`[${k}]   hybrid (no rerank)`, f(hybrid), size >= 1e6 ? "≤ 250 ms" : size >= 1e5 ? "≤ 100 ms" : ""],
      [`[${k}]   with rerank`, f(rerank), ""],
      [`[${k}] recall from a shell p50 / p95: keyword`, shellKeyword, ""],
      [`[${k}]   hybrid (models, no rerank)`, shellHybrid, ""],
      [`[${k}]   with rerank`, shellModels, ""],
      [
        `[${k}] a later index --yes that adds ≈ 5% (the vector index kept: folded, or searched beside it)`,
        later,
        "",
      ],
      [`[${k}] first push of the whole memory`, push.first, size >= 1e6 ? "RSS ≤ 1.5 GB" : ""],
      [`[${k}] push bytes per new chunk`, push.bytes, ""],
    );
    // Each size's figures as soon as they exist: a 1M run takes long, and a failure later loses none.
    for (const [label, value] of rows.slice(printed)) process.stderr.write(`  ${label}  ${value}\n`);
    printed = rows.length;
    rmSync(base, { recursive: true, force: true });
  }
  return rows;
}
