/**
 * Passages quoted whole or in large part, however they got there: an answer the agent wrote to a notes
 * file and read back, a user pasting a passage into a later session, an agent quoting what it recalled, a
 * script's own print-out of funes's output. Told by the words they share, never by the command that moved
 * them. Words are compared as runs (`COPY_RUN_WORDS` words in a row), so a few common phrases do not make a copy.
 */
import { parseTimestamp } from "./recency.js";

/** Words in a row that two texts must share for that stretch to count as quoted. */
export const COPY_RUN_WORDS = 12;

/** Fewest words a quoted passage has: below this, sharing words is no evidence (`yes`, `run the tests`). */
export const MIN_QUOTED = 16;

/** Share of the shorter text that must lie in runs the longer one holds, for one to be a copy of the other. */
export const QUOTED_SHARE = 0.5;

/** Word ids of a text: lowercased letters and digits, each word given a number the first time it is seen. */
export function wordIds(text: string, vocab: Map<string, number>, add = true): number[] {
  const out: number[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    let id = vocab.get(m[0]);
    if (id === undefined) {
      if (!add) {
        out.push(-1);
        continue;
      }
      id = vocab.size;
      vocab.set(m[0], id);
    }
    out.push(id);
  }
  return out;
}

/** Hash of `n` word ids from `at` (FNV-style, 32-bit). */
export function runHash(ids: number[], at: number, n: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + n; i++) h = Math.imul(h ^ (ids[i] as number), 0x01000193) >>> 0;
  return h;
}

/** Hashes of every run of `n` words in `ids`. */
export function runsOf(ids: number[], n: number): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i + n <= ids.length; i++) out.add(runHash(ids, i, n));
  return out;
}

/** Share of `ids`' words that lie in a run of `n` words found in `runs`. */
export function coveredShare(ids: number[], runs: Set<number>, n: number): number {
  if (ids.length === 0) return 0;
  let covered = 0;
  let reach = 0; // first position not yet counted
  for (let i = 0; i + n <= ids.length; i++)
    if (runs.has(runHash(ids, i, n))) {
      covered += i + n - Math.max(i, reach);
      reach = i + n;
    }
  return covered / ids.length;
}

/** What `copyLinks` needs of a row. */
export interface DatedText {
  id: string;
  text: string;
  ts: string;
  sessionId: string;
  turnUuid: string;
  seq: number;
}

/** Earlier first: by time, then (within a session) by seq; null when neither tells (the same moment). */
function earlier(a: DatedText, b: DatedText): boolean | null {
  const ta = parseTimestamp(a.ts);
  const tb = parseTimestamp(b.ts);
  if (ta !== null && tb !== null && ta !== tb) return ta < tb;
  if (a.sessionId === b.sessionId && a.seq !== b.seq) return a.seq < b.seq;
  return null;
}

/**
 * For each row of `rows` that is a later copy of others among them or among `sources`, the ids of those
 * others: the two share runs of COPY_RUN_WORDS words covering at least QUOTED_SHARE of the shorter text,
 * which has MIN_QUOTED words or more, and the copy is the later one (two pieces of one turn are never each
 * other's copy). Pure; rows × (rows + sources) comparisons (a recall's pool and the turns read around it).
 */
export function copyLinks(rows: DatedText[], sources: DatedText[] = []): Map<string, string[]> {
  const vocab = new Map<string, number>();
  const all = [...rows, ...sources.filter((s) => !rows.some((r) => r.id === s.id))];
  const ids = all.map((r) => wordIds(r.text, vocab));
  const runs = ids.map((w) => runsOf(w, COPY_RUN_WORDS));
  const out = new Map<string, string[]>();
  for (let a = 0; a < rows.length; a++)
    for (let b = 0; b < all.length; b++) {
      const [ra, rb] = [all[a] as DatedText, all[b] as DatedText];
      if (a === b || (ra.sessionId === rb.sessionId && ra.turnUuid === rb.turnUuid)) continue;
      // a copies b: a is later, and the shorter of the two lies mostly in runs of the longer.
      if (earlier(rb, ra) !== true) continue;
      const [wa, wb] = [ids[a] as number[], ids[b] as number[]];
      const short = wa.length <= wb.length ? a : b;
      const long = short === a ? b : a;
      if ((ids[short] as number[]).length < MIN_QUOTED) continue;
      if (coveredShare(ids[short] as number[], runs[long] as Set<number>, COPY_RUN_WORDS) < QUOTED_SHARE)
        continue;
      const list = out.get(ra.id) ?? [];
      list.push(rb.id);
      out.set(ra.id, list);
    }
  return out;
}

/** A ranked row as `rankAfterSources` moves it (search/rerank.ts's `Ranked`). */
export interface Placeable {
  item: { id: string };
  relevance: number;
  retrieval: number;
  rerank: number | null;
}

/**
 * Ranks `ranked` with `rank` so that no row comes before a row it must follow (`after`: id → ids; a
 * question or restatement follows the passages its recall returned, a copy what it copies; ids not in
 * `ranked` are ignored, and of a cycle the edge that closes it). Before ranking, a follower's relevance is
 * capped just below the least of its sources' (in the sources' rerank group: a follower reranked while a
 * source was not joins the unreranked), so the k chosen hold a source wherever they hold its follower; after
 * it, each follower is moved after its sources among those chosen and its score capped just below theirs.
 * The relevance and rerank shown are the row's own again.
 */
export function rankAfterSources<R extends Placeable, S extends R & { score: number }>(
  ranked: R[],
  after: Map<string, string[]>,
  rank: (rows: R[]) => S[],
): S[] {
  const byId = new Map(ranked.map((r) => [r.item.id, r]));
  const edges = new Map<string, string[]>();
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (id: string) => {
    state.set(id, "open");
    const kept: string[] = [];
    for (const d of after.get(id) ?? []) {
      if (d === id || !byId.has(d) || state.get(d) === "open") continue;
      if (!state.has(d)) visit(d);
      kept.push(d);
    }
    if (kept.length > 0) edges.set(id, kept);
    state.set(id, "done");
    order.push(id);
  };
  for (const id of byId.keys()) if (!state.has(id) && after.has(id)) visit(id);
  const own = new Map<string, { relevance: number; rerank: number | null }>();
  for (const id of order) {
    const deps = edges.get(id);
    const e = byId.get(id);
    if (deps === undefined || e === undefined) continue;
    own.set(id, { relevance: e.relevance, rerank: e.rerank });
    const sources = deps.map((d) => byId.get(d) as R);
    if (e.rerank !== null && sources.some((s) => s.rerank === null)) {
      e.rerank = null;
      e.relevance = e.retrieval;
    }
    const peers = sources.filter((s) => (s.rerank === null) === (e.rerank === null));
    if (peers.length > 0)
      e.relevance = Math.min(e.relevance, Math.min(...peers.map((s) => s.relevance)) * (1 - 1e-9));
  }
  const top = rank(ranked);
  for (const id of order) {
    const deps = edges.get(id);
    if (deps === undefined) continue;
    const at = top.findIndex((t) => t.item.id === id);
    if (at < 0) continue;
    const shown = deps.map((d) => top.findIndex((t) => t.item.id === d)).filter((i) => i >= 0);
    if (shown.length === 0) continue;
    const [e] = top.splice(at, 1) as [S];
    const last = Math.max(...shown.map((i) => (i > at ? i - 1 : i)));
    top.splice(last + 1, 0, e);
    e.score = Math.min(
      e.score,
      Math.min(...shown.map((i) => (top[i > at ? i - 1 : i] as S).score)) * (1 - 1e-6),
    );
  }
  for (const t of top) {
    const o = own.get(t.item.id);
    if (o !== undefined) Object.assign(t, o);
  }
  for (const [id, o] of own) Object.assign(byId.get(id) as R, o);
  return top;
}
