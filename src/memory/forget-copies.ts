/**
 * The copies a forget takes with what it forgets, and the mentions it shows. Every recall an agent made is
 * indexed like any other turn, so a passage recalled once lives on in that recall's output (funes's own
 * words, with the passage's `→ get` line) and in the agent's prose after it. Forgetting the passage and
 * leaving those would forget nothing. A copy is a row that is funes's own output read back, or an agent's
 * restatement of one (search/echoes.ts), and that is tied to a forgotten turn:
 * - an output by the turns it names (its block's `→ get` lines, JSON ids, `get`'s `turn=` headers): it
 *   quotes those turns and no others, so words it shares with a forgotten row while naming other turns are
 *   another passage's (a licence header, a generated banner), not a copy;
 * - a restatement by the turns its recall returned (the exchange's output), and either the forgotten words
 *   it repeats (a run of COPY_RUN words) or the content it carries: the forgotten row's distinctive tokens
 *   (its rare words, numbers and names, forget-content.ts), in any order and among any other words. The
 *   link says which passage the agent was retelling; the content says this row retells it, and not another
 *   passage the same recall returned;
 * - an output naming no turn, or a restatement of one, by the forgotten words alone: runs of COPY_RUN words
 *   that cover QUOTED_SHARE of a forgotten row, none of them common in the memory (held by rows of
 *   BOILERPLATE_SESSIONS sessions or more).
 * A mention is any other row, of any session, that carries a forgotten original's content by the same
 * measure: an agent retelling the decision a few turns after its recall, a user pasting it elsewhere. It is
 * not tied to the forgotten turn by anything funes wrote, so forget lists it and takes it only when asked.
 * A token counts as distinctive when rows of fewer than BOILERPLATE_SESSIONS sessions hold it, the copies
 * tied to the forgotten turns left out of the count (they hold it because they quote the passage; a
 * decision recalled in many sessions stays distinctive): boilerplate, content many sessions share, never
 * makes a copy or a mention. Nothing else is taken: an unrelated session that happens to print the same
 * lines is not a copy.
 */
import type { ForgetCandidate } from "../local/index.js";
import {
  coveredShare,
  QUOTED_SHARE,
  quotedTurns,
  type RowKind,
  runHash,
  runsOf,
  sessionKinds,
  turnIndex,
  turnKey,
  wordIds,
} from "../search/index.js";
import { carries, contentTokens, MIN_DISTINCT, tokensAmong } from "./forget-content.js";

/** Words in a row that must follow a forgotten row's words one for one to tie it to that row. */
export const COPY_RUN = 16;

/** A run or token held by rows of this many sessions or more is boilerplate: it ties no row to another. */
export const BOILERPLATE_SESSIONS = 3;

/** A row with its kind and, for funes's output and restatements, the turns tied to it. */
interface Candidate {
  row: ForgetCandidate;
  kind: RowKind;
  /** Turns its block names (an echo) or its recall returned (a restatement); null when none. */
  turns: Set<string> | null;
  /** Turn uuids `get`'s format names (`turn=<uuid>`), session unsaid. */
  turnIds: Set<string>;
}

/** Every row of `rows` (all sessions) with its kind, and what funes's outputs and restatements name. */
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
      const kind = kinds[i] ?? "original";
      if (kind === "echo") {
        const b = named.get(block(r));
        const turns = b !== undefined && b.turns.size > 0 ? b.turns : null;
        out.push({ row: r, kind, turns, turnIds: b?.ids ?? new Set() });
      } else {
        const l = kind === "restatement" ? (links[i] ?? []) : [];
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

/** What a forget takes beside the selected rows, and what it only shows. */
export interface CopiesAndMentions {
  /** Tied to a forgotten turn (see the file header): taken with it. */
  copies: ForgetCandidate[];
  /** Carrying a forgotten original's content without a tie: listed, taken only when asked. */
  mentions: ForgetCandidate[];
}

/**
 * The copies of `selected` among `all` (see the file header), not counting rows already selected. Rows
 * shorter than COPY_RUN words are matched by their whole text.
 */
export function copiesOf(all: ForgetCandidate[], selected: ForgetCandidate[]): ForgetCandidate[] {
  return copiesAndMentions(all, selected).copies;
}

/** The copies and the mentions of `selected` among `all` (see the file header), neither selected. */
export function copiesAndMentions(all: ForgetCandidate[], selected: ForgetCandidate[]): CopiesAndMentions {
  if (selected.length === 0) return { copies: [], mentions: [] };
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
  const classes = candidates(all);
  const out: ForgetCandidate[] = [];
  const byWords: { c: Candidate; ids: number[] }[] = [];
  // Restatements linked to a forgotten turn whose words do not run along it: judged by content below.
  const retold: Candidate[] = [];
  // Rows tied to a forgotten turn by what funes wrote: left out of the boilerplate count.
  const tied = new Set<string>();
  for (const c of classes) {
    if (chosen.has(c.row.id) || (c.kind !== "echo" && c.kind !== "restatement")) continue;
    const linked = c.turns !== null && [...c.turns].some((t) => forgottenTurn(t).length > 0);
    const named = [...c.turnIds].some((t) => turnIds.has(t));
    if (c.kind === "echo" && (c.turns !== null || c.turnIds.size > 0)) {
      if (linked || named) {
        out.push(c.row);
        tied.add(c.row.id);
      }
      continue;
    }
    const ids = wordIds(c.row.text, vocab, false);
    if (c.kind === "restatement" && c.turns !== null) {
      if (!linked) continue;
      tied.add(c.row.id);
      if ([...allRuns].some(([n, set]) => sharedRuns(ids, set, n).length > 0)) out.push(c.row);
      else retold.push(c);
      continue;
    }
    byWords.push({ c, ids });
  }
  if (byWords.length > 0) {
    // Rows tied by words alone: the runs they share must be rare in the memory and cover a large share of a
    // forgotten row.
    const shared = new Set<number>();
    for (const { ids } of byWords)
      for (const [n, set] of allRuns) for (const h of sharedRuns(ids, set, n)) shared.add(h);
    const common =
      shared.size === 0 ? new Set<number>() : boilerplate(all, vocab, shared, [...allRuns.keys()]);
    for (const { c, ids } of byWords) {
      const rare = forgotten.some((f) => {
        const runs = new Set([...runsOf(ids, f.n)].filter((h) => f.runs.has(h) && !common.has(h)));
        return runs.size > 0 && coveredShare(f.ids, runs, f.n) >= QUOTED_SHARE;
      });
      if (rare) out.push(c.row);
    }
  }
  const content = distinctive(all, selected, tied);
  for (const c of retold) {
    const tokens = content.tokens.get(c.row.id);
    if (tokens === undefined) continue;
    const sources = [...(c.turns ?? [])].flatMap((t) => forgottenTurn(t));
    if (sources.some((f) => carries(tokens, content.distinct.get(f.id) ?? new Map()))) out.push(c.row);
  }
  return {
    copies: out,
    mentions: mentionsOf(classes, content, new Set([...chosen, ...out.map((r) => r.id)])),
  };
}

/** Distinctive tokens of each selected row, and each row's tokens among them (rows holding none left out). */
interface Content {
  distinct: Map<string, Map<string, boolean>>;
  tokens: Map<string, Set<string>>;
}

/**
 * The distinctive tokens of `selected` (forget-content.ts): their tokens held by rows of fewer than
 * BOILERPLATE_SESSIONS sessions of `all`, the rows in `tied` not counted; and each row's share of them.
 */
function distinctive(all: ForgetCandidate[], selected: ForgetCandidate[], tied: Set<string>): Content {
  const own = new Map(selected.map((r) => [r.id, contentTokens(r.text)]));
  const universe = new Set([...own.values()].flatMap((t) => [...t.keys()]));
  const sessions = new Map<string, Set<string>>();
  const tokens = new Map<string, Set<string>>();
  for (const r of all) {
    const mine = own.get(r.id);
    const held = mine === undefined ? tokensAmong(r.text, universe) : new Set(mine.keys());
    if (held.size === 0) continue;
    tokens.set(r.id, held);
    if (tied.has(r.id)) continue;
    for (const t of held) {
      const s = sessions.get(t) ?? new Set<string>();
      sessions.set(t, s);
      s.add(r.sessionId);
    }
  }
  const rare = (t: string) => (sessions.get(t)?.size ?? 0) < BOILERPLATE_SESSIONS;
  const distinct = new Map([...own].map(([id, t]) => [id, new Map([...t].filter(([k]) => rare(k)))]));
  return { distinct, tokens };
}

/**
 * Rows outside `taken` that carry a selected original's content (see the file header). funes's outputs
 * naming turns are left out: they quote those turns, and a passage among them that carries the content is
 * a mention itself.
 */
function mentionsOf(classes: Candidate[], content: Content, taken: Set<string>): ForgetCandidate[] {
  const refs = classes
    .filter((c) => c.kind === "original" && taken.has(c.row.id))
    .map((c) => content.distinct.get(c.row.id) ?? new Map<string, boolean>())
    .filter((d) => d.size >= MIN_DISTINCT);
  if (refs.length === 0) return [];
  const byToken = new Map<string, number[]>();
  refs.forEach((d, i) => {
    for (const t of d.keys()) byToken.set(t, [...(byToken.get(t) ?? []), i]);
  });
  const out: ForgetCandidate[] = [];
  for (const c of classes) {
    if (taken.has(c.row.id)) continue;
    if (c.kind === "echo" && (c.turns !== null || c.turnIds.size > 0)) continue;
    const tokens = content.tokens.get(c.row.id);
    if (tokens === undefined || tokens.size < MIN_DISTINCT) continue;
    const near = new Set([...tokens].flatMap((t) => byToken.get(t) ?? []));
    if ([...near].some((i) => carries(tokens, refs[i] as Map<string, boolean>))) out.push(c.row);
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
