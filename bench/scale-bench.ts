/**
 * The cost curve (`npm run bench -- --scale`, issue 17): memories of 10k, 100k and 1M chunks
 * (`BENCH_SCALES=10000,100000` to choose) built from the real fixture transcripts replicated under new ids,
 * and for each: the text-first pass (chunks/s and input MB/s, peak RSS), disk per chunk, the vector
 * backfill with the tiny model and the vector index build where the memory is large enough, recall p50/p95
 * in-process (keyword-only, hybrid, with rerank; bench-shaped models) and from a shell, recall's peak RSS,
 * and push bytes per new chunk against the loopback Hub (`BENCH_SCALE_PUSH=0` skips it).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { ModelSession } from "../src/commands/index.js";
import { CLI, runFunes } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeSyntheticHistory } from "../test/helpers/synth.js";
import { BENCH_HUB, ensureBenchModels, type Row } from "./models-bench.js";
import { timeRecalls } from "./recall-bench.js";

/** Chunks one replica of the fixture sessions adds (measured: 75 replicas ≈ 103k chunks). */
const CHUNKS_PER_COPY = 1373;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const duBytes = (path: string) => Number(execFileSync("du", ["-sb", path]).toString().split("\t")[0]);

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", LANCE_CPU_THREADS: "2", FUNES_SERVER: "0", ...env },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, ms: performance.now() - t0 })),
  );
}

async function pushBytesPerChunk(
  home: string,
  funesHome: string,
  tinyHub: string,
  copies: number,
): Promise<string> {
  const server = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "hub-server.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) =>
    server.stdout.once("data", (d) => resolve(String(d).trim())),
  );
  try {
    const env = {
      home,
      funesHome,
      extra: {
        HF_HUB_CACHE: tinyHub,
        HF_ENDPOINT: url,
        HF_TOKEN: "hf_benchtokenfortheloopbackhub",
        LANCE_CPU_THREADS: "2",
      },
    };
    const first = await runFunes(["push", "bench/scale", "--create", "--json"], env);
    if (first.code !== 0) throw new Error(`push failed: ${first.stderr}`);
    writeSyntheticHistory(home, 1, copies + 9000);
    await runFunes(["index", "--yes"], env);
    const second = await runFunes(["push", "bench/scale", "--json"], env);
    const s = JSON.parse(second.stdout) as { published: number; bytes: number };
    return `${Math.round(s.bytes / Math.max(1, s.published))} B/chunk (${s.published} new chunks)`;
  } finally {
    server.stdin.end();
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
    const textRss = Number(readFileSync(rssFile, "utf8"));
    const vec = await runCli(["index", "--yes", "--json"], { ...env, HF_HUB_CACHE: tinyHub });
    const vecRss = Number(readFileSync(rssFile, "utf8"));
    const disk = duBytes(join(funesHome, "memory"));

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
    const shell = async (hub: string) => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++)
        out.push((await runCli(["recall", "session compaction summary"], { ...env, HF_HUB_CACHE: hub })).ms);
      return pct(out, 50);
    };
    const shellKeyword = await shell(none);
    const shellModels = await shell(BENCH_HUB);
    const recallRss = Number(readFileSync(rssFile, "utf8"));
    const push =
      process.env.BENCH_SCALE_PUSH === "0"
        ? "skipped"
        : await pushBytesPerChunk(home, funesHome, tinyHub, copies);
    const f = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)} ms`;
    const k = `${(chunks / 1000).toFixed(0)}k`;
    const secs = text.ms / 1000;
    rows.push(
      [
        `[${k}] text-first pass`,
        `${Math.round(chunks / secs)} chunks/s, ${(inputBytes / 1048576 / secs).toFixed(1)} MB/s of transcripts, peak RSS ${(textRss / 1024).toFixed(0)} MiB`,
        size >= 1e6 ? "≥ 10,000 chunks/s, RSS ≤ 1.5 GB" : "",
      ],
      [`[${k}] disk per chunk`, `${Math.round(disk / chunks)} B`, size >= 1e6 ? "≤ 2.3 KB" : ""],
      [
        `[${k}] vectors (tiny model) + index upkeep`,
        `${(vec.ms / 1000).toFixed(0)} s, peak RSS ${(vecRss / 1024).toFixed(0)} MiB`,
        "",
      ],
      [
        `[${k}] recall in-process p50/p95: keyword`,
        f(keyword),
        size >= 1e6 ? "≤ 50 ms" : size >= 1e5 ? "≤ 30 ms" : "",
      ],
      [`[${k}]   hybrid (no rerank)`, f(hybrid), size >= 1e6 ? "≤ 250 ms" : size >= 1e5 ? "≤ 100 ms" : ""],
      [`[${k}]   with rerank`, f(rerank), ""],
      [
        `[${k}] recall from a shell p50: keyword / models`,
        `${shellKeyword.toFixed(0)} / ${shellModels.toFixed(0)} ms (peak RSS ${(recallRss / 1024).toFixed(0)} MiB)`,
        "",
      ],
      [`[${k}] push bytes per new chunk`, push, ""],
    );
    rmSync(base, { recursive: true, force: true });
  }
  return rows;
}
