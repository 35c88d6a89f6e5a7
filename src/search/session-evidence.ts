/**
 * A passage judged with the turns around it. A question about a conversation is answered by a stretch of
 * it more often than by one line: the answer's words are spread over neighbouring turns ("what did they
 * decide about the ledger?" — the ledger in one turn, the decision in the next), and the turn that repeats
 * most of the question's words is often a passing mention elsewhere. So each candidate keeps two thirds of
 * its own relevance and takes a third from its context: the candidates within `CONTEXT_TURNS` turns of it
 * in its session (its own turn's other pieces excepted), the best of each further turn adding half its
 * relevance, scaled by how much of the question those turns hold between them. Each question word counts
 * there by its rarity among the candidates, so a name only one passage holds weighs more than a common word
 * every candidate repeats. And a question that names a time (time-mentions.ts) counts a passage from that
 * time double.
 *
 * Context is a window, not the whole session: a session of hundreds of turns holds every common word
 * somewhere, and its scattered mentions are no evidence for one another (BM25 normalises by length for
 * the same reason).
 *
 * Ranking only: what is stored, returned and cited stays the passage itself.
 */
import { matchedStems } from "./query-words.js";
import { type NamedTime, timeMatch } from "./time-mentions.js";

/** What a candidate brings. */
export interface SessionCandidate {
  relevance: number;
  /** Its session, told apart by agent too (two agents' sessions may share an id). */
  session: string;
  /** Its turn: a long turn's pieces are one turn's evidence, not several. */
  turn: string;
  /** Its turn's position in the session. */
  seq: number;
  text: string;
  ts: string;
}

/** Share of a candidate's relevance that comes from its context. */
export const CONTEXT_SHARE = 1 / 3;

/** How far from a candidate, in turns, its context reaches. */
export const CONTEXT_TURNS = 8;

/** How much each further matching turn adds, relative to the candidate itself. */
const FURTHER_SHARE = 0.5;

/** How many further turns count (a stretch that repeats a word all day is no better). */
const FURTHER_MAX = 4;

/**
 * Relevance with context evidence and named times, one value per candidate (same order), in (0, 1] with 1
 * the best. `stems` are the question's content stems (query-words.ts `contentStems`). Candidates with no
 * neighbours and no named time keep their order among themselves.
 */
export function withSessionEvidence(
  items: SessionCandidate[],
  stems: string[],
  named: NamedTime[],
): number[] {
  if (items.length === 0) return [];
  const own = items.map((c) => c.relevance * (1 + timeMatch(c.ts, named)));
  const matched = items.map((c) => matchedStems(stems, c.text));
  const weight = stemWeights(stems, matched);
  const total = [...weight.values()].reduce((a, w) => a + w, 0);
  const bySession = new Map<string, number[]>();
  items.forEach((c, i) => {
    const list = bySession.get(c.session) ?? [];
    list.push(i);
    bySession.set(c.session, list);
  });
  const evidence = items.map((c, i) => {
    const near = (bySession.get(c.session) as number[]).filter(
      (j) => Math.abs((items[j] as SessionCandidate).seq - c.seq) <= CONTEXT_TURNS,
    );
    const bestOfTurn = new Map<string, number>();
    const seen = new Set<string>();
    for (const j of near) {
      for (const s of matched[j] as Set<string>) seen.add(s);
      const turn = (items[j] as SessionCandidate).turn;
      if (turn !== c.turn) bestOfTurn.set(turn, Math.max(bestOfTurn.get(turn) ?? 0, own[j] as number));
    }
    const further = [...bestOfTurn.values()]
      .sort((a, b) => b - a)
      .slice(0, FURTHER_MAX)
      .reduce((a, x) => a + x, 0);
    const coverage = total > 0 ? [...seen].reduce((a, s) => a + (weight.get(s) as number), 0) / total : 1;
    return ((own[i] as number) + FURTHER_SHARE * further) * (0.5 + 0.5 * coverage);
  });
  const maxOwn = Math.max(...own);
  const maxEvidence = Math.max(...evidence);
  const mixed = items.map(
    (_, i) =>
      (1 - CONTEXT_SHARE) * ((own[i] as number) / maxOwn) +
      CONTEXT_SHARE * ((evidence[i] as number) / maxEvidence),
  );
  const best = Math.max(...mixed);
  return mixed.map((x) => (best > 0 ? x / best : 0));
}

/** Each stem's weight: its rarity among the candidates, ln(1 + candidates ÷ candidates holding it). */
function stemWeights(stems: string[], matched: Set<string>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of stems) {
    const df = matched.reduce((n, m) => n + (m.has(s) ? 1 : 0), 0);
    out.set(s, Math.log(1 + matched.length / Math.max(1, df)));
  }
  return out;
}
