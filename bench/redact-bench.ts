/**
 * Secret-scan figures for `npm run bench`: the text pass's scan alone, in process, over the fixture
 * sessions' blocks (one scanner call per session, as `funes index` does), in chunks/s; and the same scan's
 * findings on those transcripts, which hold no credential (every finding is a false positive).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ALL_TIERS, chunkTurns } from "../src/chunk/index.js";
import { redactTexts } from "../src/redact/index.js";
import {
  parseClaudeTranscript,
  parseCodexRollout,
  parsePiSession,
  type Session,
} from "../src/traces/index.js";
import { TRACES } from "../test/helpers/fixtures.js";
import type { Row } from "./models-bench.js";

/** Every session of the fixture transcripts under `root` (claude/, codex/, pi/). */
export function fixtureSessions(root: string): Session[] {
  const parsers = { claude: parseClaudeTranscript, codex: parseCodexRollout, pi: parsePiSession } as const;
  const out: Session[] = [];
  for (const [dir, parse] of Object.entries(parsers)) {
    let files: string[] = [];
    try {
      files = readdirSync(join(root, dir)).filter((f) => f.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const f of files) {
      const path = join(root, dir, f);
      out.push(...parse(readFileSync(path, "utf8"), { path }).sessions);
    }
  }
  return out;
}

/** Scan throughput (chunks/s) and findings over the fixture sessions. */
export async function benchRedact(minMs = 3000): Promise<Row[]> {
  const sessions = fixtureSessions(TRACES);
  const texts = sessions.map((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text)));
  const chunks = sessions.reduce(
    (n, s) => n + chunkTurns(s.turns, { tiers: ALL_TIERS, thinking: true, repo: "" }).length,
    0,
  );
  let found = 0;
  for (const t of texts) {
    const r = await redactTexts(t);
    found += Object.values(r.counts).reduce((a, b) => a + b, 0);
  }
  let done = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  while (performance.now() - t0 < minMs) {
    for (const t of texts) await redactTexts(t);
    done += chunks;
  }
  const perS = done / ((performance.now() - t0) / 1000);
  const cpu = process.cpuUsage(cpu0);
  // CPU time too: on a shared machine the wall-clock figure moves with other processes' load.
  const perCpuS = done / ((cpu.user + cpu.system) / 1e6);
  // Inputs built to make regexes backtrack (long runs repeating a token's prefix, keys with no value…).
  const n = 200_000;
  const hostile = [
    "eyJ",
    "sk-",
    "token=",
    "http://a:",
    "-----BEGIN PRIVATE KEY-----\n",
    "password: ",
    "a",
    // the wrapped-secret pass and the held-out families: joined literals, base64, prefixes, name/value lists
    "'ab'+",
    "QUFB",
    "IQoJb3JpZ2luX2Vj",
    "mysql -p",
    "name: A_KEY value: ",
    // the red-team shapes: a separator before every long run, tools and cookies repeated, URL escapes
    "ab_cd1",
    "curl ",
    "zip ",
    "curl -b a=b; ",
    '"kty"',
    "%41",
  ].map((unit) => unit.repeat(Math.ceil(n / unit.length)));
  let worst = 0;
  for (const h of hostile) {
    const t1 = performance.now();
    await redactTexts([h]);
    worst = Math.max(worst, performance.now() - t1);
  }
  return [
    [
      "secret scan alone (text pass, in process)",
      `${Math.round(perS)} chunks/s (${Math.round(perCpuS)} per CPU-second)`,
      "≥ 10,000 chunks/s",
    ],
    ["  findings in the fixture transcripts (no credentials)", `${found} in ${chunks} chunks`, "≈ 0"],
    ["  slowest hostile 200 KB text (backtracking bait)", `${worst.toFixed(0)} ms`, "linear: well under 1 s"],
  ];
}
