/**
 * Hub figures for `npm run bench`, against the loopback Hub stand-in: publishing the 100k-chunk memory,
 * then N new chunks onto it (bytes should follow N, with nothing downloaded), and recall from the published
 * memory cold (files fetched), warm (head unchanged), and from the local memory, with the same models.
 */

import { spawn } from "node:child_process";
import { join } from "node:path";
import {
  DEFAULT_RERANK_BUDGET_MS,
  localMemoryFor,
  ModelSession,
  openReadTarget,
  readWith,
  recall,
  recallMemories,
  recallOptions,
} from "../src/commands/index.js";
import { runFunes } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeSyntheticHistory } from "../test/helpers/synth.js";
import type { Row } from "./models-bench.js";

const QUERIES = [
  "theme file watcher",
  "publish a release",
  "session compaction summary",
  "oauth login flow",
  "npm install errors",
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

/** Runs the Hub benchmarks on the memory under `funesHome` (vectors from `tinyHub`'s embedder). */
export async function benchRemote(o: {
  home: string;
  funesHome: string;
  tinyHub: string;
  benchHub: string;
  dir: string;
}): Promise<Row[]> {
  const server = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "hub-server.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) =>
    server.stdout.once("data", (d) => resolve(String(d).trim())),
  );
  const stats = async () =>
    (await (await fetch(`${url}/__stats`)).json()) as { requests: number; paths: string[] };
  const hub = { url };
  try {
    const env = {
      home: o.home,
      funesHome: o.funesHome,
      extra: { HF_HUB_CACHE: o.tinyHub, HF_ENDPOINT: hub.url, HF_TOKEN: "hf_benchtokenfortheloopbackhub" },
    };
    let t0 = performance.now();
    const first = await runFunes(["push", "bench/memory", "--create", "--json"], env);
    if (first.code !== 0) throw new Error(`push failed: ${first.stderr}`);
    const firstMs = performance.now() - t0;
    const s1 = JSON.parse(first.stdout) as { published: number; bytes: number };
    writeSyntheticHistory(o.home, 1, 9000);
    await runFunes(["index", "--yes"], env);
    const gets0 = (await stats()).requests;
    t0 = performance.now();
    const second = await runFunes(["push", "bench/memory", "--json"], env);
    const secondMs = performance.now() - t0;
    const s2 = JSON.parse(second.stdout) as { published: number; bytes: number };
    const downloads = (await stats()).paths
      .slice(gets0 + 1)
      .filter((p) => p.includes("/resolve/") && p.includes("chunks.lance")).length;

    // Recall: local vs the published memory read from an empty FUNES_HOME.
    const models = new ModelSession({
      hubCache: o.benchHub,
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 2,
      hubUrl: hub.url,
      token: "hf_benchtokenfortheloopbackhub",
    });
    const readerCtx = {
      funesHome: join(o.dir, "reader"),
      home: o.home,
      models: { ...models.config, hubCache: join(o.dir, "reader-hf") },
    };
    const opts = (query: string) =>
      recallOptions(query, Date.now(), { rerankBudgetMs: DEFAULT_RERANK_BUDGET_MS });
    const local = { memory: localMemoryFor(undefined, { funesHome: o.funesHome, home: o.home }), notes: [] };
    await recall(local, opts("warm up"), models);
    t0 = performance.now();
    const coldTarget = await openReadTarget("bench/memory", {
      ...readerCtx,
      models: { ...readerCtx.models, hubCache: join(o.dir, "reader-hf") },
    });
    await recall(coldTarget, opts(QUERIES[0] as string), models);
    const coldMs = performance.now() - t0;
    const localMs: number[] = [];
    const warmMs: number[] = [];
    let warmRequests = 0;
    for (let round = 0; round < 2; round++)
      for (const q of QUERIES) {
        let t = performance.now();
        await recall(local, opts(q), models);
        localMs.push(performance.now() - t);
        const before = (await stats()).requests;
        t = performance.now();
        await readWith(await openReadTarget("bench/memory", readerCtx), (target) =>
          recall(target, opts(q), models),
        );
        warmMs.push(performance.now() - t);
        warmRequests = (await stats()).requests - before - 1;
      }
    // Federated: the local memory plus two cached remotes of the same size, against the local one alone.
    const copy = await runFunes(["push", "bench/memory2", "--create", "--yes", "--json"], env);
    if (copy.code !== 0) throw new Error(`push failed: ${copy.stderr}`);
    const specs = [join(o.funesHome, "memory"), "bench/memory", "bench/memory2"];
    await recallMemories(specs, opts("warm up"), readerCtx, models);
    const fed = { rerank: [] as number[], plain: [] as number[] };
    const solo = { rerank: [] as number[], plain: [] as number[] };
    for (let round = 0; round < 4; round++)
      for (const q of QUERIES)
        for (const kind of ["rerank", "plain"] as const) {
          const o = kind === "rerank" ? opts(q) : recallOptions(q, Date.now(), { rerankBudgetMs: 0 });
          let t = performance.now();
          await recall(local, o, models);
          solo[kind].push(performance.now() - t);
          t = performance.now();
          await recallMemories(specs, o, readerCtx, models);
          fed[kind].push(performance.now() - t);
        }
    await models.close();
    const ratio = (kind: "rerank" | "plain") =>
      `${median(fed[kind]).toFixed(0)} ms vs ${median(solo[kind]).toFixed(0)} ms for the local one alone (${(median(fed[kind]) / median(solo[kind])).toFixed(2)}x)`;
    return [
      ["federated recall, local + 2 cached remotes of 100k (p50)", ratio("rerank"), "≤ 1.5x"],
      ["  the same without rerank", ratio("plain"), ""],
      [
        "push of the whole memory (first publish)",
        `${s1.published} chunks, ${(s1.bytes / 1048576).toFixed(1)} MiB, ${(firstMs / 1000).toFixed(1)} s`,
        "",
      ],
      [
        `push of ${s2.published} new chunks onto it`,
        `${(s2.bytes / 1024).toFixed(0)} KiB (${Math.round(s2.bytes / s2.published)} B/chunk), ${(secondMs / 1000).toFixed(1)} s, ${downloads} data files downloaded`,
        "∝ N, no full download",
      ],
      ["remote recall, cold (files fetched into the cache)", `${(coldMs / 1000).toFixed(2)} s`, ""],
      [
        "remote recall warm vs local (p50)",
        `${median(warmMs).toFixed(0)} ms vs ${median(localMs).toFixed(0)} ms (${(median(warmMs) / median(localMs)).toFixed(2)}x)`,
        "warm ≤ 1.1x local",
      ],
      ["requests made by a warm remote recall", String(warmRequests), "1"],
    ];
  } finally {
    server.stdin.end();
  }
}
