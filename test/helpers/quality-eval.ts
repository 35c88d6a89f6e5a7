/**
 * Retrieval quality over a generated corpus (quality-corpus.ts): indexes it as a user would (one memory,
 * and the same sessions spread over several memories), then asks every case's question in each recall
 * mode at default flags and scores where the answer's session lands. Plain BM25 with no recency, straight
 * from Lance, is the baseline.
 */
import { join } from "node:path";
import {
  indexSessions,
  localMemoryFor,
  ModelSession,
  type ModelsConfig,
  type RecallResult,
  recall,
  recallOptions,
} from "../../src/commands/index.js";
import { keywordSearch, LocalStore } from "../../src/local/index.js";
import {
  type CaseKind,
  type QualityCase,
  type QualityOptions,
  writeQualityCorpus,
} from "./quality-corpus.js";

/** How recall is run. */
export type QualityMode = "bm25" | "keyword" | "hybrid" | "rerank" | "federated";

/** Recall@1, Recall@5 and MRR (over the top 8) of one mode on one kind of case. */
export interface QualityScore {
  kind: CaseKind;
  mode: QualityMode;
  cases: number;
  r1: number;
  r5: number;
  mrr: number;
}

/** Options: the corpus's, plus where models are (`hubCache` with the generated test models). */
export interface EvalOptions extends Omit<QualityOptions, "dir" | "memories"> {
  dir: string;
  models: ModelsConfig;
  /** A hub cache with no models (keyword-only recall). */
  emptyHubCache: string;
  modes: QualityMode[];
  /** Memories for the federated mode (≥ 2). */
  memories?: number;
  /**
   * Rerank time limit, ms (default: recall's). Tests lift it so a busy machine reranks the whole pool and
   * results stay the same run to run.
   */
  rerankBudgetMs?: number;
}

function score(kind: CaseKind, mode: QualityMode, ranks: (number | null)[]): QualityScore {
  const n = ranks.length;
  const hit = (k: number) => ranks.filter((r) => r !== null && r < k).length / n;
  const mrr = ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / (r + 1)), 0) / n;
  return { kind, mode, cases: n, r1: hit(1), r5: hit(5), mrr };
}

/** Rank (0-based) of the first hit from the answer's session, or null when it is not shown. */
function rankOf(c: QualityCase, sessions: string[]): number | null {
  const i = sessions.indexOf(c.answerSession);
  return i < 0 ? null : i;
}

/** Builds the corpus and memories, runs every mode, returns one score per kind and mode. */
export async function evaluateQuality(o: EvalOptions): Promise<QualityScore[]> {
  const memories = Math.max(2, o.memories ?? 3);
  const corpus = writeQualityCorpus({ ...o, dir: join(o.dir, "corpus"), memories });
  const single = join(o.dir, "single");
  const parts = corpus.homes.map((_, i) => join(o.dir, `part${i}`));
  const base = { thinking: true, models: o.models, vectorBudgetMs: null, now: () => corpus.now };
  for (const [i, home] of corpus.homes.entries()) {
    await indexSessions({ ...base, funesHome: single, home });
    if (o.modes.includes("federated")) await indexSessions({ ...base, funesHome: parts[i] as string, home });
  }
  const ctx = { funesHome: single, home: o.dir };
  const one = { memory: localMemoryFor(undefined, ctx), notes: [] };
  const many = {
    kind: "federated" as const,
    members: parts.map((p) => ({ memory: localMemoryFor(join(p, "memory"), ctx), notes: [] })),
    warnings: [],
  };
  const withModels = new ModelSession(o.models);
  const bare = new ModelSession({ ...o.models, hubCache: o.emptyHubCache });
  const out: QualityScore[] = [];
  try {
    const store = await LocalStore.open(join(single, "memory"));
    if (store === null) throw new Error("quality corpus: nothing was indexed");
    try {
      for (const mode of o.modes) {
        const ranks = new Map<CaseKind, (number | null)[]>();
        for (const c of corpus.cases) {
          let sessions: string[];
          if (mode === "bm25") {
            const rows = await keywordSearch(store.table, { query: c.query, limit: 30 });
            sessions = rows.map((r) => r.sessionId).slice(0, 8);
          } else {
            const budget = mode === "hybrid" ? 0 : o.rerankBudgetMs;
            const opts = recallOptions(
              c.query,
              corpus.now,
              budget === undefined ? {} : { rerankBudgetMs: budget },
            );
            const r: RecallResult =
              mode === "federated"
                ? await recall(many, opts, withModels)
                : await recall(one, opts, mode === "keyword" ? bare : withModels);
            sessions = r.hits.map((h) => h.sessionId);
          }
          const list = ranks.get(c.kind) ?? [];
          list.push(rankOf(c, sessions));
          ranks.set(c.kind, list);
        }
        for (const [kind, list] of ranks) out.push(score(kind, mode, list));
      }
    } finally {
      store.close();
    }
  } finally {
    await withModels.close();
    await bare.close();
  }
  return out;
}

/** The scores as a table, kinds down and modes across: `R@1 / R@5 / MRR`. */
export function formatQuality(scores: QualityScore[]): string {
  const modes = [...new Set(scores.map((s) => s.mode))];
  const kinds = [...new Set(scores.map((s) => s.kind))];
  const cell = (s: QualityScore | undefined) =>
    s === undefined ? "" : `${s.r1.toFixed(2)} / ${s.r5.toFixed(2)} / ${s.mrr.toFixed(2)}`;
  const rows = [["kind (cases)", ...modes]];
  for (const k of kinds) {
    const n = scores.find((s) => s.kind === k)?.cases ?? 0;
    rows.push([`${k} (${n})`, ...modes.map((m) => cell(scores.find((s) => s.kind === k && s.mode === m)))]);
  }
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ")).join("\n");
}
