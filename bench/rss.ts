/**
 * Peak RSS of a benchmarked CLI run, from the lines bench/rss-probe.cjs appends: one per process, the CLI's
 * own last (it exits after its workers). `funes index` on a large memory runs its backfill in worker
 * processes one at a time while it waits, so the run's peak is at most its own plus its largest worker's.
 */
import { readFileSync, rmSync } from "node:fs";

/** The peaks of one run, KiB; the file is removed so the next run starts afresh. */
export interface RunPeak {
  /** The CLI process's own peak plus its largest worker's (0 without workers). */
  kib: number;
  mainKiB: number;
  workerKiB: number;
  workers: number;
}

export function readPeak(file: string): RunPeak {
  const peaks = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => Number(l.split(" ")[1]));
  rmSync(file, { force: true });
  const mainKiB = peaks.at(-1) ?? Number.NaN;
  const others = peaks.slice(0, -1);
  const workerKiB = others.length > 0 ? Math.max(...others) : 0;
  return { kib: mainKiB + workerKiB, mainKiB, workerKiB, workers: others.length };
}

/** `readPeak(file).kib`. */
export function peakKiB(file: string): number {
  return readPeak(file).kib;
}

/** "1234 MiB", or "1234 MiB (funes 345 + largest of 9 workers 889)" when it ran workers. */
export function peakText(p: RunPeak): string {
  const mib = (k: number) => (k / 1024).toFixed(0);
  return p.workers === 0
    ? `${mib(p.kib)} MiB`
    : `${mib(p.kib)} MiB (funes ${mib(p.mainKiB)} + largest of ${p.workers} workers ${mib(p.workerKiB)})`;
}
