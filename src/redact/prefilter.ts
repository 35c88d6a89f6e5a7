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
    for (let c = 0; c < 128; c++) {
      const t = goto[0]?.get(c);
      if (t !== undefined) {
        next[c] = t;
        queue.push(t);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] ?? 0;
      const f = fail[s] ?? 0;
      out[s] = [...(out[s] ?? []), ...(out[f] ?? [])];
      for (let c = 0; c < 128; c++) {
        const t = goto[s]?.get(c);
        if (t !== undefined) {
          fail[t] = next[f * 128 + c] ?? 0;
          next[s * 128 + c] = t;
          queue.push(t);
        } else next[s * 128 + c] = next[f * 128 + c] ?? 0;
      }
    }
    this.next = next;
    this.out = out;
    this.term = Uint8Array.from(out, (o) => (o.length > 0 ? 1 : 0));
  }

  /** Indexes of the rules to run on `text`, ascending. */
  rulesOf(text: string): number[] {
    const hit = new Uint8Array(this.ruleCount);
    for (const r of this.always) hit[r] = 1;
    const { next, term, out } = this;
    const lower = text.toLowerCase();
    let s = 0;
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      s = c < 128 ? (next[(s << 7) | c] as number) : 0;
      if (term[s] === 1) for (const r of out[s] as number[]) hit[r] = 1;
    }
    const rules: number[] = [];
    for (let r = 0; r < hit.length; r++) if (hit[r] === 1) rules.push(r);
    return rules;
  }
}
