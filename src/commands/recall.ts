/**
 * `funes recall`: vector search and BM25, each prefiltered (type, agent, time) and `candidates` deep; every
 * candidate scored on both legs' real scores (search/relevance.ts); the pool reranked by the cross-encoder
 * best-first under a time budget, blended with retrieval; recency among near-equals (search/recency.ts);
 * the top k with their neighbour turns. Rows still waiting for a vector are found by
 * BM25; a memory with no vectors, or a machine without the models, still answers (and says how).
 */
import type { HitRow } from "../local/index.js";
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
  blendRelevance,
  contentStems,
  fuseEvidence,
  type Leg,
  matchedStems,
  type NamedTime,
  orderByScore,
  parseTimestamp,
  pickNeighbors,
  poolOf,
  type RowKind,
  rankAfterSources,
  recencyFactors,
  rerankWithinBudget,
  timeMentions,
  topByRelevance,
  withinTime,
  withSessionEvidence,
} from "../search/index.js";
import { coveredRows, echoCounts, followers, type ReadAround, recencyTs } from "./recall-kinds.js";
import { type Found, type Legs, searchClassified } from "./recall-legs.js";
import {
  buildFilters,
  checkHarnessFacet,
  checkOptions,
  type Filters,
  type RecallOptions,
} from "./recall-options.js";

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
  { read, hidden }: { read: ReadAround; hidden: HitRow[] },
) {
  const evidence = fuseEvidence([...found.candidates.values()]);
  const stems = contentStems(opts.query);
  const named = timeMentions(opts.query);
  const pool = bySessionEvidence(
    poolOf(evidence, 2 * opts.candidates)
      .map((e) => ({ item: found.byId.get(e.id) as HitRow, relevance: e.relevance }))
      .filter((p) => withinTime(p.item.ts, filters.since, filters.until)),
    stems,
    named,
  );
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
  withSessionRerank(ranked, named);
  // A recall's own exchange (the question put to memory, the agent's restatement) never ranks above a
  // passage its recall returned, nor a copy above what it quotes (recall-kinds.ts `followers`), and neither
  // counts as a newer version of anything (`recencyTs`); echoes, when shown, come last. Recency reorders
  // reranked passages only where the cross-encoder, too, finds them close, and never replaces a passage
  // relevance alone keeps on the page.
  const tier = (r: { item: HitRow }) => (kinds.get(r.item.id) === "echo" ? 1 : 0);
  const following = followers(
    ranked.map((r) => r.item),
    kinds,
    read,
    hidden,
  );
  const top = rankAfterSources(ranked, following.after, (rows) =>
    topByRelevance(
      orderByScore(rows, (g) =>
        recencyFactors(
          g.map((r) => ({
            relevance: r.relevance,
            ts: recencyTs(r.item, following),
            judges: [r.rerank],
            words: matchedStems(stems, r.item.text),
          })),
          opts.now,
          opts.halfLifeDays,
        ),
      ),
      opts.k,
      tier,
      (r) => parseTimestamp(r.item.ts) ?? Number.POSITIVE_INFINITY,
    ),
  );
  return { top, legsOf: new Map(evidence.map((e) => [e.id, e.foundBy])) };
}

/**
 * The pool with each passage's relevance judged with the turns around it and any time the question names
 * (search/session-evidence.ts), best first. The cross-encoder, when it runs, reads each passage alone and
 * is blended with this relevance.
 */
function bySessionEvidence<T extends { item: HitRow; relevance: number }>(
  pool: T[],
  stems: string[],
  named: NamedTime[],
): T[] {
  const judged = withSessionEvidence(
    pool.map((p) => ({ ...candidateOf(p.item), relevance: p.relevance })),
    stems,
    named,
  );
  return pool
    .map((p, i) => Object.assign(p, { relevance: judged[i] as number }))
    .sort((a, b) => b.relevance - a.relevance);
}

/**
 * The cross-encoder's half of a reranked passage's relevance judged with the turns around it too, as its
 * retrieval half already is (`bySessionEvidence`): the cross-encoder reads one passage at a time, so a turn
 * that restates the question would otherwise outweigh the exchange that answers it. Its neighbours count
 * by their own cross-encoder scores, not by the question's words they hold: a passage the cross-encoder
 * relates to the question without sharing its words keeps its standing. Kept on the cross-encoder's own
 * scale (its best probability), so the blend means what it did.
 */
function withSessionRerank(
  ranked: { item: HitRow; relevance: number; retrieval: number; rerank: number | null }[],
  named: NamedTime[],
): void {
  const judged = ranked.filter((r) => r.rerank !== null);
  if (judged.length === 0) return;
  const best = Math.max(...judged.map((r) => r.rerank as number));
  const ce = withSessionEvidence(
    judged.map((r) => ({ ...candidateOf(r.item), relevance: Math.max(MIN_RERANK, r.rerank as number) })),
    [],
    named,
  );
  judged.forEach((r, i) => {
    r.relevance = blendRelevance((ce[i] as number) * best, r.retrieval);
  });
}

/** The smallest cross-encoder probability the evidence step works with (0 would take no share). */
const MIN_RERANK = 1e-6;

/** What the evidence step needs of a row (search/session-evidence.ts). */
function candidateOf(item: HitRow) {
  return {
    session: `${item.harness}\u0000${item.sessionId}`,
    turn: item.turnUuid,
    seq: item.seq,
    text: item.text,
    ts: item.ts,
  };
}

type Ranked = Awaited<ReturnType<typeof rankPool>>;

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
    const ranked = await rankPool(found, legs, filters, opts, notes, kinds, { read, hidden });
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
