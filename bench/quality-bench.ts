/**
 * Retrieval quality for `npm run bench` (issue 11): generated corpora with known answers, every recall mode
 * at default flags (the rerank budget included), Recall@1 / Recall@5 / MRR over the top 8, beside plain
 * BM25 with no recency. Models are the generated bag-of-words test models: they show what fusion and the
 * ranking rule do with a weak embedder and a weak cross-encoder (the state a real weak model, or a row still
 * waiting for its vector, puts recall in); they cannot show what a real model adds on paraphrase, so the
 * `reworded` row relates words only by their pieces (`commit` → `commitlog`).
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeTestModels } from "../scripts/make-models.js";
import {
  evaluateDialogs,
  formatDialogs,
  loadDialogs,
  mergeDialogRanks,
} from "../test/helpers/dialog-eval.js";
import { evaluateQuality, formatQuality } from "../test/helpers/quality-eval.js";
import { benchEchoes } from "./echo-bench.js";

const ROOT_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "recall-eval");

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
    ...(await benchDialogs(
      dir,
      { hubCache: hub, reranker: "ms-marco-MiniLM-L-6-v2", threads: 2, hubUrl: "http://127.0.0.1:9" },
      empty,
    )),
    "",
    "funes benchmark — a memory that recalls from itself (generated models; goal: unchanged by rounds)",
    ...(await benchEchoes(join(dir, "echoes"))),
    "",
  ].join("\n");
}

/**
 * Conversations no one here wrote (issue 38): LoCoMo's ten long multi-session dialogs, each a memory, every
 * question asked verbatim, the session of its evidence first or not (test/helpers/dialog-eval.ts). The
 * first five dialogs were looked at while the ranking rule was chosen; the last five were not, and are
 * printed apart so a rule that only fits the first shows.
 */
async function benchDialogs(
  dir: string,
  models: Parameters<typeof evaluateDialogs>[0]["models"],
  empty: string,
): Promise<string[]> {
  const all = loadDialogs(join(ROOT_FIXTURES, "locomo10.json.gz"));
  const out = [
    "funes benchmark — the right session first on long dialogs (LoCoMo, 1,982 questions; R@1 / R@5 / MRR, %)",
    "  protocol: each session a Claude Code transcript, recall 20 passages, rank their distinct sessions;",
    "  bm25-turns / bm25-sessions = textbook BM25 (no stemming, no stop words) over turns / whole sessions;",
    "  hybrid and default run the generated bag-of-words test models, not real ones (see the table above)",
  ];
  const halves: Awaited<ReturnType<typeof evaluateDialogs>>[] = [];
  for (const [name, dialogs] of [
    ["dialogs 1–5 (seen while choosing the rule)", all.slice(0, 5)],
    ["dialogs 6–10 (not looked at)", all.slice(5)],
  ] as const) {
    const t0 = performance.now();
    const results = await evaluateDialogs({
      dir: join(dir, `dialogs-${halves.length}`),
      dialogs: [...dialogs],
      modes: ["bm25-turns", "bm25-sessions", "keyword", "hybrid", "default"],
      models,
      emptyHubCache: empty,
      rerankBudgetMs: 60_000,
    });
    halves.push(results);
    out.push(
      `  ${name} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      ...indent(formatDialogs(results)),
    );
  }
  out.push("  all ten", ...indent(formatDialogs(mergeDialogRanks(halves))));
  return out;
}

function indent(table: string): string[] {
  return table.split("\n").map((l) => `    ${l}`);
}
