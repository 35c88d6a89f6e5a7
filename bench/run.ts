/**
 * `npm run bench`: figures for the issues' performance goals, on a synthetic history made of the real
 * fixture sessions replicated under new ids. Prints a table; nothing here is a pass/fail test.
 *
 * `npm run bench -- --quality` prints only the retrieval-quality table, `-- --latency` only the shell and
 * MCP latency figures (each a few minutes), `-- --scale` the cost curve at 10k, 100k and 1M chunks (long),
 * `-- --vector-index` the local vector index's training and fold costs at 1M vectors (a few minutes),
 * `-- --real` the text pass on replicated real transcripts beside fixture replicas (also part of `--scale`),
 * `-- --int8` where int8 embeddings lose fp32's top 10, what buys it back, and funes's own int8 (~10 min),
 * `-- --peer <checkout>` funes beside obra/episodic-memory on one Claude corpus (index, MCP latency; long),
 * `-- --compact` a team's year on one Hub memory at a reduced scale (files in the repo, a newcomer's
 * download, Hub requests per push, with compaction on schedule; a few minutes).
 *
 * Index (text first): throughput in chunks/s over a cold `funes index` of ≥ 100k chunks (goal ≥ 3,000/s on
 * 2 cores), its peak RSS (goal ≤ 1.5 GB), disk bytes per chunk, Lance fragments, and keyword query latency;
 * one generated 50 MB transcript's peak RSS (goal < 500 MiB). Secret scan alone (the text pass's
 * redaction, in process): chunks/s (goal ≥ 10,000) and findings on clean text.
 */
import "./native-env.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { keywordSearch, LocalStore } from "../src/local/index.js";
import { CLI } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeSyntheticHistory } from "../test/helpers/synth.js";
import { benchHooks } from "./hooks-bench.js";
import { benchLargeTranscript, benchQuadraticInputs } from "./large-transcript-bench.js";
import { benchLatency } from "./latency-bench.js";
import { BENCH_HUB, benchInt8Study, benchModels, ensureBenchModels, type Row } from "./models-bench.js";
import { benchPeer, PEER_SETUP, peerProblem } from "./peer-bench.js";
import { benchQuality } from "./quality-bench.js";
import { benchRealCorpus } from "./real-corpus-bench.js";
import { benchRecall } from "./recall-bench.js";
import { benchRedact } from "./redact-bench.js";
import { benchRemote } from "./remote-bench.js";
import { peakKiB } from "./rss.js";
import { benchScale } from "./scale-bench.js";
import { benchVectorIndex } from "./vector-index-bench.js";

const COPIES = Number(process.env.BENCH_COPIES ?? 75);

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; ms: number }> {
  // The probe appends a line per process: a run's file holds that run's lines only.
  if (env.BENCH_RSS_FILE !== undefined) rmSync(env.BENCH_RSS_FILE, { force: true });
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, ms: performance.now() - t0 })),
  );
}

/** The team-year simulation (its own script, on the Hub stand-in), its lines indented. */
function teamYear(): string {
  return execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", "compact-bench.ts")], {
    env: { ...process.env, LANCEDB_LOG: "error" },
  })
    .toString()
    .replace(/^/gm, "  ");
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

function printRows(title: string, rows: Row[]): void {
  const w = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(`\n${title}\n`);
  for (const [k, v, goal] of rows)
    process.stdout.write(`  ${k.padEnd(w)}  ${v}${goal ? `   (goal ${goal})` : ""}\n`);
}

async function main(): Promise<void> {
  const peerAt = process.argv.indexOf("--peer");
  if (peerAt !== -1) {
    const peer = process.argv[peerAt + 1];
    const problem = peer === undefined || peer.startsWith("--") ? "no checkout named" : peerProblem(peer);
    if (problem !== null || peer === undefined) {
      process.stdout.write(`${PEER_SETUP}   (${problem})\n`);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "funes-bench-"));
    try {
      printRows("funes benchmark — beside obra/episodic-memory", await benchPeer(dir, peer));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "funes-bench-"));
  if (process.argv.includes("--compact")) {
    process.stdout.write(`\nfunes benchmark — a team's year on one Hub memory\n${teamYear()}`);
    return;
  }
  const only = ["quality", "latency", "scale", "vector-index", "real", "int8"].find((f) =>
    process.argv.includes(`--${f}`),
  );
  if (only !== undefined) {
    try {
      if (only === "quality") process.stdout.write(await benchQuality(dir));
      else if (only === "latency")
        printRows("funes benchmark — shell and MCP latency", await benchLatency(dir));
      else if (only === "vector-index")
        printRows("funes benchmark — the local vector index", benchVectorIndex());
      else if (only === "int8")
        printRows("funes benchmark — where int8 embeddings lose fp32's order", await benchInt8Study(dir));
      else if (only === "real")
        printRows("funes benchmark — the text pass on real transcripts", await benchRealCorpus(dir));
      else {
        printRows("funes benchmark — the cost curve", await benchScale(dir));
        printRows("funes benchmark — the text pass on real transcripts", await benchRealCorpus(dir));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  try {
    const home = join(dir, "home");
    const funesHome = join(dir, "funes");
    const { files } = writeSyntheticHistory(home, COPIES);
    const rssFile = join(dir, "rss");
    const env = { HOME: home, FUNES_HOME: funesHome, BENCH_RSS_FILE: rssFile };

    const cold = await run(["index", "--json"], env);
    if (cold.code !== 0) throw new Error(`index failed (${cold.code})`);
    const summary = JSON.parse(cold.stdout) as { chunksAdded: number; sessions: number; turns: number };
    const peakRssKiB = peakKiB(rssFile);
    const warm = await run(["index", "--json"], env);
    const warmSummary = JSON.parse(warm.stdout) as { chunksAdded: number };

    const store = await LocalStore.open(join(funesHome, "memory"));
    if (store === null) throw new Error("no memory written");
    const stats = await store.stats();
    const texts = await store.table.query().select(["text"]).toArrow();
    let textBytes = 0;
    for (const v of texts.getChild("text") ?? []) textBytes += Buffer.byteLength(String(v));
    const diskBytes = Number(
      execFileSync("du", ["-sb", join(funesHome, "memory")])
        .toString()
        .split("\t")[0],
    );
    const queries = [
      "lance",
      "deadlock",
      "portfolio website",
      "session compaction",
      "typescript error",
      "git commit",
      "earth texture",
      "npm install",
      "reranker latency",
      "thinking level",
      "extension api",
      "file not found",
    ];
    for (const q of queries) await keywordSearch(store.table, { query: q, limit: 30 }); // warm up
    const lat: number[] = [];
    for (let round = 0; round < 10; round++)
      for (const q of queries) {
        const t0 = performance.now();
        await keywordSearch(store.table, { query: q, limit: 30 });
        lat.push(performance.now() - t0);
      }
    store.close();
    // Backfill of the whole history with the tiny test model: what the pipeline itself costs in memory
    // (pending-row list, ordering, merge writes) at 100k rows, independent of model size.
    const tinyHub = join(dir, "tiny-hub");
    writeTestModels(tinyHub);
    const fill = await run(["index", "--yes", "--json"], { ...env, HF_HUB_CACHE: tinyHub });
    const fillSummary = JSON.parse(fill.stdout) as { vectors: { embedded: number; seconds: number } };
    const fillRss = peakKiB(rssFile);
    // Exact (flat) vector search over every row: the local table keeps no ANN index below this size.
    const vstore = await LocalStore.open(join(funesHome, "memory"));
    if (vstore === null) throw new Error("no memory");
    const probe = (
      await vstore.table.query().where("vector IS NOT NULL").select(["vector"]).limit(20).toArray()
    ).map((r) => Float32Array.from(r.vector as Iterable<number>));
    const vlat: number[] = [];
    for (const v of [...probe, ...probe]) {
      const t0 = performance.now();
      await vstore.table.query().nearestTo(v).distanceType("dot").select(["id"]).limit(30).toArray();
      vlat.push(performance.now() - t0);
    }
    vstore.close();
    // A first run's default one-minute backfill with the bge-small-shaped model on the example history.
    ensureBenchModels();
    const exHome = join(ROOT, "examples", "home");
    const exFunes = join(dir, "examples-funes");
    await run(["index", "--json"], { HOME: exHome, FUNES_HOME: exFunes, HF_HUB_CACHE: join(dir, "none") });
    const real = await run(["index", "--json"], {
      HOME: exHome,
      FUNES_HOME: exFunes,
      HF_HUB_CACHE: BENCH_HUB,
      BENCH_RSS_FILE: rssFile,
    });
    const realSummary = JSON.parse(real.stdout) as {
      vectors: { embedded: number; remaining: number; seconds: number };
    };
    const realRss = peakKiB(rssFile);

    const recallCli: number[] = [];
    for (let i = 0; i < 5; i++)
      recallCli.push((await run(["recall", "compaction summary", "-k", "8"], env)).ms);

    const rows: Row[] = [
      ["history", `${files} files, ${summary.sessions} sessions, ${summary.turns} turns`, ""],
      ["chunks indexed (cold run)", String(summary.chunksAdded), "≥ 100,000"],
      ["index wall time (cold, whole CLI)", `${(cold.ms / 1000).toFixed(2)} s`, ""],
      [
        "text-first throughput",
        `${Math.round(summary.chunksAdded / (cold.ms / 1000))} chunks/s`,
        "≥ 3,000 chunks/s",
      ],
      ["peak RSS (cold index)", `${(peakRssKiB / 1024).toFixed(0)} MiB`, "≤ 1.5 GB"],
      [
        "rerun (nothing changed)",
        `${(warm.ms / 1000).toFixed(2)} s, ${warmSummary.chunksAdded} chunks added`,
        "0 added",
      ],
      [
        "disk bytes per chunk",
        `${Math.round(diskBytes / stats.chunks)} B (${(diskBytes / 1048576).toFixed(1)} MiB total)`,
        "",
      ],
      [
        "  raw text bytes per chunk (for scale)",
        `${Math.round(textBytes / stats.chunks)} B; replicas compress across copies`,
        "",
      ],
      ["Lance fragments", String(stats.fragments), "few"],
      [
        "keyword query p50 / p95 (in process, top 30)",
        `${pct(lat, 50).toFixed(1)} / ${pct(lat, 95).toFixed(1)} ms`,
        "",
      ],
      ["`funes recall` CLI p50 (process start to exit)", `${pct(recallCli, 50).toFixed(0)} ms`, ""],
      [
        "backfill of all rows, tiny model (pipeline cost)",
        `${fillSummary.vectors.embedded} vectors in ${fillSummary.vectors.seconds.toFixed(1)} s, peak RSS ${(fillRss / 1024).toFixed(0)} MiB`,
        "≤ 1.5 GB",
      ],
      [
        "flat vector search, all rows, top 30 (p50 / p95)",
        `${pct(vlat, 50).toFixed(0)} / ${pct(vlat, 95).toFixed(0)} ms`,
        "",
      ],
      [
        "default 60 s backfill, bge-small-shaped fp32",
        `${realSummary.vectors.embedded} vectors (${(realSummary.vectors.embedded / realSummary.vectors.seconds).toFixed(1)}/s), peak RSS ${(realRss / 1024).toFixed(0)} MiB`,
        "≤ 1.5 GB",
      ],
    ];
    rows.push(...(await benchRedact()));
    rows.push(...(await benchRecall(funesHome, home, BENCH_HUB, join(dir, "none"))));
    rows.push(...(await benchRemote({ home, funesHome, tinyHub, benchHub: BENCH_HUB, dir })));
    rows.push(...(await benchLargeTranscript()));
    rows.push(...benchQuadraticInputs());
    rows.push(...(await benchHooks()));
    rows.push(...(await benchModels()));
    rows.push(...(await benchLatency(dir)));
    printRows("funes benchmark — local index (text first), vectors and models", rows);
    process.stdout.write(await benchQuality(dir));
    // What forgetting one session costs (its own script: it builds a published-layout memory).
    const forget = execFileSync(
      process.execPath,
      ["--import", "tsx", join(ROOT, "bench", "forget-bench.ts")],
      {
        env: { ...process.env, LANCEDB_LOG: "error" },
      },
    ).toString();
    process.stdout.write(`\nfunes benchmark — forget\n${forget.replace(/^/gm, "  ")}`);
    process.stdout.write(`\nfunes benchmark — a team's year on one Hub memory\n${teamYear()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
