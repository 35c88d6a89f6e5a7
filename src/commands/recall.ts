/**
 * `funes recall`: vector search and BM25, each prefiltered (type, agent, time) and `candidates` deep; every
 * candidate scored on both legs' real scores (search/relevance.ts); the pool reranked by the cross-encoder
 * best-first under a time budget, blended with retrieval; recency among near-equals (search/recency.ts);
 * the top k with their neighbour turns. Rows still waiting for a vector are found by
 * BM25; a memory with no vectors, or a machine without the models, still answers (and says how).
 */
import { existsSync } from "node:fs";
import {
  annDir,
  annSearch,
  buildAnnIndex,
  EMBEDDING_MODEL,
  type HitRow,
  hasHarnessColumn,
  keywordSearch,
  type LocalStore,
  rowsInRanges,
  sqlString,
  vectorSearch,
} from "../local/index.js";
import {
  type Candidate,
  dot,
  fuseEvidence,
  type Leg,
  orderByScore,
  parseTimeBound,
  pickNeighbors,
  poolOf,
  recencyFactors,
  rerankWithinBudget,
  withinTime,
} from "../search/index.js";
import { type Harness, parseHarness, UnknownHarnessError } from "../traces/index.js";
import { BadArgumentError, FunesError } from "./errors.js";
import type { ModelSession } from "./model-session.js";
import {
  noIndexMessage,
  openReadTarget,
  openReadTargets,
  openStore,
  type ReadContext,
  type ReadTarget,
  readWith,
} from "./open-memory.js";
import { terminalSafeRecall } from "./safe-text.js";

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
  neighbors: RecallNeighbor[];
}

/** Hits plus the notes a reader should see first (keyword-only, …). */
export interface RecallResult {
  memory: string;
  notes: string[];
  hits: RecallHit[];
}

interface Filters {
  where: string | undefined;
  since: number | null;
  until: number | null;
}

function buildFilters(opts: RecallOptions, harness: Harness | null): Filters {
  const parts: string[] = [];
  if (opts.blockType !== undefined) parts.push(`block_type = ${sqlString(opts.blockType)}`);
  if (harness !== null) parts.push(`harness = ${sqlString(harness)}`);
  const bound = (v: string | undefined, arg: "since" | "until"): number | null => {
    if (v === undefined) return null;
    const t = parseTimeBound(v, opts.now);
    if (t === null)
      throw new BadArgumentError({
        arg,
        flag: `--${arg}`,
        value: v,
        problem: "is not a date, a timestamp or a span like 7d, 12h, 2w",
      });
    return t;
  };
  const since = bound(opts.since, "since");
  const until = bound(opts.until, "until");
  // Stored timestamps are ISO strings in UTC: a string comparison is a close prefilter, made exact below.
  if (since !== null) parts.push(`ts >= ${sqlString(new Date(since).toISOString().slice(0, 19))}`);
  if (until !== null) parts.push(`ts <= ${sqlString(`${new Date(until).toISOString().slice(0, 19)}\uffff`)}`);
  return { where: parts.length > 0 ? parts.join(" AND ") : undefined, since, until };
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
        problem: "is not a harness (expected claude, codex, pi or hermes)",
      });
    throw err;
  }
}

/** Whether a memory version has any vector, remembered per process (the MCP server asks on every call). */
const vectorsSeen = new Map<string, boolean>();

async function hasVectors(store: LocalStore): Promise<boolean> {
  const key = `${store.dir}@${await store.table.version()}`;
  let seen = vectorsSeen.get(key);
  if (seen === undefined) {
    // One matching row is enough: far cheaper than counting them all.
    seen =
      (await store.table.query().where("vector IS NOT NULL").select(["id"]).limit(1).toArray()).length > 0;
    vectorsSeen.set(key, seen);
  }
  return seen;
}

/** An opened memory taking part in a recall. */
interface OpenMemory {
  label: string;
  dir: string;
  store: LocalStore;
  /** Searched through its side index (a cached Hub memory in a federated recall). */
  ann: boolean;
}

/** Opens every target's table; a single memory's failure is the recall's, several memories' are warnings. */
async function openAll(targets: ReadTarget[]): Promise<{ open: OpenMemory[]; warnings: string[] }> {
  const open: OpenMemory[] = [];
  const warnings: string[] = [];
  try {
    for (const { memory } of targets) {
      let store: LocalStore | null;
      try {
        store = await openStore(memory);
        if (store !== null && (await store.table.countRows()) === 0) {
          store.close();
          store = null;
        }
      } catch (err) {
        if (targets.length === 1) throw err;
        if (err instanceof FunesError && err.code === "incompatible_memory")
          throw new FunesError(
            "incompatible_memory",
            `can't recall across memories embedded with different models — ${err.message}; the others use ${EMBEDDING_MODEL}. Recall them separately`,
          );
        warnings.push(
          `warning: ${memory.label} could not be read (${err instanceof Error ? err.message : String(err)}) — answering from the others`,
        );
        continue;
      }
      if (store === null) {
        if (targets.length === 1) throw new FunesError("no_memory", noIndexMessage(memory));
        warnings.push(`warning: ${memory.label} holds no index yet — answering from the others`);
        continue;
      }
      // Several memories at once: a large cached Hub memory gets a side index (built once per commit), so
      // searching it costs a fraction of an exact scan.
      let ann = false;
      if (targets.length > 1 && memory.label.startsWith("hf://")) {
        const t0 = performance.now();
        const existed = existsSync(annDir(memory.dir));
        ann = await buildAnnIndex(store.table, memory.dir);
        if (ann && !existed)
          warnings.push(
            `note: indexed the vectors of ${memory.label} for searching several memories at once (${((performance.now() - t0) / 1000).toFixed(1)} s, once per commit)`,
          );
      }
      open.push({ label: memory.label, dir: memory.dir, store, ann });
    }
  } catch (err) {
    for (const m of open) m.store.close();
    throw err;
  }
  if (open.length === 0)
    throw new FunesError("no_memory", `none of the memories could be read: ${warnings.join("; ")}`);
  return { open, warnings };
}

/**
 * Recalls from one memory, or from several at once (federated): each memory is searched as usual, every
 * leg of every memory is scored under one scale, and the pool is reranked together. A chunk held by two
 * memories is shown once, under the first memory (in the order given) that holds it.
 */
export async function recall(
  target: ReadTarget | ReadTarget[],
  opts: RecallOptions,
  models: ModelSession,
): Promise<RecallResult> {
  const targets = Array.isArray(target) ? target : [target];
  const harness = checkOptions(opts);
  const filters = buildFilters(opts, harness);
  const { open, warnings } = await openAll(targets);
  try {
    const notes: string[] = [...targets.flatMap((t) => t.notes), ...warnings];
    if (harness !== null)
      for (const m of open)
        if (!(await hasHarnessColumn(m.store.table)))
          throw new FunesError(
            "bad_input",
            `${open.length > 1 ? `${m.label}: ` : ""}this memory predates the harness facet — reindex it, or drop --harness`,
          );
    const withVectors = await Promise.all(open.map((m) => hasVectors(m.store)));
    // With several memories each leg goes less deep (candidates / memories, at least 10): the pool still
    // holds `candidates` rows across all of them.
    const depth =
      open.length === 1 ? opts.candidates : Math.max(10, Math.ceil(opts.candidates / open.length));
    // Everything that needs no query vector starts now and overlaps loading the embedder and embedding the
    // query: the keyword legs (Lance works on its own threads) and loading the reranker.
    const rerankerP = opts.rerankBudgetMs > 0 ? models.reranker() : null;
    const canEmbed = withVectors.some((v) => v) && models.hasEmbedder();
    const keywordP = Promise.all(
      open.map((m, i) =>
        keywordSearch(m.store.table, {
          query: opts.query,
          limit: depth,
          where: filters.where,
          // Keyword hits' vectors score them on the vector leg too; useless without an embedder.
          vectors: withVectors[i] === true && canEmbed,
        }),
      ),
    );
    // Awaited below; marked handled so a failure while the embedder loads is not reported twice.
    for (const p of [rerankerP, keywordP]) p?.catch(() => {});
    let qv: Float32Array | null = null;
    if (withVectors.some((v) => v)) {
      const emb = await models.embedder();
      if (emb.kind === "ready") qv = ((await emb.model.embed([opts.query]))[0] as Float32Array) ?? null;
      else notes.push(`note: keyword-only recall — ${emb.reason}`);
    }
    const home = new Map<string, OpenMemory>();
    const byId = new Map<string, HitRow>();
    const candidates = new Map<string, Candidate>();
    const [keywordLegs, vectorLegs] = await Promise.all([
      keywordP,
      Promise.all(
        open.map((m, i) => {
          const v = withVectors[i] === true ? qv : null;
          if (v === null) return null;
          return m.ann && filters.where === undefined
            ? annSearch(m.store.table, m.dir, v, depth).then(
                (hits) =>
                  hits ?? vectorSearch(m.store.table, { vector: v, limit: depth, where: filters.where }),
              )
            : vectorSearch(m.store.table, { vector: v, limit: depth, where: filters.where });
        }),
      ),
    ]);
    const candidate = (r: HitRow, m: OpenMemory, rank: number): Candidate => {
      let c = candidates.get(r.id);
      if (c === undefined) {
        c = { id: r.id, bm25: null, similarity: null, foundBy: [], bestRank: rank };
        candidates.set(r.id, c);
        byId.set(r.id, r);
        home.set(r.id, m);
      }
      c.bestRank = Math.min(c.bestRank, rank);
      return c;
    };
    for (const [i, m] of open.entries()) {
      const vec = vectorLegs[i] ?? null;
      const kw = keywordLegs[i] ?? [];
      for (const [rank, r] of (vec ?? []).entries()) {
        const c = candidate(r, m, rank);
        c.similarity = Math.max(c.similarity ?? -1, r.similarity);
        if (!c.foundBy.includes("vector")) c.foundBy.push("vector");
      }
      for (const [rank, r] of kw.entries()) {
        const c = candidate(r, m, rank);
        c.bm25 = Math.max(c.bm25 ?? 0, r.bm25);
        if (qv !== null && r.vector !== null && c.similarity === null) c.similarity = dot(qv, r.vector);
        if (!c.foundBy.includes("keyword")) c.foundBy.push("keyword");
      }
    }
    const evidence = fuseEvidence([...candidates.values()]);
    const found = new Map(evidence.map((e) => [e.id, e]));
    const pool = poolOf(evidence, opts.candidates)
      .map((e) => ({ item: byId.get(e.id) as HitRow, relevance: e.relevance }))
      .filter((p) => withinTime(p.item.ts, filters.since, filters.until));
    const reranker = rerankerP !== null && pool.length > 0 ? await rerankerP : null;
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
    const top = orderByScore(ranked, (g) =>
      recencyFactors(
        g.map((r) => ({ relevance: r.relevance, ts: r.item.ts })),
        opts.now,
        opts.halfLifeDays,
      ),
    ).slice(0, opts.k);
    const around: HitRow[] = [];
    if (opts.neighbors > 0)
      for (const m of open) {
        const mine = top.filter((h) => home.get(h.item.id) === m);
        if (mine.length === 0) continue;
        around.push(
          ...(await rowsInRanges(
            m.store.table,
            mine.map((h) => ({
              sessionId: h.item.sessionId,
              from: h.item.seq - opts.neighbors,
              to: h.item.seq + opts.neighbors,
            })),
          )),
        );
      }
    const hits = top.map((h) => {
      const m = home.get(h.item.id) as OpenMemory;
      return {
        ...h.item,
        memory: m.label,
        score: h.score,
        relevance: h.relevance,
        recency: h.weight,
        rerank: h.rerank,
        reranked: h.rerank !== null,
        legs: found.get(h.item.id)?.foundBy ?? [],
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
      };
    });
    return { memory: open.map((m) => m.label).join(", "), notes, hits };
  } finally {
    for (const m of open) m.store.close();
  }
}

/**
 * The reference's agent format (shared/spec/core.md §5.5), byte for byte: header, `→ get` line, the full
 * chunk text, `~` neighbour lines clipped to 160 code points, `---`. No hits → exactly `no results`. Notes,
 * if any, come first, one per line.
 */
export function formatRecallAgent(result: RecallResult): string {
  const r = terminalSafeRecall(result); // every field may be a stranger's (a Hub memory): safe-text.ts
  const note = r.notes.map((n) => `${n}\n`).join("");
  if (r.hits.length === 0) return `${note}no results`;
  let out = note;
  for (const h of r.hits) {
    const session8 = Buffer.from(h.sessionId, "utf8").subarray(0, 8).toString("utf8");
    out += `[${h.ts}] ${h.harness} ${h.workdir}/${session8} ${h.blockType}  score=${h.score.toFixed(3)}\n`;
    out += `  → get ${h.sessionId} ${h.turnUuid}${h.memory === "" ? "" : ` --memory ${h.memory}`}\n`;
    out += `${h.text}\n`;
    for (const n of h.neighbors)
      out += `  ~ [${n.role} ${n.blockType} seq${n.seq}] ${Array.from(n.text).slice(0, 160).join("")}\n`;
    out += "---\n";
  }
  return out;
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
  const { targets, warnings } = await openReadTargets(specs, ctx);
  const result = await recall(targets, opts, models);
  // Cached copies were read while their heads were checked: read again only if one of them moved.
  const fresh = await Promise.all(
    targets.map((t) => (t.verify === undefined ? null : t.verify().catch((err: unknown) => ({ err })))),
  );
  if (fresh.every((f) => f === null)) return { ...result, notes: [...warnings, ...result.notes] };
  const again: ReadTarget[] = [];
  const more = [...warnings];
  fresh.forEach((f, i) => {
    const t = targets[i] as ReadTarget;
    if (f === null) again.push(t);
    else if ("err" in f)
      more.push(
        `warning: ${t.memory.label} could not be read (${f.err instanceof Error ? f.err.message : String(f.err)}) — answering from the others`,
      );
    else again.push(f);
  });
  const second = await recall(again, opts, models);
  return { ...second, notes: [...more, ...second.notes] };
}
