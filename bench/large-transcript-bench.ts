/**
 * One generated 50 MB Claude Code transcript through `funes index` (text pass only, no embedder): chunks,
 * wall time and the process's peak RSS (goal < 500 MiB). A single large file is the case where reading a
 * whole transcript at once would show: the reference's own run peaked at 414 MiB.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import { writeLargeClaudeTranscript } from "../test/helpers/large-transcript.js";
import type { Row } from "./models-bench.js";
import { peakKiB } from "./rss.js";

/** Indexes the transcript in a fresh FUNES_HOME and reports chunks, seconds and peak RSS. */
export async function benchLargeTranscript(mib = 50): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "funes-bench-large-"));
  try {
    const project = join(dir, "home", ".claude", "projects", "-home-dev-app");
    mkdirSync(project, { recursive: true });
    const file = join(project, "large-session.jsonl");
    const made = writeLargeClaudeTranscript(file, mib * 1024 * 1024);
    const rssFile = join(dir, "rss");
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, "index", file, "--json"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: join(dir, "home"),
          FUNES_HOME: join(dir, "funes"),
          BENCH_RSS_FILE: rssFile,
          // No models: the text pass alone, which is where a large file's memory goes.
          HF_HUB_CACHE: join(dir, "no-models"),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    const code = await new Promise((r) => child.on("close", r));
    const seconds = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`index of the large transcript failed (${String(code)})`);
    const s = JSON.parse(stdout) as { chunksAdded: number };
    const rss = peakKiB(rssFile) / 1024;
    return [
      [
        `one ${(made.bytes / 1048576).toFixed(0)} MB transcript (text pass)`,
        `${s.chunksAdded} chunks in ${seconds.toFixed(1)} s, peak RSS ${rss.toFixed(0)} MiB`,
        "peak RSS < 500 MiB",
      ],
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("large-transcript-bench.ts"))
  for (const [k, v, goal] of await benchLargeTranscript())
    process.stdout.write(`${k}: ${v} (goal ${goal})\n`);
