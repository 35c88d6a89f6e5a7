/**
 * Peak RSS of a benchmarked CLI run, from the lines bench/rss-probe.cjs appends: one per process, the CLI's
 * own last (it exits after its workers). `funes index` on a large memory runs its backfill in worker
 * processes one at a time while it waits: the run's peak is what they hold together, sampled over the
 * process group (`groupRssSampler`); without a sample, the CLI's own peak plus its largest worker's bounds it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";

/** The peaks of one run, KiB; the file is removed so the next run starts afresh. */
export interface RunPeak {
  /** The run's peak: its processes together (sampled), never less than any one's own peak. */
  kib: number;
  mainKiB: number;
  workerKiB: number;
  workers: number;
}

export function readPeak(file: string, sampledKiB?: number): RunPeak {
  const peaks = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => Number(l.split(" ")[1]));
  rmSync(file, { force: true });
  const mainKiB = peaks.at(-1) ?? Number.NaN;
  const others = peaks.slice(0, -1);
  const workerKiB = others.length > 0 ? Math.max(...others) : 0;
  const kib = sampledKiB === undefined ? mainKiB + workerKiB : Math.max(sampledKiB, mainKiB, workerKiB);
  return { kib, mainKiB, workerKiB, workers: others.length };
}

/** `readPeak(file).kib`. */
export function peakKiB(file: string, sampledKiB?: number): number {
  return readPeak(file, sampledKiB).kib;
}

/**
 * Samples the summed RSS of process group `pgid` (a CLI spawned detached, and the workers it starts) every
 * 200 ms until stopped; returns the stop function, which gives the largest sum seen, KiB.
 */
export function groupRssSampler(pgid: number): () => number {
  let peak = 0;
  const sample = () => {
    try {
      const out = execFileSync("ps", ["-o", "rss=", "-g", String(pgid)], { encoding: "utf8" });
      peak = Math.max(
        peak,
        out.split("\n").reduce((s, l) => s + (Number(l.trim()) || 0), 0),
      );
    } catch {
      // the group is gone
    }
  };
  const timer = setInterval(sample, 200);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

/** "1234 MiB", or with its workers' part when it ran some. */
export function peakText(p: RunPeak): string {
  const mib = (k: number) => (k / 1024).toFixed(0);
  return p.workers === 0
    ? `${mib(p.kib)} MiB`
    : `${mib(p.kib)} MiB together (funes itself ≤ ${mib(p.mainKiB)}, the largest of its ${p.workers} workers ${mib(p.workerKiB)})`;
}
