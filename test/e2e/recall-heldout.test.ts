/**
 * Recall ranking on held-back corpora (test/helpers/heldout-corpus.ts): other words, dates and agents than
 * the corpora the ranking was built on (quality-corpus.ts). Where the answer's session ranks, in every state
 * a user meets: plain BM25 (the baseline), keyword-only (no models), hybrid without the reranker, hybrid
 * with it; with every date in one day, and spread over five years; and from a tiny memory read together
 * with a large one. The generated models are bag-of-words stand-ins: these cases judge the keyword leg
 * and the fusion and recency rules, not what a real embedder adds.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  indexSessions,
  localMemoryFor,
  ModelSession,
  type RecallOptions,
  recall,
  recallOptions,
} from "../../src/commands/index.js";
import { keywordSearch, LocalStore } from "../../src/local/index.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import {
  type HeldoutCase,
  type HeldoutKind,
  writeFederatedCorpus,
  writeHeldoutCorpus,
} from "../helpers/heldout-corpus.js";

type State = "bm25" | "keyword" | "hybrid" | "rerank";
const STATES: State[] = ["bm25", "keyword", "hybrid", "rerank"];
const MODELS = {
  hubCache: TEST_HUB_CACHE,
  reranker: "ms-marco-MiniLM-L-6-v2",
  threads: 1,
  hubUrl: "http://127.0.0.1:9",
};

let t: { dir: string; cleanup: () => void };
let withModels: ModelSession;
let bare: ModelSession;
/** Ranks (0-based, null when not shown) by `<spread>/<state>/<kind>`, in case order. */
const ranks = new Map<string, (number | null)[]>();

/** Runs `cases` in `state`; `k` hits are shown (30 for cases that only ask to reach the candidates). */
async function rankCases(
  target: Parameters<typeof recall>[0],
  store: LocalStore | null,
  state: State,
  cases: HeldoutCase[],
  now: number,
  more: Partial<RecallOptions> = {},
): Promise<(number | null)[]> {
  const out: (number | null)[] = [];
  for (const c of cases) {
    const k = c.kind === "long" ? 30 : 8;
    let sessions: string[];
    if (state === "bm25") {
      if (store === null) throw new Error("no store");
      sessions = (await keywordSearch(store.table, { query: c.query, limit: k })).map((r) => r.sessionId);
    } else {
      const opts = recallOptions(c.query, now, {
        k,
        rerankBudgetMs: state === "rerank" ? 60_000 : 0,
        ...more,
      });
      sessions = (await recall(target, opts, state === "keyword" ? bare : withModels)).hits.map(
        (h) => h.sessionId,
      );
    }
    const i = sessions.indexOf(c.answerSession);
    out.push(i < 0 ? null : i);
  }
  return out;
}

const get = (key: string): (number | null)[] => {
  const r = ranks.get(key);
  if (r === undefined) throw new Error(`no ranks for ${key}`);
  return r;
};

beforeAll(async () => {
  t = tempDir();
  const empty = join(t.dir, "no-models");
  mkdirSync(empty);
  withModels = new ModelSession(MODELS);
  bare = new ModelSession({ ...MODELS, hubCache: empty });
  for (const spread of ["day", "years"] as const) {
    const home = join(t.dir, spread);
    const corpus = writeHeldoutCorpus({ home, seed: 4242, spread, distractors: 12 });
    const funesHome = join(home, ".funes");
    await indexSessions({
      thinking: true,
      models: MODELS,
      vectorBudgetMs: null,
      now: () => corpus.now,
      funesHome,
      home,
    });
    const target = { memory: localMemoryFor(undefined, { funesHome, home }), notes: [] };
    const store = await LocalStore.open(join(funesHome, "memory"));
    if (store === null) throw new Error("nothing indexed");
    try {
      const kinds = [...new Set(corpus.cases.map((c) => c.kind))];
      for (const state of STATES)
        for (const kind of kinds) {
          const cases = corpus.cases.filter((c) => c.kind === kind);
          ranks.set(`${spread}/${state}/${kind}`, await rankCases(target, store, state, cases, corpus.now));
        }
      // The same-day revisions again, with a half-life on the scale of the day (2.4 hours).
      const revised = corpus.cases.filter((c) => c.kind === "revised");
      for (const state of ["keyword", "rerank"] as const)
        ranks.set(
          `${spread}/${state}/revised-short-half-life`,
          await rankCases(target, store, state, revised, corpus.now, { halfLifeDays: 0.1 }),
        );
    } finally {
      store.close();
    }
  }
  for (const smallSessions of [1, 30]) {
    const small = join(t.dir, `small${smallSessions}`);
    const large = join(t.dir, `large${smallSessions}`);
    const corpus = writeFederatedCorpus({ small, large, seed: 99, distractors: 60, smallSessions });
    for (const home of [small, large])
      await indexSessions({
        thinking: true,
        models: MODELS,
        vectorBudgetMs: null,
        now: () => corpus.now,
        funesHome: join(home, ".funes"),
        home,
      });
    const ctx = { funesHome: join(small, ".funes"), home: small };
    const federated = {
      kind: "federated" as const,
      members: [large, small].map((h) => ({
        memory: localMemoryFor(join(h, ".funes", "memory"), ctx),
        notes: [],
      })),
      warnings: [],
    };
    for (const state of ["keyword", "hybrid", "rerank"] as const)
      ranks.set(
        `small${smallSessions}/${state}/old`,
        await rankCases(federated, null, state, corpus.cases, corpus.now),
      );
  }
}, 240_000);

afterAll(async () => {
  await withModels?.close();
  await bare?.close();
  t.cleanup();
});

describe("held-back corpora: the answer ranks first in every state and at any dates", () => {
  const first: HeldoutKind[] = ["old", "identifier", "short", "undated", "real"];
  for (const spread of ["day", "years"])
    for (const kind of first)
      it(`${kind} (${spread})`, () => {
        for (const state of STATES) expect(get(`${spread}/${state}/${kind}`), state).toEqual([0, 0, 0]);
      });

  it("a pasted log longer than the query limit still reaches its failing line's session", () => {
    // BM25 ranks the newer logs that share more of the paste's lines higher; before the query kept its
    // start and end, the failing line was cut and the answer was not among 30 hits in any state.
    for (const spread of ["day", "years"])
      for (const state of STATES)
        for (const r of get(`${spread}/${state}/long`)) expect(r, `${spread}/${state}`).not.toBeNull();
    for (const spread of ["day", "years"])
      for (const r of get(`${spread}/keyword/long`)) expect(r as number, spread).toBeLessThan(10);
  });

  it("a revision years later comes first; plain BM25 prefers the original", () => {
    expect(get("years/bm25/revised").every((r) => r !== null && r > 0)).toBe(true);
    for (const state of ["keyword", "hybrid", "rerank"])
      expect(get(`years/${state}/revised`), state).toEqual([0, 0, 0]);
  });

  it("a revision hours later is shown, and comes first with a half-life on the scale of hours", () => {
    // At the default 30-day half-life, hours are no age gap: near-equals keep their relevance order.
    for (const state of ["keyword", "hybrid", "rerank"])
      for (const r of get(`day/${state}/revised`)) expect(r as number, state).toBeLessThan(5);
    for (const state of ["keyword", "rerank"])
      expect(get(`day/${state}/revised-short-half-life`), state).toEqual([0, 0, 0]);
  });

  it("an answer only the vector leg relates comes first once the cross-encoder finds it", () => {
    // Found by the vector leg alone (no shared word), scored 0.84 by the cross-encoder against 0.16 for
    // newer keyword hits on a common word: the blends came out near-equal and recency put those first
    // (ranks 2, 0, 2 over five years). No keyword leg can find it; hybrid without the cross-encoder ranks
    // it below every keyword hit (a vector-only passage's relevance is at most the vector weight, 0.4).
    expect(get("years/rerank/reworded")).toEqual([0, 0, 0]);
    for (const r of get("day/rerank/reworded")) expect(r as number).toBeLessThan(2);
    expect(get("years/bm25/reworded")).toEqual([null, null, null]);
  });

  it("a coined name among many common words: first by BM25, near the top once the vector leg joins", () => {
    // Newer sessions match four or five of the question's eight topic words and the keyword leg puts them
    // within a few percent of the answer, which holds the name and three of them. Keyword-only, context
    // evidence (search/session-evidence.ts) then prefers the sessions whose two turns both repeat the
    // common words (measured ranks: beyond 8, 5, 5) — the price of the measured gain on the public dialog
    // benchmark (docs/recall-quality.md), not asserted. The vector leg sees the name and restores it. The
    // stand-in cross-encoder scores by the share of question words, so it prefers the common-word sessions
    // too (not asserted: a real one reads the name).
    for (const spread of ["day", "years"]) {
      expect(get(`${spread}/bm25/wordy`)).toEqual([0, 0, 0]);
      for (const r of get(`${spread}/hybrid/wordy`)) expect(r as number, spread).toBeLessThan(2);
    }
  });

  it("an answer in a small memory read with a large one", () => {
    for (const state of ["keyword", "hybrid", "rerank"])
      expect(get(`small30/${state}/old`), state).toEqual([0, 0, 0]);
    // A memory of a few sessions weighs a rare word less (BM25 counts rarity per memory), so keyword-only
    // its exact match can fall among newer common-word matches of the large memory: shown, not always first.
    for (const state of ["keyword", "hybrid", "rerank"])
      for (const r of get(`small1/${state}/old`)) expect(r as number, state).toBeLessThan(8);
  });
});
