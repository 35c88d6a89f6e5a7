/**
 * Retrieval quality in every recall mode, on generated corpora (test/helpers/quality-corpus.ts): an old
 * answer among newer sessions sharing its common words, an answer only the vector leg can relate, a
 * decision revised later, an answer inside tool output, and the same spread over several memories. The
 * quick version of the benchmark's table (`npm run bench`), with the floors; then the same old
 * answer as a newcomer meets it (no models) through the CLI and through the MCP server.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { writeQualityCorpus } from "../helpers/quality-corpus.js";
import { evaluateQuality, type QualityScore } from "../helpers/quality-eval.js";

let t: { dir: string; cleanup: () => void };
let scores: QualityScore[];

const get = (kind: string, mode: string) => {
  const s = scores.find((x) => x.kind === kind && x.mode === mode);
  if (s === undefined) throw new Error(`no score for ${kind}/${mode}`);
  return s;
};

beforeAll(async () => {
  t = tempDir();
  const empty = join(t.dir, "no-models");
  mkdirSync(empty);
  scores = await evaluateQuality({
    dir: join(t.dir, "eval"),
    seed: 20261130,
    perKind: 8,
    kinds: ["old", "reworded", "revised", "tool"],
    distractors: 10,
    models: {
      hubCache: TEST_HUB_CACHE,
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 1,
      hubUrl: "http://127.0.0.1:9",
    },
    emptyHubCache: empty,
    modes: ["bm25", "keyword", "hybrid", "rerank", "federated"],
    rerankBudgetMs: 60_000,
  });
}, 180_000);
afterAll(() => t.cleanup());

describe("recall quality at default flags", () => {
  it("keyword-only and hybrid+rerank find old answers, revisions and tool output (Recall@5 ≥ 0.95)", () => {
    for (const kind of ["old", "revised", "tool"])
      for (const mode of ["keyword", "rerank", "federated"])
        expect(get(kind, mode).r5, `${kind}/${mode}`).toBeGreaterThanOrEqual(0.95);
  });

  it("no mode ranks old answers below plain BM25 without recency", () => {
    const base = get("old", "bm25");
    for (const mode of ["keyword", "hybrid", "rerank", "federated"]) {
      expect(get("old", mode).r5, mode).toBeGreaterThanOrEqual(base.r5);
      expect(get("old", mode).r1, mode).toBeGreaterThanOrEqual(base.r1 - 0.25);
    }
  });

  it("puts the revision above the decision it revised more often than not", () => {
    // Plain BM25 prefers the shorter original every time; recency among near-equals turns that round.
    expect(get("revised", "bm25").r1).toBeLessThan(0.5);
    expect(get("revised", "keyword").r1).toBeGreaterThanOrEqual(0.75);
    expect(get("revised", "rerank").r1).toBeGreaterThanOrEqual(0.5);
  });

  it("finds with the vector leg what BM25 cannot match", () => {
    expect(get("reworded", "bm25").r5).toBe(0);
    expect(get("reworded", "hybrid").r5).toBeGreaterThan(0.25);
    expect(get("reworded", "rerank").r5).toBeGreaterThan(0.25);
  });
});

describe("an old answer, before any model is present", () => {
  let u: CliEnv;
  let question: string;
  let answer: string;

  beforeAll(async () => {
    const corpus = writeQualityCorpus({
      dir: join(t.dir, "newcomer"),
      seed: 7,
      perKind: 1,
      kinds: ["old"],
      distractors: 20,
      memories: 1,
      now: Date.now(),
    });
    const c = corpus.cases[0];
    if (c === undefined) throw new Error("no case");
    question = c.query;
    answer = c.answerSession;
    const home = corpus.homes[0] as string;
    u = { home, funesHome: join(home, ".funes"), extra: { HF_HUB_CACHE: join(t.dir, "no-models") } };
    const r = await runFunes(["index"], u);
    expect(r.code, r.stderr).toBe(0);
  });

  it("comes first from the CLI, with a score that is not 0 and JSON that says how it was found", async () => {
    const r = await runFunes(["recall", question, "--json"], u);
    expect(r.code, r.stderr).toBe(0);
    const hits = (
      JSON.parse(r.stdout) as {
        hits: { sessionId: string; score: number; relevance: number; recency: number; legs: string[] }[];
      }
    ).hits;
    expect(hits[0]?.sessionId).toBe(answer);
    expect(hits[0]?.legs).toEqual(["keyword"]);
    for (const h of hits) {
      expect(h.score).toBeGreaterThan(0.0005);
      expect(h.score).toBeCloseTo(h.relevance * h.recency, 9);
    }
    const text = await runFunes(["recall", question], u);
    expect(text.stdout).not.toMatch(/score=0\.000/);
    expect(text.stdout.split("\n").find((l) => l.startsWith("  → get "))).toContain(answer);
  });

  it("comes first from the MCP recall tool", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: u.home,
        FUNES_HOME: u.funesHome,
        FUNES_SERVER: "0",
        HF_HUB_CACHE: join(t.dir, "no-models"),
        HF_ENDPOINT: "http://127.0.0.1:9",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "funes-test", version: "0" });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: "recall", arguments: { query: question } })) as {
        content: { text: string }[];
      };
      const first = (r.content[0]?.text ?? "").split("\n").find((l) => l.startsWith("  → get "));
      expect(first).toContain(answer);
    } finally {
      await client.close();
    }
  });
});
