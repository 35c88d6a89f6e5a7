/**
 * The echo rule from the other side (issues 38 and 40), on a real memory: copies that no tool name gives
 * away (funes run through `npx`, `node …/main.js` or an alias; a recalled passage written to a notes file
 * and read back; a passage pasted alone) never rank above the original they copy, round after round; and a
 * developer building a search tool of their own, whose sessions talk about recall, MCP and funes, loses
 * no row to the rule and finds each decision.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  indexSessions,
  localMemoryFor,
  ModelSession,
  recall,
  recallOptions,
} from "../../src/commands/index.js";
import { writeSearchDevCorpus } from "../helpers/echo-adversarial.js";
import { type LoopStyle, localLoopDeps, runEchoLoop } from "../helpers/echo-loop.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";

const MODELS = {
  hubCache: TEST_HUB_CACHE,
  reranker: "ms-marco-MiniLM-L-6-v2",
  threads: 1,
  hubUrl: "http://127.0.0.1:9",
};
const ROUNDS = 2;

let t: { dir: string; cleanup: () => void };
let bare: ModelSession;
let withModels: ModelSession;

beforeAll(() => {
  t = tempDir();
  bare = new ModelSession({ ...MODELS, hubCache: join(t.dir, "no-models") });
  withModels = new ModelSession(MODELS);
});

afterAll(async () => {
  await bare?.close();
  await withModels?.close();
  t?.cleanup();
});

describe("copies no command name gives away keep their originals first", () => {
  for (const style of ["shell", "notes", "paste"] as LoopStyle[])
    it(`${style}: each decision's original is the top hit after every round, keyword-only and reranked`, async () => {
      const home = join(t.dir, style);
      const ctx = { funesHome: join(home, ".funes"), home, models: MODELS };
      const { decisions, checkpoints } = await runEchoLoop(home, {
        seed: 3838,
        count: 6,
        lookalikes: 3,
        rounds: ROUNDS,
        at: [1, 2],
        style,
        deps: localLoopDeps(ctx, { bare, withModels }),
      });
      for (let round = 1; round <= ROUNDS; round++)
        for (const mode of ["keyword", "rerank"] as const)
          expect(checkpoints.get(round)?.ranks[mode], `${mode}, round ${round}`).toEqual(
            decisions.map(() => 0),
          );
    });
});

describe("a developer building a search tool", () => {
  it("loses no row to the echo rule, and each decision is in the top 5", async () => {
    const home = join(t.dir, "search-dev");
    const ctx = { funesHome: join(home, ".funes"), home, models: MODELS };
    const now = Date.parse("2026-11-30T18:00:00Z");
    const dev = writeSearchDevCorpus(home, { seed: 4040, now, lookalikes: 6 });
    await indexSessions({ thinking: true, vectorBudgetMs: null, now: () => now, ...ctx });
    for (const d of dev.decisions) {
      const r = await recall(
        { memory: localMemoryFor(undefined, ctx), notes: [] },
        recallOptions(d.query, now, { rerankBudgetMs: 0, k: 30 }),
        bare,
      );
      expect(r.hiddenEchoes ?? 0, d.query).toBe(0);
      expect(r.hits.filter((h) => h.kind !== "original").map((h) => h.text)).toEqual([]);
      expect(
        r.hits.slice(0, 5).some((h) => h.sessionId === d.sessionId),
        d.query,
      ).toBe(true);
    }
  });
});
