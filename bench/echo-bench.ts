/**
 * A memory that recalls from itself (issue 28), for `npm run bench -- --quality`: 22 planted decisions, then
 * rounds of agent sessions (three agents' formats, eight spellings of the tool, funes's real output each
 * time) recalling each question, indexed after every round. Prints the original-first and top-5 rates after
 * 0, 1, 3 and 10 rounds (goal: unchanged), and the share of the memory's rows that are echoes. Then the
 * milder case: decisions 1–2 years old with newer look-alikes, answers in the top 5 beside plain BM25.
 */
import "./native-env.js";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { indexSessions, localMemoryFor, ModelSession, recall, recallOptions } from "../src/commands/index.js";
import { keywordSearch, LocalStore } from "../src/local/index.js";
import { localLoopDeps, runEchoLoop, writeDecisions } from "../test/helpers/echo-loop.js";

const AT = [0, 1, 3, 10];

const rate = (xs: (number | null)[], top: number) =>
  `${xs.filter((r) => r !== null && r < top).length}/${xs.length}`;

/** Runs the loop and the look-alike corpus in `dir`; returns the printed lines. */
export async function benchEchoes(dir: string): Promise<string[]> {
  const hub = join(dir, "echo-hub");
  writeTestModels(hub);
  mkdirSync(join(dir, "echo-none"), { recursive: true });
  const models = {
    hubCache: hub,
    reranker: "ms-marco-MiniLM-L-6-v2",
    threads: 2,
    hubUrl: "http://127.0.0.1:9",
  };
  const bare = new ModelSession({ ...models, hubCache: join(dir, "echo-none") });
  const withModels = new ModelSession(models);
  const out: string[] = [];
  try {
    const home = join(dir, "echo-loop");
    const ctx = { funesHome: join(home, ".funes"), home, models };
    const _target = () => ({ memory: localMemoryFor(undefined, ctx), notes: [] });
    const t0 = performance.now();
    const { checkpoints, decisions: planted } = await runEchoLoop(home, {
      seed: 2020,
      count: 22,
      lookalikes: 4,
      rounds: Math.max(...AT),
      at: AT,
      deps: localLoopDeps(ctx, { bare, withModels }),
    });
    out.push(
      `  echo loop: 22 decisions, a recall session per decision per round (claude/codex/pi, 8 spellings) (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      "    rounds  original first (keyword / rerank)  in top 5 (keyword / rerank)  ask prompt holds it  echo rows  question/restatement more relevant than the original",
    );
    const decisionsAnswer = (i: number) => planted[i]?.answer ?? "\u0000";
    for (const round of AT) {
      const c = checkpoints.get(round);
      if (c === undefined) continue;
      out.push(
        `    ${String(round).padStart(6)}  ${rate(c.ranks.keyword, 1).padStart(14)} / ${rate(c.ranks.rerank, 1).padEnd(17)} ${rate(c.ranks.keyword, 5).padStart(12)} / ${rate(c.ranks.rerank, 5).padEnd(14)} ${`${c.prompts.filter((p, i) => p.includes(decisionsAnswer(i))).length}/${c.prompts.length}`.padStart(10)}  ${c.echoRows}/${c.rows} (${((100 * c.echoRows) / Math.max(1, c.rows)).toFixed(0)}%)  ${c.outscored}/${c.prompts.length}`,
      );
    }
    // The milder case: newer look-alikes within a quarter of the answer.
    const lhome = join(dir, "lookalikes");
    const lctx = { funesHome: join(lhome, ".funes"), home: lhome, models };
    const { decisions, now } = writeDecisions(lhome, { seed: 3939, count: 39, lookalikes: 8, close: 3.5 });
    await indexSessions({ thinking: true, vectorBudgetMs: null, now: () => now, ...lctx });
    const store = await LocalStore.open(join(lctx.funesHome, "memory"));
    if (store === null) throw new Error("nothing indexed");
    let bm25 = 0;
    try {
      for (const d of decisions)
        if (
          (await keywordSearch(store.table, { query: d.query, limit: 5 })).some(
            (r) => r.sessionId === d.answerSession,
          )
        )
          bm25++;
    } finally {
      store.close();
    }
    const counts: string[] = [];
    for (const [mode, m, budget] of [
      ["keyword", bare, 0],
      ["hybrid", withModels, 0],
      ["rerank", withModels, 60_000],
    ] as const)
      for (const halfLifeDays of [30, 0]) {
        let n = 0;
        for (const d of decisions) {
          const r = await recall(
            { memory: localMemoryFor(undefined, lctx), notes: [] },
            recallOptions(d.query, now, { rerankBudgetMs: budget, halfLifeDays }),
            m,
          );
          if (r.hits.slice(0, 5).some((h) => h.sessionId === d.answerSession)) n++;
        }
        counts.push(`${mode}${halfLifeDays === 0 ? " (no recency)" : ""} ${n}`);
      }
    out.push(
      `  newer look-alikes: 39 decisions 1–2 years old, answers in the top 5 — plain BM25 ${bm25}; ${counts.join(", ")}`,
    );
  } finally {
    await bare.close();
    await withModels.close();
  }
  return out;
}
