/**
 * What a person and an agent wait for (issue 17): `funes recall` from a shell (keyword-only, with models
 * loaded in the process, with the shared model server warm) beside `node -e ''`, the floor of any Node
 * CLI; and a warm MCP server's recall at 16k chunks, keyword-only and hybrid without rerank, through a real
 * MCP client. Vectors come from the tiny test embedder (same width); queries are embedded by the
 * bench-shaped bge-small, so the query's cost is real.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeTestModels } from "../scripts/make-models.js";
import { CLI } from "../test/helpers/cli.js";
import { writeSyntheticHistory } from "../test/helpers/synth.js";
import { BENCH_HUB, ensureBenchModels, type Row } from "./models-bench.js";

const QUERIES = [
  "why does the theme file watcher crash",
  "how do we publish a release",
  "portfolio website for a graphic designer",
  "session compaction summary",
  "fix the failing typescript build",
  "git tag and push",
];

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function wall(cmd: string[], env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, cmd, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: "ignore",
  });
  return new Promise((resolve) => child.on("close", () => resolve(performance.now() - t0)));
}

async function shellP50(cmd: string[], env: Record<string, string>, runs = 5): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await wall(cmd, env));
  return p50(out);
}

/** A memory of `copies` replicas of the fixtures, every row with a (tiny-model) vector. */
function buildMemory(dir: string, copies: number, tinyHub: string): { home: string; funesHome: string } {
  const home = join(dir, "home");
  const funesHome = join(dir, "funes");
  writeSyntheticHistory(home, copies);
  execFileSync(process.execPath, [CLI, "index", "--yes", "--json"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      FUNES_HOME: funesHome,
      HF_HUB_CACHE: tinyHub,
      FUNES_SERVER: "0",
    },
    stdio: ["ignore", "ignore", "ignore"],
  });
  return { home, funesHome };
}

async function mcpP50(env: Record<string, string>): Promise<number> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    env: { PATH: process.env.PATH ?? "", FUNES_SERVER: "0", ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "funes-bench", version: "0" });
  await client.connect(transport);
  try {
    for (const q of QUERIES) await client.callTool({ name: "recall", arguments: { query: q } });
    const out: number[] = [];
    for (let round = 0; round < 3; round++)
      for (const q of QUERIES) {
        const t0 = performance.now();
        await client.callTool({ name: "recall", arguments: { query: q } });
        out.push(performance.now() - t0);
      }
    return p50(out);
  } finally {
    await client.close();
  }
}

/** Shell and MCP latency figures. */
export async function benchLatency(dir: string): Promise<Row[]> {
  ensureBenchModels();
  const tinyHub = join(dir, "latency-tiny");
  writeTestModels(tinyHub);
  const none = join(dir, "latency-none");
  // A cache holding only the embedder: hybrid recall with nothing to rerank.
  const embedderOnly = join(dir, "latency-embedder");
  mkdirSync(none, { recursive: true });
  cpSync(
    join(BENCH_HUB, "models--BAAI--bge-small-en-v1.5"),
    join(embedderOnly, "models--BAAI--bge-small-en-v1.5"),
    {
      recursive: true,
      verbatimSymlinks: true,
    },
  );

  const small = buildMemory(join(dir, "latency-2k"), 2, tinyHub);
  const env = { HOME: small.home, FUNES_HOME: small.funesHome, LANCE_CPU_THREADS: "2" };
  const recall = [CLI, "recall", "session compaction summary"];
  const floor = await shellP50(["-e", ""], {});
  const keyword = await shellP50(recall, { ...env, HF_HUB_CACHE: none, FUNES_SERVER: "0" });
  const cold = await shellP50(recall, { ...env, HF_HUB_CACHE: BENCH_HUB, FUNES_SERVER: "0" });
  const served = { ...env, HF_HUB_CACHE: BENCH_HUB, FUNES_SERVER: "1" };
  const first = await wall(recall, served);
  const warm = await shellP50(recall, served);
  // Different questions each time: nothing the server scored before.
  const fresh: number[] = [];
  for (const q of QUERIES.slice(1)) fresh.push(await wall([CLI, "recall", q], served));
  const warmNew = p50(fresh);
  const status = JSON.parse(
    execFileSync(process.execPath, [CLI, "server", "status", "--json"], {
      env: { PATH: process.env.PATH ?? "", ...served },
    }).toString(),
  ) as { rssBytes?: number };
  execFileSync(process.execPath, [CLI, "server", "stop"], {
    env: { PATH: process.env.PATH ?? "", ...served },
  });

  const mid = buildMemory(join(dir, "latency-16k"), 12, tinyHub);
  const mcpEnv = { HOME: mid.home, FUNES_HOME: mid.funesHome, LANCE_CPU_THREADS: "2" };
  const mcpKeyword = await mcpP50({ ...mcpEnv, HF_HUB_CACHE: none });
  const mcpHybrid = await mcpP50({ ...mcpEnv, HF_HUB_CACHE: embedderOnly });
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    ["`node -e ''` (the floor of any Node CLI, p50 of 5)", ms(floor), ""],
    ["`funes recall` from a shell, keyword-only (2.7k chunks)", ms(keyword), "≤ 350 ms"],
    ["`funes recall` from a shell, models loaded in-process", ms(cold), "≤ 2,000 ms"],
    ["`funes recall`, first call starting the model server", ms(first), ""],
    [
      "`funes recall`, model server warm, the same question again",
      `${ms(warm)} (server RSS ${((status.rssBytes ?? 0) / 1048576).toFixed(0)} MiB)`,
      "≤ 400 ms",
    ],
    ["`funes recall`, model server warm, a new question each time", ms(warmNew), ""],
    ["MCP recall p50, 16k chunks, keyword-only", ms(mcpKeyword), "≤ 15 ms"],
    ["MCP recall p50, 16k chunks, hybrid without rerank", ms(mcpHybrid), "≤ 35 ms"],
  ];
}
