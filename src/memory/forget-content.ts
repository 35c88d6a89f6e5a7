/**
 * What makes a passage that passage, whatever words surround it: its distinctive tokens. An agent that
 * restates a recalled decision in its own words keeps the decision's numbers, names and rare words (the
 * 512, the `ReplayCursor`, the `src/journal/replay.ts`, "backwards") and changes the rest: word order,
 * inserted words, a different opening. Forget (forget-copies.ts) compares rows by these tokens as a set, so
 * order and inserted words do not matter.
 *
 * A token is a name or a word:
 * - a name: it holds a digit (a number, a version, `v2`), a joiner inside it (`.`, `/`, `:`, `@`, `#`, `_`:
 *   a path, a file, a module, a snake_case identifier) or a capital after its first letter (camelCase,
 *   PascalCase, an acronym such as `LRU`), or it is capitalised where no sentence starts (`Marta`,
 *   `Parquet`); compared lowercased, two characters or more;
 * - a word: any other run of letters, lowercased, four letters or more and not one of the function words
 *   every text uses (`STOP`: a small memory would otherwise take "that" or "with" for rare).
 * A token is distinctive when it is not boilerplate: rows of fewer than BOILERPLATE_SESSIONS sessions hold
 * it (forget-copies.ts counts them, leaving out the copies tied to the forgotten turns, which hold the
 * passage because they quote it).
 *
 * A row carries a passage's content when it holds at least DISTINCT_SHARE of the passage's distinctive
 * names (of all its distinctive tokens when it has fewer than MIN_DISTINCT names), and at least
 * MIN_DISTINCT of its distinctive tokens in all. Names first, because a retelling keeps the names and
 * numbers (512 cannot be put in other words) and swaps the rare words for its own ("approved" for "signed
 * off"). Half, because a restatement that keeps most of what only this passage says is this passage
 * retold (a summary drops some, so "all" would miss it), while a row about another passage that touches
 * this one shares a name or two, far from half of a passage's own. At least three, because one or two rare
 * tokens in common happen by chance (a file both mention, a port number): a passage with fewer distinctive
 * tokens than that is not recognised by content at all (only by the runs of words it shares,
 * forget-copies.ts).
 */

/** Share of a passage's distinctive tokens a row must hold to carry its content. */
export const DISTINCT_SHARE = 0.5;

/** Fewest distinctive tokens a row must share with a passage to carry its content. */
export const MIN_DISTINCT = 3;

/** Function words of English: never distinctive, however small the memory. */
const STOP: ReadonlySet<string> = new Set(
  (
    "about above after again against also although among another anything around because been before " +
    "being below between both but can cannot could does doing done down during each either else enough " +
    "even ever every from further have having here hers herself himself however into itself just keep " +
    "less like made make many might more most much must near need neither never next none nothing " +
    "once only other ought ours ourselves over same shall should since some still such than that " +
    "their theirs them themselves then there these they this those though through thus together too " +
    "under unless until upon very want well were what whatever when where whether which while who " +
    "whom whose will with within without would your yours yourself yourselves okay sure thanks please"
  ).split(/\s+/),
);

/** A run of letters and digits, with joiners (`. / : @ # _`) inside it kept: a path, a file, an id. */
const TOKEN = /[\p{L}\p{N}_]+(?:[./:@#][\p{L}\p{N}_]+)*/gu;

/**
 * The tokens of `text` that may be distinctive, each with whether it is a name (see the file header): a
 * token that is a name anywhere in the text is a name.
 */
export function contentTokens(text: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    let i = m.index - 1;
    while (i >= 0 && /[ \t]/.test(text[i] as string)) i--;
    // Capitalised after a word, a comma or a semicolon: no sentence, heading, list item or quote starts there.
    const proper = /^\p{Lu}/u.test(t) && i >= 0 && /[\p{L}\p{N},;)]/u.test(text[i] as string);
    const name = /\p{N}/u.test(t) || /[./:@#_]/.test(t) || /.\p{Lu}/u.test(t) || proper;
    const low = t.toLowerCase();
    if (name ? low.length >= 2 : low.length >= 4 && !STOP.has(low))
      out.set(low, name || out.get(low) === true);
  }
  return out;
}

/** The tokens of `text` found in `among` (a passage's tokens): what a row holds of them, quickly. */
export function tokensAmong(text: string, among: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(TOKEN)) if (among.has(m[0])) out.add(m[0]);
  return out;
}

/**
 * Whether `tokens` (a row's) hold enough of `distinct` (a passage's distinctive tokens, name or not) to
 * carry it (see the file header).
 */
export function carries(
  tokens: ReadonlySet<string> | ReadonlyMap<string, boolean>,
  distinct: ReadonlyMap<string, boolean>,
): boolean {
  if (distinct.size < MIN_DISTINCT) return false;
  let held = 0;
  let names = 0;
  let heldNames = 0;
  for (const [t, name] of distinct) {
    const has = tokens.has(t);
    if (has) held++;
    if (name) {
      names++;
      if (has) heldNames++;
    }
  }
  if (held < MIN_DISTINCT) return false;
  return names >= MIN_DISTINCT ? heldNames >= names * DISTINCT_SHARE : held >= distinct.size * DISTINCT_SHARE;
}
