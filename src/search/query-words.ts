/**
 * What a question asks about, in words: its content words, the words that carry no topic left out, and a
 * light stem that lets a passage's word forms count as the question's.
 *
 * The keyword index drops only the short stop list its tokenizer knows ("the", "of", "to", …). A question
 * put in plain language is mostly words that list does not hold — "when did she go", "what does it do",
 * "how do we" — and BM25 adds each of them up in every short passage that says them too, so the turn that
 * best repeats the question's grammar outranks the one about its subject. Measured on a public benchmark of
 * long multi-session dialogs (docs/recall-quality.md), sending the question without them is the largest
 * single gain in putting the right session first.
 */

/**
 * English function words: pronouns, determiners, auxiliaries and modals, prepositions, conjunctions,
 * question words and the commonest adverbs. No noun, verb of action or adjective is here: those name
 * topics. (`may` is a modal far more often than a month; a date such as "May 2023" is read by
 * time-mentions.ts, not by the keyword leg.)
 */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `a an the and or but nor if then else so than too very just also only even
  of to in on at by for with about as into onto from up down out over under off
  again further once here there when where why how what which who whom whose this that these those
  i me my mine myself we us our ours ourselves you your yours yourself yourselves
  he him his himself she her hers herself it its itself they them their theirs themselves
  am is are was were be been being have has had having do does did doing
  will would shall should can could may might must
  not no any all both each few more most other some such own same
  s t d ll m o re ve y don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn
  now ever`
    .split(/\s+/)
    .filter((w) => w !== ""),
);

/** Whether a word (any case) is a function word. */
export function isFunctionWord(word: string): boolean {
  return FUNCTION_WORDS.has(word.toLowerCase());
}

/**
 * The words a keyword query is sent with: the question's words without its function words, unless that
 * leaves none ("who am I" is asked as it is). Order and case are kept.
 */
export function contentWords(words: string[]): string[] {
  const kept = words.filter((w) => !isFunctionWord(w));
  return kept.length > 0 ? kept : words;
}

const SUFFIXES = ["ingly", "edly", "ing", "ed", "ies", "es", "s", "ly"] as const;

/**
 * A light English stem: the commonest inflections cut (`camping` → `camp`, `parties` → `party`,
 * `releases` → `releas`), so two forms of a word compare equal. Applied to both sides of a comparison,
 * never stored. Words of three letters or fewer past the cut stay whole.
 */
export function stemWord(word: string): string {
  const w = word.toLowerCase();
  for (const suf of SUFFIXES) {
    if (w.length > suf.length + 2 && w.endsWith(suf))
      return suf === "ies" ? `${w.slice(0, -3)}y` : w.slice(0, -suf.length);
  }
  return w;
}

/** The words of a text (letters, digits, `_`), as the keyword leg splits a query. */
export function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** A question's distinct content stems (what coverage in session-evidence.ts counts). */
export function contentStems(query: string): string[] {
  return [...new Set(contentWords(wordsOf(query)).map(stemWord))];
}

/** Which of `stems` (contentStems of a question) a text holds. */
export function matchedStems(stems: string[], text: string): Set<string> {
  const want = new Set(stems);
  const out = new Set<string>();
  for (const w of wordsOf(text)) {
    const s = stemWord(w);
    if (want.has(s)) out.add(s);
  }
  return out;
}
