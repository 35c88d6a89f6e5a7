/**
 * Generated large transcripts through `funes index` (text pass only, no embedder): chunks, wall time and the
 * process's peak RSS (goal < 500 MiB at 50 MB, and not growing with the session: a transcript is read a
 * turn at a time). One session per run, the case where reading a whole transcript at once would show: the
 * reference's own run peaked at 414 MiB at 50 MB.
 *
 * Also the parsers' cost on inputs built to be quadratic (a Qwen message in n pieces, n Gemini rewinds in a
 * session of n messages) at n and 4n: linear work takes about 4× as long.
 *
 * `node --import tsx bench/large-transcript-bench.ts [claude:100 codex:400 gemini:300 …] [quadratic]` picks the runs
 * (default `claude:50`) and adds the parsers' rows.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGeminiSession, parseQwenSession } from "../src/traces/index.js";
import { CLI } from "../test/helpers/cli.js";
import { ROOT } from "../test/helpers/fixtures.js";
import {
  writeLargeClaudeTranscript,
  writeLargeCodexRollout,
  writeLargeGeminiSession,
} from "../test/helpers/large-transcript.js";
import type { Row } from "./models-bench.js";
import { peakKiB } from "./rss.js";

/** A generated transcript's format. */
export type LargeFormat = "claude" | "codex" | "gemini";

/** Indexes one generated transcript in a fresh FUNES_HOME and reports chunks, seconds and peak RSS. */
export async function benchLargeTranscript(mib = 50, format: LargeFormat = "claude"): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "funes-bench-large-"));
  try {
    const home = join(dir, "home");
    const layouts: Record<LargeFormat, [string, string, typeof writeLargeClaudeTranscript]> = {
      claude: [
        join(home, ".claude", "projects", "-home-dev-app"),
        "large-session.jsonl",
        writeLargeClaudeTranscript,
      ],
      codex: [
        join(home, ".codex", "sessions", "2026", "01", "01"),
        "rollout-large.jsonl",
        writeLargeCodexRollout,
      ],
      gemini: [
        join(home, ".gemini", "tmp", "app", "chats"),
        "session-2026-01-01T00-00-1a2b3c4d.jsonl",
        writeLargeGeminiSession,
      ],
    };
    const [folder, name, write] = layouts[format];
    mkdirSync(folder, { recursive: true });
    const file = join(folder, name);
    const made = write(file, mib * 1024 * 1024);
    const rssFile = join(dir, "rss");
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ["--require", join(ROOT, "bench", "rss-probe.cjs"), CLI, "index", file, "--json"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
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
        `one ${(made.bytes / 1048576).toFixed(0)} MB ${format} transcript (text pass)`,
        `${s.chunksAdded} chunks in ${seconds.toFixed(1)} s, peak RSS ${rss.toFixed(0)} MiB`,
        "peak RSS < 500 MiB, flat in the session's size",
      ],
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds one parse of `text` takes. */
function timeParse(parse: () => unknown): number {
  const t0 = performance.now();
  parse();
  return (performance.now() - t0) / 1000;
}

/** The parsers on inputs that were quadratic, at n and 4n. */
export function benchQuadraticInputs(n = 20_000): Row[] {
  const qwen = (k: number) =>
    Array.from(
      { length: k },
      (_, i) =>
        `{"type":"assistant","uuid":"m","sessionId":"s","message":{"role":"model","parts":[{"text":"piece ${i}"}]}}`,
    ).join("\n");
  const gemini = (k: number) => {
    const lines = [`{"sessionId":"g","projectHash":"h","startTime":"t"}`];
    for (let i = 0; i < k; i++)
      lines.push(`{"id":"m${i}","type":"user","timestamp":"t","content":[{"text":"message ${i}"}]}`);
    for (let i = 0; i < k; i++)
      lines.push(`{"id":"r${i}","type":"user","timestamp":"t","content":"retry"}`, `{"$rewindTo":"r${i}"}`);
    return lines.join("\n");
  };
  const row = (what: string, make: (k: number) => string, parse: (text: string) => unknown): Row => {
    const [a, b] = [n, 4 * n].map((k) => {
      const text = make(k);
      return timeParse(() => parse(text));
    });
    return [
      `${what}, n = ${n} and ${4 * n}`,
      `${(a ?? 0).toFixed(2)} s and ${(b ?? 0).toFixed(2)} s (× ${((b ?? 0) / (a ?? 1)).toFixed(1)})`,
      "≈ × 4 (linear)",
    ];
  };
  return [
    row("a Qwen message in n pieces", qwen, (t) => parseQwenSession(t, { path: "/bench/s.jsonl" })),
    row("n Gemini rewinds among n messages", gemini, (t) =>
      parseGeminiSession(t, { path: "/bench/chats/session-1.jsonl" }),
    ),
  ];
}

if (process.argv[1]?.endsWith("large-transcript-bench.ts")) {
  const runs = process.argv.slice(2).filter((a) => /^(claude|codex|gemini):\d+$/.test(a));
  for (const run of runs.length > 0 ? runs : ["claude:50"]) {
    const [format, mib] = run.split(":") as [LargeFormat, string];
    for (const [k, v, goal] of await benchLargeTranscript(Number(mib), format))
      process.stdout.write(`${k}: ${v} (goal ${goal})\n`);
  }
  if (process.argv.includes("quadratic"))
    for (const [k, v, goal] of benchQuadraticInputs()) process.stdout.write(`${k}: ${v} (goal ${goal})\n`);
}
