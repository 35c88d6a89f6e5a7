/**
 * The copies a forget takes with what it forgets. Every recall an agent made is indexed like any other
 * turn, so a passage recalled once lives on in that recall's output (funes's own words, with the passage's
 * `→ get` line) and in the agent's prose after it. Forgetting the passage and leaving those would forget
 * nothing. A copy is a row that is funes's own output read back, or an agent's restatement of one
 * (search/echoes.ts), and that names a forgotten turn in a `→ get` line or carries a forgotten row's words
 * verbatim (a run of COPY_RUN words). Nothing else is taken: an unrelated session that happens to print the
 * same lines (the same command's output) is not a copy.
 */
import type { ForgetCandidate } from "../local/index.js";
import { quotedTurns, sessionKinds } from "../search/index.js";

/** Words in a row that must follow a forgotten row's words one for one to make it a copy. */
export const COPY_RUN = 16;

/** Word ids of a text: lowercased letters and digits, each word mapped once to a number. */
function words(text: string, vocab: Map<string, number>, add: boolean): number[] {
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
function runHash(ids: number[], at: number, n: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + n; i++) h = Math.imul(h ^ (ids[i] as number), 0x01000193) >>> 0;
  return h;
}

/** Whether `ids` holds a run of `n` words found in `runs` (hashes of every forgotten run). */
function carries(ids: number[], runs: Set<number>, n: number): boolean {
  for (let i = 0; i + n <= ids.length; i++) if (runs.has(runHash(ids, i, n))) return true;
  return false;
}

/** Rows of funes's own output read back, and agents' restatements of them, among `rows` (all sessions). */
function echoRows(rows: ForgetCandidate[]): ForgetCandidate[] {
  const sessions = new Map<string, ForgetCandidate[]>();
  for (const r of rows) {
    const list = sessions.get(r.sessionId) ?? [];
    list.push(r);
    sessions.set(r.sessionId, list);
  }
  const out: ForgetCandidate[] = [];
  for (const list of sessions.values()) {
    const kinds = sessionKinds(list);
    list.forEach((r, i) => {
      if (kinds[i] === "echo" || kinds[i] === "restatement") out.push(r);
    });
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
  const turns = new Set(selected.map((r) => `${r.sessionId}\u0000${r.turnUuid}`));
  const vocab = new Map<string, number>();
  const runs = new Map<number, Set<number>>();
  for (const r of selected) {
    const ids = words(r.text, vocab, true);
    // A short row is its own run; one of a few words ("yes", "run the tests") is no evidence of a copy.
    const n = Math.min(COPY_RUN, ids.length);
    if (n < 6) continue;
    const set = runs.get(n) ?? new Set<number>();
    runs.set(n, set);
    for (let i = 0; i + n <= ids.length; i++) set.add(runHash(ids, i, n));
  }
  return echoRows(all.filter((r) => !chosen.has(r.id))).filter((r) => {
    if (quotedTurns(r.text).some((q) => turns.has(`${q.sessionId}\u0000${q.turnUuid}`))) return true;
    const ids = words(r.text, vocab, false);
    for (const [n, set] of runs) if (carries(ids, set, n)) return true;
    return false;
  });
}
