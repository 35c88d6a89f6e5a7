/**
 * The text-first pass on real transcripts (`npm run bench -- --real`, and part of `--scale`): the real
 * public sessions of `test/fixtures/traces/corpus/` (long Claude Code, Codex and pi sessions with large tool
 * outputs) replicated under new ids to ≈ BENCH_REAL_MB megabytes (default 100), beside the fixture
 * sessions replicated to the same size. For each: a cold `funes index` with no models (text only, the
 * full-text index included), chunks/s, input MB/s and peak RSS. Alternates the two, BENCH_REAL_RUNS times
 * each (default 2), and prints the median: the machine may be shared.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeRealHistory, writeSyntheticHistory } from "../test/helpers/synth.js";
import type { Row } from "./models-bench.js";
import { peakKiB } from "./rss.js";

/** Bytes one replica of the fixture sessions writes (their six files). */
const FIXTURE_COPY_BYTES = 1_039_647;

interface Pass {
  ms: number;
  chunks: number;
  bytes: number;
  rssKiB: number;
}

function indexOnce(home: string, work: string): Promise<Pass> {
  const funesHome = join(work, "funes");
  const rssFile = join(work, "rss");
  rmSync(funesHome, { recursive: true, force: true });
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, "index", "--json"],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        FUNES_HOME: funesHome,
        HF_HUB_CACHE: join(work, "no-models"),
        LANCE_CPU_THREADS: "2",
        FUNES_SERVER: "0",
        BENCH_RSS_FILE: rssFile,
      },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((resolve, reject) =>
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`funes index exited ${code}`));
      const s = JSON.parse(stdout) as { chunksAdded: number; bytesRead: number };
      resolve({
        ms: performance.now() - t0,
        chunks: s.chunksAdded,
        bytes: s.bytesRead,
        rssKiB: peakKiB(rssFile),
      });
    }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function describe(runs: Pass[]): string {
  const ms = median(runs.map((r) => r.ms));
  const r = runs[0] as Pass;
  const spread = runs.map((x) => (x.ms / 1000).toFixed(1)).join(" / ");
  return `${r.chunks} chunks, ${(r.bytes / 1048576).toFixed(0)} MB: ${Math.round(r.chunks / (ms / 1000))} chunks/s, ${(r.bytes / 1048576 / (ms / 1000)).toFixed(1)} MB/s (${spread} s), peak RSS ${Math.round(median(runs.map((x) => x.rssKiB)) / 1024)} MiB`;
}

/** Rows: the text pass on replicated real transcripts and on fixture replicas of the same size. */
export async function benchRealCorpus(dir: string): Promise<Row[]> {
  const target = Number(process.env.BENCH_REAL_MB ?? 100) * 1_000_000;
  const runs = Number(process.env.BENCH_REAL_RUNS ?? 2);
  const realHome = join(dir, "real-home");
  const fixtureHome = join(dir, "fixture-home");
  const work = join(dir, "real-work");
  mkdirSync(work, { recursive: true });
  const real = writeRealHistory(realHome, target);
  const fixture = writeSyntheticHistory(fixtureHome, Math.ceil(target / FIXTURE_COPY_BYTES));
  const passes: { real: Pass[]; fixture: Pass[] } = { real: [], fixture: [] };
  for (let i = 0; i < runs; i++) {
    passes.real.push(await indexOnce(realHome, work));
    passes.fixture.push(await indexOnce(fixtureHome, work));
  }
  return [
    ["text pass, real transcripts replicated", `${describe(passes.real)}; ${real.files} files`, ""],
    ["text pass, fixture sessions replicated", `${describe(passes.fixture)}; ${fixture.files} files`, ""],
  ];
}
