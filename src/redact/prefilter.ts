/**
 * The catalogue's prefilter: one pass over a text finds which keywords occur in it (ASCII case-insensitive,
 * Aho–Corasick over char codes), so only the rules that could match run their patterns. This is what keeps
 * a catalogue of hundreds of rules at the cost of a handful per text.
 */

/** Keyword automaton: `rulesOf(text)` → indexes of the rules with a keyword in `text`. */
export class KeywordIndex {
  /** Transition table, 128 entries per state (ASCII; other characters go back to the root). */
  private readonly next: Int32Array;
  /** Rules whose keyword ends at a state, including those reached through failure links. */
  private readonly out: number[][];
  /** 1 where `out` is not empty: the hot loop reads one byte per character. */
  private readonly term: Uint8Array;
  private readonly always: number[];
  private readonly ruleCount: number;

  /** `keywords[i]` are rule i's keywords (lower case, ASCII); an empty list means "always run". */
  constructor(keywords: readonly (readonly string[])[]) {
    this.ruleCount = keywords.length;
    this.always = [];
    const goto: Map<number, number>[] = [new Map()];
    const out: number[][] = [[]];
    keywords.forEach((kws, rule) => {
      if (kws.length === 0) this.always.push(rule);
      for (const kw of kws) {
        let s = 0;
        for (let i = 0; i < kw.length; i++) {
          const c = kw.charCodeAt(i) & 127;
          let t = goto[s]?.get(c);
          if (t === undefined) {
            t = goto.length;
            goto.push(new Map());
            out.push([]);
            goto[s]?.set(c, t);
          }
          s = t;
        }
        out[s]?.push(rule);
      }
    });
    const n = goto.length;
    const next = new Int32Array(n * 128);
    const fail = new Int32Array(n);
    const queue: number[] = [];
    for (const [c, t] of goto[0] ?? []) {
      next[c] = t;
      queue.push(t);
    }
    // Breadth first, so a state's failure state (shallower) has its full row already: start from a copy of
    // that row, then put the state's own children over it.
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      const f = fail[s] as number;
      const inherited = out[f] ?? [];
      if (inherited.length > 0) out[s] = [...(out[s] ?? []), ...inherited];
      next.copyWithin(s * 128, f * 128, f * 128 + 128);
      for (const [c, t] of goto[s] ?? []) {
        fail[t] = next[f * 128 + c] as number;
        next[s * 128 + c] = t;
        queue.push(t);
      }
    }
    this.next = next;
    this.out = out;
    this.term = Uint8Array.from(out, (o) => (o.length > 0 ? 1 : 0));
    this.hit = new Uint8Array(this.ruleCount);
  }

  /** Per-rule marks of the current scan, cleared after each (no allocation per text). */
  private readonly hit: Uint8Array;

  /**
   * Indexes of the rules to run on `text`, ascending. Rules are collected as their keywords are met (a text
   * meets few), not by a sweep over every rule.
   */
  rulesOf(text: string): number[] {
    const { next, term, out, hit } = this;
    const rules: number[] = [];
    for (const r of this.always) {
      hit[r] = 1;
      rules.push(r);
    }
    let s = 0;
    // A lower-cased copy: also a flat string, which reads faster than the text as parsed.
    const lower = text.toLowerCase();
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      s = c < 128 ? (next[(s << 7) | c] as number) : 0;
      if (term[s] === 1)
        for (const r of out[s] as number[])
          if (hit[r] === 0) {
            hit[r] = 1;
            rules.push(r);
          }
    }
    for (const r of rules) hit[r] = 0;
    return rules.sort((a, b) => a - b);
  }
}
