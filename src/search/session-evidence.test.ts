import { describe, expect, it } from "vitest";
import { contentStems, contentWords, matchedStems, stemWord } from "./query-words.js";
import { type SessionCandidate, withSessionEvidence } from "./session-evidence.js";
import { timeMatch, timeMentions } from "./time-mentions.js";

describe("contentWords", () => {
  it("drops a question's function words and keeps its topic, in order and case", () => {
    expect(contentWords("When did Caroline go to the LGBTQ support group".split(" "))).toEqual([
      "Caroline",
      "go",
      "LGBTQ",
      "support",
      "group",
    ]);
    expect(contentWords("how do we roll back the ledger v2 writes".split(" "))).toEqual([
      "roll",
      "back",
      "ledger",
      "v2",
      "writes",
    ]);
  });

  it("keeps every word of a question made only of function words", () => {
    expect(contentWords(["who", "am", "I"])).toEqual(["who", "am", "I"]);
  });
});

describe("stemWord", () => {
  it("makes the common inflections of a word equal and leaves short words whole", () => {
    expect(stemWord("camping")).toBe(stemWord("camp"));
    expect(stemWord("Parties")).toBe(stemWord("party"));
    expect(stemWord("painted")).toBe(stemWord("paints"));
    expect(stemWord("bus")).toBe("bus");
    expect(stemWord("is")).toBe("is");
  });

  it("finds which of a question's words a passage holds, in any of their forms", () => {
    const stems = contentStems("What did Melanie paint with her kids?");
    expect([...matchedStems(stems, "Melanie: we painted a sunset, the kid loved it")].sort()).toEqual(
      ["kid", "melanie", "paint"].sort(),
    );
  });
});

describe("timeMentions", () => {
  const day = (s: string) => Date.parse(`${s}T12:00:00Z`);
  it("reads whole dates in the common spellings, and only real dates", () => {
    for (const q of [
      "What dish did Nate make on 9 November, 2022?",
      "what happened on November 9th 2022",
      "the deploy of 2022-11-09",
      "on the 9th of Nov 2022",
    ]) {
      const t = timeMentions(q);
      expect(t.length, q).toBe(1);
      expect(timeMatch("2022-11-09T18:00:00Z", t), q).toBe(1);
      expect(timeMatch("2022-11-08T18:00:00Z", t), q).toBe(0);
    }
    // No 31 February: the month is all that is read.
    expect(timeMentions("on 31 February 2023")).toEqual([
      { kind: "span", from: Date.UTC(2023, 1, 1), to: Date.UTC(2023, 2, 1) - 1 },
    ]);
  });

  it("reads months of a year, months alone and years, with a bare 'may' a month only where a month goes", () => {
    const m = timeMentions("What did Maria donate in December 2023?");
    expect(timeMatch("2023-12-20T00:00:00Z", m)).toBe(1);
    expect(timeMatch("2022-12-20T00:00:00Z", m)).toBe(0);
    const june = timeMentions("When did Melanie go camping in June?");
    expect(timeMatch("2021-06-03T00:00:00Z", june)).toBe(1);
    expect(timeMatch("2023-06-30T00:00:00Z", june)).toBe(1);
    expect(timeMatch("2023-03-01T00:00:00Z", june)).toBe(0);
    expect(timeMentions("may we use the old ledger?")).toEqual([]);
    expect(timeMentions("what did we ship in May")).toHaveLength(1);
    expect(timeMatch("2024-08-01T00:00:00Z", timeMentions("the outages in 2024"))).toBe(1);
    expect(timeMentions("how do we roll back the ledger v2 writes?")).toEqual([]);
  });

  it("counts a passage a little after the named time, less the later it is, and nothing before it", () => {
    const t = timeMentions("what did we decide on 3 March 2025");
    const later = (days: number) =>
      timeMatch(new Date(day("2025-03-03") + days * 86_400_000).toISOString(), t);
    expect(later(3)).toBeGreaterThan(later(10));
    expect(later(10)).toBeGreaterThan(0);
    expect(later(30)).toBe(0);
    expect(later(-2)).toBe(0);
    expect(timeMatch("", t)).toBe(0);
  });
});

describe("withSessionEvidence", () => {
  let turns = 0;
  const c = (
    session: string,
    relevance: number,
    text: string,
    ts = "2025-01-01T00:00:00Z",
    seq = turns,
    turn = `t${turns++}`,
  ): SessionCandidate => ({ session, relevance, text, ts, seq, turn });
  const judge = (items: SessionCandidate[], q: string) =>
    withSessionEvidence(items, contentStems(q), timeMentions(q));

  it("puts the stretch of turns that answers the question between them above one turn that repeats its words", () => {
    const q = "why did we move the ledger writes to the queue";
    const items = [
      // A passing mention that repeats the question's words.
      c("a", 1, "we talked about the ledger writes and the queue at lunch", undefined, 40),
      // The decision, over two neighbouring turns.
      c("b", 0.9, "the ledger writes kept timing out under load", undefined, 3),
      c("b", 0.8, "so we move them to the queue, one worker drains it", undefined, 4),
    ];
    const r = judge(items, q);
    expect(Math.max(...r)).toBe(1);
    expect(r[1]).toBeGreaterThan(r[0] as number);
  });

  it("takes no evidence from turns of the same session far away, nor from other pieces of the same turn", () => {
    const q = "which token variables are read";
    const alone = c("alone", 0.9, "read the token variables", undefined, 31);
    // A long session mentions the words hundreds of turns apart, and one long turn comes in three pieces.
    const far = [3, 214, 494, 568, 832].map((seq) =>
      c("long", 0.9, "read the token variables", undefined, seq),
    );
    const pieces = [0, 1, 2].map(() =>
      c("pieces", 0.9, "read the token variables", undefined, 7, "one-turn"),
    );
    const near = [10, 11].map((seq) => c("near", 0.9, "read the token variables", undefined, seq));
    const r = judge([alone, ...far, ...pieces, ...near], q);
    // Each scattered mention and each piece is judged as the passage standing alone is.
    for (const x of r.slice(1, 9)) expect(x).toBeCloseTo(r[0] as number, 9);
    // Two neighbouring turns are evidence for each other.
    expect(r[9]).toBe(1);
    expect(r[0] as number).toBeLessThan(1);
  });

  it("weighs a question word by its rarity among the candidates", () => {
    const q = "how did the path cache config status problem end with jorota";
    const common = Array.from({ length: 6 }, (_, i) => [
      c(`d${i}`, 0.9, "the path cache config problem again", undefined, 0),
      c(`d${i}`, 0.9, "fixed the cache config status", undefined, 1),
    ]).flat();
    const answer = [
      c("a", 0.9, "what should we do about the path cache", undefined, 0),
      c("a", 0.9, "we moved the path cache config to jorota", undefined, 1),
    ];
    const r = judge([...common, ...answer], q);
    // The answer's context holds the one word no other candidate has: it comes first.
    expect(r[common.length + 1]).toBe(1);
  });

  it("leaves the order of lone candidates with no named time as their relevance gives it", () => {
    const items = [c("a", 1, "ledger queue"), c("b", 0.5, "ledger queue"), c("c", 0.25, "ledger queue")];
    const r = judge(items, "ledger queue");
    expect(r[0]).toBe(1);
    expect(r[0] as number).toBeGreaterThan(r[1] as number);
    expect(r[1] as number).toBeGreaterThan(r[2] as number);
  });

  it("counts a passage from the time the question names double", () => {
    const items = [
      c("a", 1, "Nate: made pasta for the team", "2022-10-01T10:00:00Z"),
      c("b", 0.7, "Nate: made coconut ice cream", "2022-11-09T10:00:00Z"),
    ];
    const r = judge(items, "What dish did Nate make on 9 November, 2022?");
    expect(r[1]).toBe(1);
    expect(r[0] as number).toBeLessThan(1);
  });
});
