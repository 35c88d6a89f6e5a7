/**
 * A recall's search: the keyword and vector legs of every memory (overlapping the embedder's load), merged
 * into one candidate per chunk, each classified (recall-kinds.ts); deeper when echoes crowd out originals.
 */
import type { HitRow, KeywordHit, RowFilter, VectorHit } from "../local/index.js";
import type { MemoryReader } from "../memory/index.js";
import type { ModelSession } from "../models/index.js";
import { type Candidate, dot, type RowKind } from "../search/index.js";
import { classifyFound, type ReadAround } from "./recall-kinds.js";
import type { RecallOptions } from "./recall-options.js";

/** Both legs of every memory, the query vector they were scored with, and the reranker (loading). */
export interface Legs {
  keyword: KeywordHit[][];
  vector: (VectorHit[] | null)[];
  queryVector: Float32Array | null;
  reranker: ReturnType<ModelSession["reranker"]> | null;
  withVectors: boolean[];
  /** How deep each leg searched. */
  depth: number;
}

/**
 * Runs both legs on every memory. Everything that needs no query vector starts first and overlaps loading
 * the embedder and embedding the query: the keyword legs (Lance works on its own threads) and loading the
 * reranker. A memory without vectors, or a machine without the embedder, is searched by keyword only (and
 * a note says so).
 */
async function searchLegs(
  open: MemoryReader[],
  opts: RecallOptions,
  filter: RowFilter,
  models: ModelSession,
  notes: string[],
  depth: number,
): Promise<Legs> {
  const withVectors = await Promise.all(open.map((m) => m.hasVectors()));
  const reranker = opts.rerankBudgetMs > 0 ? models.reranker() : null;
  const canEmbed = withVectors.some((v) => v) && models.hasEmbedder();
  const keywordP = Promise.all(
    open.map((m, i) =>
      m.keyword({
        query: opts.query,
        limit: depth,
        filter,
        // Keyword hits' vectors score them on the vector leg too; useless without an embedder.
        vectors: withVectors[i] === true && canEmbed,
      }),
    ),
  );
  // Awaited later; marked handled so a failure while the embedder loads is not reported twice.
  for (const p of [reranker, keywordP]) p?.catch(() => {});
  let queryVector: Float32Array | null = null;
  if (withVectors.some((v) => v)) {
    const emb = await models.embedder();
    if (emb.kind === "ready")
      queryVector = ((await emb.model.embed([opts.query]))[0] as Float32Array) ?? null;
    else notes.push(`note: keyword-only recall — ${emb.reason}`);
  }
  const [keyword, vector] = await Promise.all([
    keywordP,
    Promise.all(
      open.map((m, i) =>
        withVectors[i] === true && queryVector !== null
          ? m.vector({ vector: queryVector, limit: depth, filter })
          : null,
      ),
    ),
  ]);
  return { keyword, vector, queryVector, reranker, withVectors, depth };
}

/** The legs again, `depth` deep, with the query vector and reranker of the first search. */
async function deeperLegs(
  open: MemoryReader[],
  opts: RecallOptions,
  filter: RowFilter,
  legs: Legs,
  depth: number,
) {
  const qv = legs.queryVector;
  const [keyword, vector] = await Promise.all([
    Promise.all(
      open.map((m, i) =>
        m.keyword({
          query: opts.query,
          limit: depth,
          filter,
          vectors: legs.withVectors[i] === true && qv !== null,
        }),
      ),
    ),
    Promise.all(
      open.map((m, i) =>
        legs.withVectors[i] === true && qv !== null ? m.vector({ vector: qv, limit: depth, filter }) : null,
      ),
    ),
  ]);
  return { ...legs, keyword, vector, depth };
}

/** Whether some leg returned all it was asked for, so a deeper search may find more. */
function saturated(legs: Legs): boolean {
  return [...legs.keyword, ...legs.vector].some((hits) => hits !== null && hits.length >= legs.depth);
}

/** Every hit of every leg as one candidate per chunk, remembering the memory that first found it. */
export interface Found {
  candidates: Map<string, Candidate>;
  byId: Map<string, HitRow>;
  home: Map<string, MemoryReader>;
}

/**
 * Merges the legs: each chunk once, under the first memory (in the order given) that holds it, with the
 * best score each leg gave it. A keyword hit that carries its vector is scored on the vector leg too.
 */
function gatherCandidates(open: MemoryReader[], legs: Legs): Found {
  const found: Found = { candidates: new Map(), byId: new Map(), home: new Map() };
  const candidate = (r: HitRow, m: MemoryReader, rank: number): Candidate => {
    let c = found.candidates.get(r.id);
    if (c === undefined) {
      c = { id: r.id, bm25: null, similarity: null, foundBy: [], bestRank: rank };
      found.candidates.set(r.id, c);
      found.byId.set(r.id, r);
      found.home.set(r.id, m);
    }
    c.bestRank = Math.min(c.bestRank, rank);
    return c;
  };
  const qv = legs.queryVector;
  for (const [i, m] of open.entries()) {
    for (const [rank, r] of (legs.vector[i] ?? []).entries()) {
      const c = candidate(r, m, rank);
      c.similarity = Math.max(c.similarity ?? -1, r.similarity);
      if (!c.foundBy.includes("vector")) c.foundBy.push("vector");
    }
    for (const [rank, r] of (legs.keyword[i] ?? []).entries()) {
      const c = candidate(r, m, rank);
      c.bm25 = Math.max(c.bm25 ?? 0, r.bm25);
      if (qv !== null && r.vector !== null && c.similarity === null) c.similarity = dot(qv, r.vector);
      if (!c.foundBy.includes("keyword")) c.foundBy.push("keyword");
    }
  }
  return found;
}

/** How many times the legs may search deeper when echoes crowd out originals (each time 4× as deep). */
const DEEPER_ROUNDS = 2;

/**
 * The legs' candidates with the kind of each (recall-kinds.ts). Echoes are left out unless asked for; when
 * they and a recall's own exchanges crowd the candidates (a memory whose recalls were indexed again and
 * again), the legs search deeper, so the originals they quote still reach the pool.
 */
export async function searchClassified(
  open: MemoryReader[],
  opts: RecallOptions,
  filter: RowFilter,
  models: ModelSession,
  notes: string[],
) {
  // With several memories each leg goes less deep (candidates / memories, at least 10): the pool still
  // holds `candidates` rows across all of them.
  const depth = open.length === 1 ? opts.candidates : Math.max(10, Math.ceil(opts.candidates / open.length));
  let legs = await searchLegs(open, opts, filter, models, notes, depth);
  const kinds = new Map<string, RowKind>();
  const read: ReadAround = new Map();
  for (let round = 0; ; round++) {
    const found = gatherCandidates(open, legs);
    await classifyFound(
      [...found.byId.values()].map((row) => ({ row, reader: found.home.get(row.id) as MemoryReader })),
      kinds,
      read,
    );
    const hidden: HitRow[] = [];
    if (opts.echoes !== true)
      for (const [id, row] of found.byId)
        if (kinds.get(id) === "echo") {
          hidden.push(row);
          found.candidates.delete(id);
        }
    const originals = [...found.candidates.keys()].filter((id) => kinds.get(id) === "original").length;
    if (
      originals >= opts.candidates ||
      round >= DEEPER_ROUNDS ||
      !saturated(legs) ||
      (hidden.length === 0 && originals === found.candidates.size)
    )
      return { found, legs, kinds, hidden, read };
    legs = await deeperLegs(open, opts, filter, legs, legs.depth * 4);
  }
}
