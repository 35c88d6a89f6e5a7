/**
 * Recall figures for `npm run bench`: in-process (warm models, as the MCP server runs) with rerank at the
 * default budget, without rerank, keyword-only; and the MCP server's start-to-tool-list time and a warm MCP
 * recall, over the benchmark's 100k-chunk memory with the same-shape models.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  DEFAULT_RERANK_BUDGET_MS,
  localMemoryFor,
  ModelSession,
  recall,
  recallOptions,
} from "../src/commands/index.js";
import { CLI } from "../test/helpers/cli.js";
import type { Row } from "./models-bench.js";

const QUERIES = [
  "why does the theme file watcher crash",
  "how do we publish a release",
  "portfolio website for a graphic designer",
  "markdown rendering of code blocks",
  "session compaction summary",
  "fix the failing typescript build",
  "thinking level cycling",
  "git tag and push",
  "earth digital twin textures",
  "oauth login flow",
  "keyboard shortcuts in the editor",
  "npm install errors",
];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

/** Recall latencies (ms) over the bench's questions, twice each, after one warm-up. */
export async function timeRecalls(
  funesHome: string,
  home: string,
  models: ModelSession,
  budget: number,
): Promise<number[]> {
  const memory = { memory: localMemoryFor(undefined, { funesHome, home }), notes: [] };
  const opts = (query: string) => recallOptions(query, Date.now(), { rerankBudgetMs: budget });
  await recall(memory, opts("warm up the models"), models);
  const out: number[] = [];
  for (let round = 0; round < 2; round++)
    for (const q of QUERIES) {
      const t0 = performance.now();
      await recall(memory, opts(q), models);
      out.push(performance.now() - t0);
    }
  return out;
}

/** Runs the recall benchmarks against a memory under `funesHome`, models from `hubCache`. */
export async function benchRecall(
  funesHome: string,
  home: string,
  hubCache: string,
  emptyCache: string,
): Promise<Row[]> {
  const cfg = { hubCache, reranker: "ms-marco-MiniLM-L-6-v2", threads: 2, hubUrl: "http://127.0.0.1:9" };
  const models = new ModelSession(cfg);
  const withRerank = await timeRecalls(funesHome, home, models, DEFAULT_RERANK_BUDGET_MS);
  const noRerank = await timeRecalls(funesHome, home, models, 0);
  await models.close();
  const bare = new ModelSession({ ...cfg, hubCache: emptyCache });
  const keyword = await timeRecalls(funesHome, home, bare, 0);
  await bare.close();

  // Start time: the median of five spawns (one is at the mercy of whatever else the machine is doing).
  const starts: number[] = [];
  const spawnServer = async () => {
    const t0 = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: { PATH: process.env.PATH ?? "", HOME: home, FUNES_HOME: funesHome, HF_HUB_CACHE: hubCache },
      stderr: "ignore",
    });
    const c = new Client({ name: "funes-bench", version: "0" });
    await c.connect(transport);
    await c.listTools();
    starts.push(performance.now() - t0);
    return c;
  };
  for (let i = 0; i < 4; i++) await (await spawnServer()).close();
  const client = await spawnServer();
  const startMs = pct(starts, 50);
  await client.callTool({ name: "recall", arguments: { query: "warm up" } });
  const mcp: number[] = [];
  for (const q of QUERIES) {
    const t1 = performance.now();
    await client.callTool({ name: "recall", arguments: { query: q } });
    mcp.push(performance.now() - t1);
  }
  await client.close();
  const f = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)} ms`;
  return [
    [
      `recall p50 / p95, rerank budget ${DEFAULT_RERANK_BUDGET_MS} ms (warm, 100k chunks)`,
      f(withRerank),
      "p50 ≤ 1,000 ms",
    ],
    ["recall p50 / p95, no rerank", f(noRerank), "p50 ≤ 150 ms"],
    ["recall p50 / p95, keyword-only (no models)", f(keyword), "p50 ≤ 50 ms"],
    ["MCP server start to first tool list (p50 of 5)", `${startMs.toFixed(0)} ms`, "≤ 400 ms"],
    ["MCP recall, warm (p50 / p95)", f(mcp), ""],
  ];
}
