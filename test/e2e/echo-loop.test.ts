/**
 * A memory that recalls from itself (test/helpers/echo-loop.ts): planted decisions, then rounds of agent
 * sessions in three agents' formats and eight spellings of the tool, each holding funes's real output for
 * its question at that moment, indexed after each round. After every round each decision's original must
 * still be the top hit, in keyword-only and reranked recall, and `ask`'s prompt must hold it; forgetting an
 * original must leave no recallable copy of it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  forgetRows,
  indexSessions,
  localMemoryFor,
  ModelSession,
  recall,
  recallOptions,
} from "../../src/commands/index.js";
import { openReader } from "../../src/memory/index.js";
import { pickNeighbors } from "../../src/search/index.js";
import { type Decision, type LoopCheckpoint, localLoopDeps, runEchoLoop } from "../helpers/echo-loop.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";

const MODELS = {
  hubCache: TEST_HUB_CACHE,
  reranker: "ms-marco-MiniLM-L-6-v2",
  threads: 1,
  hubUrl: "http://127.0.0.1:9",
};
const ROUNDS = 3;

let t: { dir: string; cleanup: () => void };
let bare: ModelSession;
let withModels: ModelSession;
let decisions: Decision[];
let now: number;
let ctx: { funesHome: string; home: string; models: typeof MODELS };
let checkpoints: Map<number, LoopCheckpoint>;

const target = () => ({ memory: localMemoryFor(undefined, ctx), notes: [] });
const index = () => indexSessions({ thinking: true, vectorBudgetMs: null, now: () => now, ...ctx });

beforeAll(async () => {
  t = tempDir();
  const home = join(t.dir, "home");
  ctx = { funesHome: join(home, ".funes"), home, models: MODELS };
  bare = new ModelSession({ ...MODELS, hubCache: join(t.dir, "no-models") });
  withModels = new ModelSession(MODELS);
  const loop = await runEchoLoop(home, {
    seed: 2828,
    count: 12,
    lookalikes: 4,
    rounds: ROUNDS,
    at: [0, 1, 2, 3],
    deps: localLoopDeps(ctx, { bare, withModels }),
  });
  ({ decisions, now, checkpoints } = loop);
}, 300_000);

afterAll(async () => {
  await bare?.close();
  await withModels?.close();
  t?.cleanup();
});

const ranksAt = (round: number, mode: "keyword" | "rerank") => checkpoints.get(round)?.ranks[mode];

describe("a memory that recalls from itself keeps its originals first", () => {
  it("each decision's original is the top hit before any recall was indexed", () => {
    for (const mode of ["keyword", "rerank"] as const)
      expect(ranksAt(0, mode), mode).toEqual(decisions.map(() => 0));
  });

  for (let round = 1; round <= ROUNDS; round++)
    it(`after round ${round} of indexed recalls, the original is still first`, () => {
      for (const mode of ["keyword", "rerank"] as const)
        expect(ranksAt(round, mode), mode).toEqual(decisions.map(() => 0));
      // The loop did grow: every round added echoes.
      expect(checkpoints.get(round)?.echoRows ?? 0).toBeGreaterThan(
        checkpoints.get(round - 1)?.echoRows ?? 0,
      );
    });

  it("with time for one batch of the cross-encoder, each original is still first", async () => {
    // A loaded machine: the budget runs out after the first batch, which must go to what can end on top,
    // not to the questions that repeat the query word for word.
    for (const d of decisions) {
      const r = await recall(target(), recallOptions(d.query, now, { rerankBudgetMs: 1, k: 8 }), withModels);
      expect(r.hits[0]?.sessionId, d.query).toBe(d.answerSession);
    }
  });

  it("the agents' own words would bury originals if they ranked as originals do", () => {
    // Measured, not assumed: after the rounds, the question put to memory or the agent's restatement is
    // more relevant than the original for some decisions; ordering them after originals is what keeps it first.
    expect(checkpoints.get(0)?.outscored).toBe(0);
    expect(checkpoints.get(ROUNDS)?.outscored ?? 0).toBeGreaterThan(0);
  });

  it("ask's prompt holds each decision's answer after every round", () => {
    for (let round = 0; round <= ROUNDS; round++)
      (checkpoints.get(round)?.prompts ?? []).forEach((p, i) => {
        expect(p, `round ${round}, decision ${i}`).toContain((decisions[i] as Decision).answer);
      });
  });

  it("the echoes are there, left out by default and shown on request", async () => {
    const d = decisions[0] as Decision;
    const plain = await recall(target(), recallOptions(d.query, now, { rerankBudgetMs: 0, k: 30 }), bare);
    expect(plain.hiddenEchoes ?? 0).toBeGreaterThan(0);
    expect(plain.hits.every((h) => h.kind !== "echo")).toBe(true);
    // The original counts the earlier recalls that quoted it.
    expect(plain.hits[0]?.echoes).toBeGreaterThanOrEqual(ROUNDS);
    // The question put to memory and the agent's restatement stay recallable, after the original.
    const kinds = plain.hits.map((h) => h.kind);
    expect(kinds).toContain("question");
    expect(kinds).toContain("restatement");
    expect(kinds.indexOf("question")).toBeGreaterThan(0);
    const shown = await recall(
      target(),
      recallOptions(d.query, now, { rerankBudgetMs: 0, k: 50, echoes: true }),
      bare,
    );
    expect(shown.hiddenEchoes ?? 0).toBe(0);
    expect(shown.hits.filter((h) => h.kind === "echo").length).toBeGreaterThanOrEqual(ROUNDS);
    expect(shown.hits[0]?.sessionId).toBe(d.answerSession);
  });

  it("forgetting an original leaves no recallable copy of it", async () => {
    const d = decisions[1] as Decision;
    const before = await recall(
      target(),
      recallOptions(d.query, now, { rerankBudgetMs: 0, k: 50, echoes: true }),
      bare,
    );
    expect(before.hits.filter((h) => h.text.includes(d.answer)).length).toBeGreaterThan(1);
    let copies = -1;
    const done = await forgetRows(
      {
        selectors: { sessions: [d.answerSession], turns: [], match: [], regex: false },
        purgeHistory: false,
        allowReindex: false,
        now: () => now,
        confirm: async (p) => {
          copies = p.preview.copies;
          return true;
        },
      },
      ctx,
    );
    expect(done.done).toBe(true);
    expect(copies).toBeGreaterThan(0);
    const after = await recall(
      target(),
      recallOptions(d.query, now, { rerankBudgetMs: 0, k: 50, echoes: true }),
      bare,
    );
    expect(after.hits.filter((h) => h.text.includes(d.answer)).map((h) => h.text)).toEqual([]);
    // A re-index does not bring the copies back.
    await index();
    const again = await recall(
      target(),
      recallOptions(d.query, now, { rerankBudgetMs: 0, k: 50, echoes: true }),
      bare,
    );
    expect(again.hits.filter((h) => h.text.includes(d.answer)).map((h) => h.text)).toEqual([]);
  });
});

describe("neighbours in a memory that recalls from itself", () => {
  it("shows each hit's neighbour turns as a direct read of them does (taken from the turns the echo check read)", async () => {
    const reader = await openReader(localMemoryFor(undefined, ctx));
    if (reader === null) throw new Error("no memory");
    let hidden = 0;
    for (const d of decisions) {
      const r = await recall(target(), recallOptions(d.query, now, { rerankBudgetMs: 0 }), bare);
      hidden += r.hiddenEchoes ?? 0;
      for (const h of r.hits) {
        const rows = await reader.around([{ sessionId: h.sessionId, from: h.seq - 1, to: h.seq + 1 }]);
        const direct = pickNeighbors(
          h,
          rows.filter((n) => n.harness === h.harness),
          1,
        ).map((n) => ({ role: n.role, blockType: n.blockType, seq: n.seq, text: n.text }));
        expect(h.neighbors).toEqual(direct);
      }
    }
    // Echoes were among the candidates, so the turns around them were read to classify them.
    expect(hidden).toBeGreaterThan(0);
  });
});
