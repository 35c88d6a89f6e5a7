/**
 * Model answers kept by what was asked, so asking again costs nothing: a model's answer depends only on
 * the model and its input (never on a memory), so a kept one is never stale. The model server keeps the
 * cross-encoder's scores for every client; a session (the MCP server's lifetime) keeps its queries'
 * vectors and scores too, so an agent asking again pays neither the model nor the trip to the server.
 */
import { createHash } from "node:crypto";
import type { Embedder, Reranker } from "./runtime.js";

/** A bounded map, least recently used out first. */
export class KeptAnswers<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    for (const k of this.map.keys()) {
      if (this.map.size <= this.max) break;
      this.map.delete(k);
    }
  }
}

/** Scores of (query, passage) pairs, and how many were scored now or kept from before. */
export interface KeptScores {
  scores: number[];
  scored: number;
  reused: number;
}

/**
 * The scores of `passages` for `query`: those kept are reused, the rest scored in one call and kept.
 * `model` names the cross-encoder (part of each key: another model scores differently).
 */
export async function scoresKept(
  kept: KeptAnswers<number>,
  o: { model: string; query: string; passages: string[]; score: (passages: string[]) => Promise<number[]> },
): Promise<KeptScores> {
  const keys = o.passages.map((p) =>
    createHash("sha1").update(o.model).update("\0").update(o.query).update("\0").update(p).digest("hex"),
  );
  const scores = keys.map((k) => kept.get(k));
  const missing = scores.flatMap((s, i) => (s === undefined ? [i] : []));
  if (missing.length > 0) {
    const fresh = await o.score(missing.map((i) => o.passages[i] as string));
    missing.forEach((i, j) => {
      const s = fresh[j] ?? 0;
      scores[i] = s;
      kept.set(keys[i] as string, s);
    });
  }
  return {
    scores: scores.map((s) => s ?? 0),
    scored: missing.length,
    reused: keys.length - missing.length,
  };
}

/** Query vectors kept per session: a recall embeds one text, its query. */
const QUERY_VECTORS_MAX = 256;
/** Scores kept per session: the pools of the last ~100 recalls. */
const SESSION_SCORES_MAX = 4096;

/** The embedder with one-text calls (a recall's query) answered from the vectors kept. */
export function keepingQueryVectors(model: Embedder): Embedder {
  const kept = new KeptAnswers<Float32Array>(QUERY_VECTORS_MAX);
  return {
    dim: model.dim,
    embed: async (texts) => {
      const only = texts.length === 1 ? (texts[0] as string) : null;
      const hit = only === null ? undefined : kept.get(only);
      // A copy: the caller may change what it was given.
      if (hit !== undefined) return [hit.slice()];
      const out = await model.embed(texts);
      if (only !== null && out[0] !== undefined) kept.set(only, out[0].slice());
      return out;
    },
    close: () => model.close(),
  };
}

/** The reranker with scores of pairs it was asked before answered from those kept. */
export function keepingScores(model: Reranker, name: string): Reranker {
  const kept = new KeptAnswers<number>(SESSION_SCORES_MAX);
  return {
    score: async (query, passages) =>
      (await scoresKept(kept, { model: name, query, passages, score: (ps) => model.score(query, ps) }))
        .scores,
    close: () => model.close(),
  };
}
