/**
 * The copies a forget takes with what it forgets. Every recall an agent made is indexed like any other
 * turn, so a passage recalled once lives on in that recall's output (funes's own words, with the passage's
 * `→ get` line) and in the agent's prose after it. Forgetting the passage and leaving those would forget
 * nothing. A copy is a row that is funes's own output read back, or an agent's restatement of one
 * (search/echoes.ts), and that is tied to a forgotten turn:
 * - an output by the turns it names (its block's `→ get` lines, JSON ids, `get`'s `turn=` headers): it
 *   quotes those turns and no others, so words it shares with a forgotten row while naming other turns are
 *   another passage's (a licence header, a generated banner), not a copy;
 * - a restatement by the turns its recall returned (the exchange's output), and the forgotten words it
 *   repeats (a run of COPY_RUN words);
 * - an output naming no turn, or a restatement of one, by the forgotten words alone: runs of COPY_RUN words
 *   that cover QUOTED_SHARE of a forgotten row, none of them common in the memory (held by rows of
 *   BOILERPLATE_SESSIONS sessions or more).
 * Nothing else is taken: an unrelated session that happens to print the same lines is not a copy.
 */
import type { ForgetCandidate } from "../local/index.js";
import {
  coveredShare,
  QUOTED_SHARE,
  quotedTurns,
  runHash,
  runsOf,
  sessionKinds,
  turnIndex,
  turnKey,
  wordIds,
} from "../search/index.js";

/** Words in a row that must follow a forgotten row's words one for one to tie it to that row. */
export const COPY_RUN = 16;

/** A run held by rows of this many sessions or more is boilerplate: it ties no row to another. */
export const BOILERPLATE_SESSIONS = 3;

/** A copy candidate: a row of funes's output or a restatement, with the turns tied to it. */
interface Candidate {
  row: ForgetCandidate;
  kind: "echo" | "restatement";
  /** Turns its block names (an echo) or its recall returned (a restatement); null when none. */
  turns: Set<string> | null;
  /** Turn uuids `get`'s format names (`turn=<uuid>`), session unsaid. */
  turnIds: Set<string>;
}

/** Rows of funes's own output read back, and agents' restatements of them, among `rows` (all sessions). */
function candidates(rows: ForgetCandidate[]): Candidate[] {
  const sessions = new Map<string, ForgetCandidate[]>();
  for (const r of rows) {
    const list = sessions.get(r.sessionId) ?? [];
    list.push(r);
    sessions.set(r.sessionId, list);
  }
  const out: Candidate[] = [];
  for (const list of sessions.values()) {
    const { kinds, links } = sessionKinds(list);
    // What each echo block names, over all its pieces (a long output's `→ get` lines are spread over them).
    const named = new Map<string, { turns: Set<string>; ids: Set<string> }>();
    const block = (r: ForgetCandidate) => `${r.turnUuid}\u0000${r.blockIdx}`;
    list.forEach((r, i) => {
      if (kinds[i] !== "echo") return;
      const b = named.get(block(r)) ?? { turns: new Set<string>(), ids: new Set<string>() };
      named.set(block(r), b);
      for (const q of quotedTurns(r.text)) b.turns.add(turnKey(q.sessionId, q.turnUuid));
      for (const m of r.text.matchAll(/^\[[^\]\n]{1,64}\] [\w-]+ seq-?\d+ turn=(\S+)$/gm))
        b.ids.add(m[1] as string);
    });
    list.forEach((r, i) => {
      const kind = kinds[i];
      if (kind === "echo") {
        const b = named.get(block(r));
        const turns = b !== undefined && b.turns.size > 0 ? b.turns : null;
        out.push({ row: r, kind, turns, turnIds: b?.ids ?? new Set() });
      } else if (kind === "restatement") {
        const l = links[i] ?? [];
        out.push({ row: r, kind, turns: l.length > 0 ? new Set(l) : null, turnIds: new Set() });
      }
    });
  }
  return out;
}

/** Hashes of the runs of `n` words of `ids` found in `runs`. */
function sharedRuns(ids: number[], runs: Set<number>, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + n <= ids.length; i++) {
    const h = runHash(ids, i, n);
    if (runs.has(h)) out.push(h);
  }
  return out;
}

/**
 * The copies of `selected` among `all` (see the file header), not counting rows already selected. Rows
 * shorter than COPY_RUN words are matched by their whole text.
 */
export function copiesOf(all: ForgetCandidate[], selected: ForgetCandidate[]): ForgetCandidate[] {
  if (selected.length === 0) return [];
  const chosen = new Set(selected.map((r) => r.id));
  const forgottenTurn = turnIndex(selected);
  const turnIds = new Set(selected.map((r) => r.turnUuid));
  const vocab = new Map<string, number>();
  // Each forgotten row's words and runs; a short row is its own run, one of a few words no evidence.
  const forgotten = selected
    .map((r) => {
      const ids = wordIds(r.text, vocab, true);
      const n = Math.min(COPY_RUN, ids.length);
      return { row: r, ids, n, runs: runsOf(ids, n) };
    })
    .filter((f) => f.n >= 6);
  const allRuns = new Map<number, Set<number>>();
  for (const f of forgotten) {
    const set = allRuns.get(f.n) ?? new Set<number>();
    allRuns.set(f.n, set);
    for (const h of f.runs) set.add(h);
  }
  const out: ForgetCandidate[] = [];
  const byWords: { c: Candidate; ids: number[] }[] = [];
  for (const c of candidates(all.filter((r) => !chosen.has(r.id)))) {
    const tied = c.turns !== null && [...c.turns].some((t) => forgottenTurn(t).length > 0);
    const named = [...c.turnIds].some((t) => turnIds.has(t));
    if (c.kind === "echo" && (c.turns !== null || c.turnIds.size > 0)) {
      if (tied || named) out.push(c.row);
      continue;
    }
    const ids = wordIds(c.row.text, vocab, false);
    if (c.kind === "restatement" && c.turns !== null) {
      if (tied && [...allRuns].some(([n, set]) => sharedRuns(ids, set, n).length > 0)) out.push(c.row);
      continue;
    }
    byWords.push({ c, ids });
  }
  if (byWords.length === 0) return out;
  // Rows tied by words alone: the runs they share must be rare in the memory and cover a large share of a
  // forgotten row.
  const shared = new Set<number>();
  for (const { ids } of byWords)
    for (const [n, set] of allRuns) for (const h of sharedRuns(ids, set, n)) shared.add(h);
  if (shared.size === 0) return out;
  const common = boilerplate(all, vocab, shared, [...allRuns.keys()]);
  for (const { c, ids } of byWords) {
    const rare = forgotten.some((f) => {
      const runs = new Set([...runsOf(ids, f.n)].filter((h) => f.runs.has(h) && !common.has(h)));
      return runs.size > 0 && coveredShare(f.ids, runs, f.n) >= QUOTED_SHARE;
    });
    if (rare) out.push(c.row);
  }
  return out;
}

/** Of the `shared` run hashes, those held by rows of BOILERPLATE_SESSIONS sessions or more of `all`. */
function boilerplate(
  all: ForgetCandidate[],
  vocab: Map<string, number>,
  shared: Set<number>,
  sizes: number[],
) {
  const sessions = new Map<number, Set<string>>();
  for (const r of all) {
    const ids = wordIds(r.text, vocab, false);
    for (const n of sizes)
      for (const h of sharedRuns(ids, shared, n)) {
        const s = sessions.get(h) ?? new Set<string>();
        sessions.set(h, s);
        s.add(r.sessionId);
      }
  }
  return new Set([...sessions].filter(([, s]) => s.size >= BOILERPLATE_SESSIONS).map(([h]) => h));
}
