/**
 * A passage judged with the session it belongs to. A question about a conversation is answered by a
 * session more often than by one line of it: the answer's words are spread over several turns ("what did
 * they decide about the ledger?" — the ledger in one turn, the decision in the next), and the turn that
 * repeats most of the question's words is often a passing mention in another session. So each candidate
 * keeps half of its own relevance and takes half from its session's evidence: its session's best candidate
 * plus half of the next ones (several matching turns are more evidence than one), scaled by how many of the
 * question's content words the session's candidates hold between them. And a question that names a time
 * (time-mentions.ts) counts a passage from that time double.
 *
 * Ranking only: what is stored, returned and cited stays the passage itself.
 */
import { contentStems, matchedStems } from "./query-words.js";
import { type NamedTime, timeMatch } from "./time-mentions.js";

/** What a candidate brings. */
export interface SessionCandidate {
  relevance: number;
  /** Its session, told apart by agent too (two agents' sessions may share an id). */
  session: string;
  text: string;
  ts: string;
}

/** Share of a candidate's relevance that comes from its session's evidence. */
export const SESSION_SHARE = 0.5;

/** How much each further matching candidate of a session adds, relative to its best one. */
const FURTHER_SHARE = 0.5;

/** How many further candidates of one session count (a session that repeats a word all day is no better). */
const FURTHER_MAX = 4;

/**
 * Relevance with session evidence and named times, one value per candidate (same order), in (0, 1] with 1
 * the best. Candidates with no session-mates and no named time keep their order among themselves.
 */
export function withSessionEvidence(items: SessionCandidate[], query: string, named: NamedTime[]): number[] {
  if (items.length === 0) return [];
  const own = items.map((c) => c.relevance * (1 + timeMatch(c.ts, named)));
  const stems = contentStems(query);
  const bySession = new Map<string, number[]>();
  items.forEach((c, i) => {
    const list = bySession.get(c.session) ?? [];
    list.push(i);
    bySession.set(c.session, list);
  });
  const sessionScore = new Map<string, number>();
  for (const [session, idx] of bySession) {
    const scores = idx.map((i) => own[i] as number).sort((a, b) => b - a);
    const further = scores.slice(1, 1 + FURTHER_MAX).reduce((s, x) => s + x, 0);
    let coverage = 1;
    if (stems.length > 0) {
      const seen = new Set<string>();
      for (const i of idx)
        for (const s of matchedStems(stems, (items[i] as SessionCandidate).text)) seen.add(s);
      coverage = seen.size / stems.length;
    }
    sessionScore.set(session, ((scores[0] as number) + FURTHER_SHARE * further) * (0.5 + 0.5 * coverage));
  }
  const maxOwn = Math.max(...own);
  const maxSession = Math.max(...sessionScore.values());
  const mixed = items.map(
    (c, i) =>
      (1 - SESSION_SHARE) * ((own[i] as number) / maxOwn) +
      SESSION_SHARE * ((sessionScore.get(c.session) as number) / maxSession),
  );
  const best = Math.max(...mixed);
  return mixed.map((x) => (best > 0 ? x / best : 0));
}
