/**
 * Retrieval quality for `npm run bench` (issue 11): generated corpora with known answers, every recall mode
 * at default flags (the rerank budget included), Recall@1 / Recall@5 / MRR over the top 8, beside plain
 * BM25 with no recency. Models are the generated bag-of-words test models: they show what fusion and the
 * ranking rule do with a weak embedder and a weak cross-encoder (the state a real weak model, or a row still
 * waiting for its vector, puts recall in); they cannot show what a real model adds on paraphrase, so the
 * `reworded` row relates words only by their pieces (`commit` → `commitlog`).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { evaluateQuality, formatQuality } from "../test/helpers/quality-eval.js";
import { benchEchoes } from "./echo-bench.js";

/** Runs the quality benchmark in `dir`; returns the printed table. */
export async function benchQuality(dir: string): Promise<string> {
  const hub = join(dir, "quality-hub");
  writeTestModels(hub);
  const empty = join(dir, "quality-none");
  mkdirSync(empty, { recursive: true });
  const out: string[] = [];
  for (const seed of [11, 12]) {
    const t0 = performance.now();
    const scores = await evaluateQuality({
      dir: join(dir, `quality-${seed}`),
      seed,
      perKind: 22,
      kinds: ["old", "reworded", "revised", "tool"],
      distractors: 12,
      models: { hubCache: hub, reranker: "ms-marco-MiniLM-L-6-v2", threads: 2, hubUrl: "http://127.0.0.1:9" },
      emptyHubCache: empty,
      modes: ["bm25", "keyword", "hybrid", "rerank", "federated"],
    });
    out.push(
      `  corpus seed ${seed}: 22 cases per kind, 12 newer distractor sessions each, federated over 3 memories (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      ...formatQuality(scores)
        .split("\n")
        .map((l) => `    ${l}`),
    );
  }
  return [
    "\nfunes benchmark — retrieval quality (R@1 / R@5 / MRR; bm25 = plain BM25, no recency)",
    ...out,
    "",
    "funes benchmark — a memory that recalls from itself (generated models; goal: unchanged by rounds)",
    ...(await benchEchoes(join(dir, "echoes"))),
    "",
  ].join("\n");
}
