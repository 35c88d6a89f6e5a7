/**
 * `funes recall`: vector search and BM25, each prefiltered (type, agent, time) and `candidates` deep; every
 * candidate scored on both legs' real scores (search/relevance.ts); the pool reranked by the cross-encoder
 * best-first under a time budget, blended with retrieval; recency among near-equals (search/recency.ts);
 * the top k with their neighbour turns. Rows still waiting for a vector are found by
 * BM25; a memory with no vectors, or a machine without the models, still answers (and says how).
 */
import type { HitRow, KeywordHit, RowFilter, VectorHit } from "../local/index.js";
import {
  type FederatedMemory,
  type MemoryReader,
  openFederated,
  openReaders,
  openReadTarget,
  type ReadContext,
  type ReadTarget,
  readFederatedWith,
  readWith,
} from "../memory/index.js";
import type { ModelSession } from "../models/index.js";
import {
  type Candidate,
  dot,
  EXCHANGE_WEIGHT,
  fuseEvidence,
  type Leg,
  orderByScore,
  parseTimeBound,
  parseTimestamp,
  pickNeighbors,
  poolOf,
  type RowKind,
  recencyFactors,
  rerankWithinBudget,
  topByRelevance,
  withinTime,
} from "../search/index.js";
import { type Harness, parseHarness, UnknownHarnessError } from "../traces/index.js";
import { BadArgumentError, FunesError } from "./errors.js";
import { classifyFound, coveredRows, echoCounts, type ReadAround } from "./recall-kinds.js";

/** Block types `--type` accepts. */
export const BLOCK_TYPES = ["text", "thinking", "tool_use", "tool_result"] as const;

/** Default time for reranking one recall, ms: 30 MiniLM-int8 pairs take ≈ 0.3 s on 2 cores. */
export const DEFAULT_RERANK_BUDGET_MS = 500;

/** What to recall and how. */
export interface RecallOptions {
  query: string;
  k: number;
  candidates: number;
  blockType?: string | undefined;
  harness?: string | undefined;
  /** `--since` / `--until`: dates, timestamps or spans like `7d`. */
  since?: string | undefined;
  until?: string | undefined;
  /** Days; 0 turns recency off. */
  halfLifeDays: number;
  neighbors: number;
  /** ms; 0 turns rerank off. */
  rerankBudgetMs: number;
  now: number;
  /**
   * Show funes's own outputs read back (recall results, calls, `ask` prompts) as hits of their own; by
   * default they are left out and counted on the passages they quote (search/echoes.ts).
   */
  echoes?: boolean | undefined;
}

/** Recall options with the defaults (k 8, 30 candidates, 30-day half-life, 1 neighbour, default budget). */
export function recallOptions(query: string, now: number, more: Partial<RecallOptions> = {}): RecallOptions {
  return {
    query,
    k: 8,
    candidates: 30,
    halfLifeDays: 30,
    neighbors: 1,
    rerankBudgetMs: DEFAULT_RERANK_BUDGET_MS,
    now,
    ...more,
  };
}

/** A chunk shown under a hit. */
export interface RecallNeighbor {
  role: string;
  blockType: string;
  seq: number;
  text: string;
}

/** One recalled passage. */
export interface RecallHit extends HitRow {
  /** The memory it was found in (what `get --memory` takes). */
  memory: string;
  /** What the order comes from: relevance × recency, in (0, 1]. */
  score: number;
  /**
   * In (0, 1]: the weighted mean of the legs' normalised scores (BM25 over the recall's best BM25, cosine
   * over the best cosine), blended half and half with the cross-encoder's probability when reranked.
   */
  relevance: number;
  /** The recency factor the relevance was multiplied by, in [1 − RECENCY_SPAN, 1]. */
  recency: number;
  /** The cross-encoder's probability, or null when not reranked. */
  rerank: number | null;
  reranked: boolean;
  /** Which legs found it. */
  legs: Leg[];
  /**
   * What the passage is (search/echoes.ts): an original, a question put to memory, the agent's restatement
   * of what it recalled, or (only with `echoes`) funes's own output read back.
   */
  kind: RowKind;
  /** How many of the recall's left-out echoes quote this passage's turn. */
  echoes: number;
  neighbors: RecallNeighbor[];
}

/** Hits plus the notes a reader should see first (keyword-only, …). */
export interface RecallResult {
  memory: string;
  notes: string[];
  hits: RecallHit[];
  /** Candidates left out as funes's own outputs read back (0 with `echoes`). */
  hiddenEchoes?: number;
}

/** What a recall keeps: the filter the legs apply, and the exact time bounds (ms, UTC) applied after. */
interface Filters {
  filter: RowFilter;
  since: number | null;
  until: number | null;
}

function buildFilters(opts: RecallOptions, harness: Harness | null): Filters {
  const bound = (v: string | undefined, arg: "since" | "until"): number | null => {
    if (v === undefined) return null;
    const t = parseTimeBound(v, opts.now);
    if (t === null)
      throw new BadArgumentError({
        arg,
        flag: `--${arg}`,
        value: v,
        problem:
          "is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)",
      });
    return t;
  };
  const since = bound(opts.since, "since");
  const until = bound(opts.until, "until");
  // An empty window is a mistake (the two swapped), not a question whose answer is "no results".
  if (since !== null && until !== null && since > until)
    throw new BadArgumentError({
      arg: "since",
      flag: "--since",
      value: opts.since ?? "",
      problem: `is later than until "${opts.until ?? ""}", so nothing can match — swap the two`,
      message: `--since "${opts.since ?? ""}" is later than --until "${opts.until ?? ""}", so nothing can match — swap the two`,
    });
  const filter: RowFilter = { since, until };
  if (opts.blockType !== undefined) filter.blockType = opts.blockType;
  if (harness !== null) filter.harness = harness;
  return { filter, since, until };
}

function checkOptions(opts: RecallOptions): Harness | null {
  if (opts.query.trim() === "")
    throw new BadArgumentError({
      arg: "query",
      flag: "query",
      value: opts.query,
      problem: 'is empty: say what to recall, e.g. "why did we pick lance"',
      message: 'recall needs a query, e.g. funes recall "why did we pick lance"',
    });
  if (opts.blockType !== undefined && !(BLOCK_TYPES as readonly string[]).includes(opts.blockType))
    throw new BadArgumentError({
      arg: "block_type",
      flag: "--type",
      value: opts.blockType,
      problem: `is not a block type (expected ${BLOCK_TYPES.join(", ")})`,
    });
  if (opts.harness === undefined) return null;
  try {
    return parseHarness(opts.harness);
  } catch (err) {
    if (err instanceof UnknownHarnessError)
      throw new BadArgumentError({
        arg: "harness",
        flag: "--harness",
        value: opts.harness,
        problem: "is not a harness (expected claude, codex, pi, hermes, gemini, qwen, opencode or copilot)",
      });
    throw err;
  }
}

/** A `--harness` filter needs every memory to carry the agent of its rows. */
async function checkHarnessFacet(open: MemoryReader[], harness: Harness | null): Promise<void> {
  if (harness === null) return;
  for (const m of open)
    if (!(await m.hasHarnessFacet()))
      throw new FunesError(
        "bad_input",
        `${open.length > 1 ? `${m.memory.label}: ` : ""}this memory predates the harness facet — reindex it, or drop --harness`,
      );
}

/** Both legs of every memory, the query vector they were scored with, and the reranker (loading). */
interface Legs {
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
interface Found {
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

/**
 * The pool (relevance from both legs, exact time bounds), reranked best-first under the time budget, then
 * recency among near-equals; the top k.
 */
async function rankPool(
  found: Found,
  legs: Legs,
  filters: Filters,
  opts: RecallOptions,
  notes: string[],
  kinds: Map<string, RowKind>,
) {
  const evidence = fuseEvidence([...found.candidates.values()]);
  const pool = poolOf(evidence, opts.candidates)
    .map((e) => ({ item: found.byId.get(e.id) as HitRow, relevance: e.relevance }))
    .filter((p) => withinTime(p.item.ts, filters.since, filters.until));
  const reranker = legs.reranker !== null && pool.length > 0 ? await legs.reranker : null;
  if (reranker?.kind === "missing") notes.push(`note: not reranked — ${reranker.reason}`);
  const budget = reranker?.kind === "ready" ? opts.rerankBudgetMs : 0;
  const ranked = await rerankWithinBudget(pool, {
    score: async (items) =>
      reranker?.kind === "ready"
        ? reranker.model.score(
            opts.query,
            items.map((i) => i.text),
          )
        : items.map(() => 0),
    budgetMs: budget,
    batch: 8,
    now: () => performance.now(),
  });
  // A recall's own exchange (the question put to memory, the agent's restatement) counts a share of its
  // relevance, so it follows the passages it is about; echoes, when shown, come last. Recency reorders
  // reranked passages only where the cross-encoder, too, finds them close, and never replaces a passage
  // relevance alone keeps on the page.
  // (`relevance` is the passage's own again once ordered: the weight shows in its `score`.)
  const exchange = new Set(
    ranked.filter((r) => EXCHANGE_KINDS.has(kinds.get(r.item.id) ?? "original")).map((r) => r.item.id),
  );
  for (const r of ranked) if (exchange.has(r.item.id)) r.relevance *= EXCHANGE_WEIGHT;
  const tier = (r: { item: HitRow }) => (kinds.get(r.item.id) === "echo" ? 1 : 0);
  const top = topByRelevance(
    orderByScore(ranked, (g) =>
      recencyFactors(
        g.map((r) => ({ relevance: r.relevance, ts: r.item.ts, judges: [r.rerank] })),
        opts.now,
        opts.halfLifeDays,
      ),
    ),
    opts.k,
    tier,
    (r) => parseTimestamp(r.item.ts) ?? Number.POSITIVE_INFINITY,
  );
  for (const r of top) if (exchange.has(r.item.id)) r.relevance /= EXCHANGE_WEIGHT;
  return { top, legsOf: new Map(evidence.map((e) => [e.id, e.foundBy])) };
}

type Ranked = Awaited<ReturnType<typeof rankPool>>;

/** The kinds of a recall's own exchange: the user's and the agent's words, about what was recalled. */
const EXCHANGE_KINDS: ReadonlySet<RowKind> = new Set(["question", "restatement"]);

/**
 * The top hits with the turns around them, read from each hit's own memory in one scan per memory, or
 * taken from the turns the echo classification read around them already (`read`) where those cover them.
 */
async function withNeighbours(
  open: MemoryReader[],
  { top, legsOf }: Ranked,
  home: Map<string, MemoryReader>,
  opts: RecallOptions,
  kinds: { of: Map<string, RowKind>; quoted: Map<string, number>; read: ReadAround },
): Promise<RecallHit[]> {
  const around: HitRow[] = [];
  if (opts.neighbors > 0)
    for (const m of open) {
      const mine = top.filter((h) => home.get(h.item.id) === m);
      if (mine.length === 0) continue;
      const ranges = mine.map((h) => ({
        sessionId: h.item.sessionId,
        from: h.item.seq - opts.neighbors,
        to: h.item.seq + opts.neighbors,
      }));
      around.push(...(coveredRows(kinds.read.get(m), ranges) ?? (await m.around(ranges))));
    }
  return top.map((h) => {
    const m = home.get(h.item.id) as MemoryReader;
    // Object.assign, not a spread with more properties (slow on Node 20's V8; see local's `toHit`).
    return Object.assign({}, h.item, {
      memory: m.memory.label,
      score: h.score,
      relevance: h.relevance,
      recency: h.weight,
      rerank: h.rerank,
      reranked: h.rerank !== null,
      legs: legsOf.get(h.item.id) ?? [],
      kind: kinds.of.get(h.item.id) ?? "original",
      echoes: kinds.quoted.get(`${h.item.sessionId}\u0000${h.item.turnUuid}`) ?? 0,
      neighbors: pickNeighbors(
        h.item,
        // Keyed by agent and id: another agent's session with the same id is not a neighbour.
        around.filter((n) => n.sessionId === h.item.sessionId && n.harness === h.item.harness),
        opts.neighbors,
      ).map((n) => ({
        role: n.role,
        blockType: n.blockType,
        seq: n.seq,
        text: n.text,
      })),
    });
  });
}

/** How many times the legs may search deeper when echoes crowd out originals (each time 4× as deep). */
const DEEPER_ROUNDS = 2;

/**
 * The legs' candidates with the kind of each (recall-kinds.ts). Echoes are left out unless asked for; when
 * they and a recall's own exchanges crowd the candidates (a memory whose recalls were indexed again and
 * again), the legs search deeper, so the originals they quote still reach the pool.
 */
async function searchClassified(
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

/**
 * Recalls from one memory, or from several at once (federated): each memory is searched as usual, every
 * leg of every memory is scored under one scale, and the pool is reranked together. A chunk held by two
 * memories is shown once, under the first memory (in the order given) that holds it.
 */
export async function recall(
  target: ReadTarget | FederatedMemory,
  opts: RecallOptions,
  models: ModelSession,
): Promise<RecallResult> {
  const targets = "kind" in target && target.kind === "federated" ? target.members : [target as ReadTarget];
  const harness = checkOptions(opts);
  const filters = buildFilters(opts, harness);
  const { open, warnings } = await openReaders(targets, () => performance.now());
  try {
    const notes: string[] = [...targets.flatMap((t) => t.notes), ...warnings];
    await checkHarnessFacet(open, harness);
    const { found, legs, kinds, hidden, read } = await searchClassified(
      open,
      opts,
      filters.filter,
      models,
      notes,
    );
    const ranked = await rankPool(found, legs, filters, opts, notes, kinds);
    // Models that ran here although a shared server was asked for: said once, with why.
    notes.push(...models.takeNotes());
    const hits = await withNeighbours(open, ranked, found.home, opts, {
      of: kinds,
      quoted: echoCounts(hidden),
      read,
    });
    return {
      memory: open.map((m) => m.memory.label).join(", "),
      notes,
      hits,
      hiddenEchoes: hidden.length,
    };
  } finally {
    for (const m of open) m.close();
  }
}

/**
 * Recalls from the memories named by `--memory` (none: the local memory; several: federated). A single
 * remote is read speculatively from its cached copy while its head is checked.
 */
export async function recallMemories(
  specs: string[],
  opts: RecallOptions,
  ctx: ReadContext,
  models: ModelSession,
): Promise<RecallResult> {
  if (specs.length <= 1) return readWith(await openReadTarget(specs[0], ctx), (t) => recall(t, opts, models));
  const federated = await openFederated(specs, ctx);
  const { result, warnings } = await readFederatedWith(federated, (f) => recall(f, opts, models));
  return { ...result, notes: [...warnings, ...result.notes] };
}
