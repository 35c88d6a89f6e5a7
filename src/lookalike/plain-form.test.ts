/**
 * The plain form reads each class of look-alike as the character it passes for, checked over every code
 * point of each class (test/forged-hits.test.ts forges funes's output with them), and leaves plain text as
 * it is.
 */
import { describe, expect, it } from "vitest";
import { ARROW, BLANK, CONFUSABLES, DASH, HIDDEN, LINE_BREAK, oneOf, plainForm } from "./index.js";

/** Every code point but the surrogates matching `re`. */
function every(re: RegExp): string[] {
  const out: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (re.test(c)) out.push(c);
  }
  return out;
}

const hex = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
/** The characters of `cs` whose plain form between two letters is not `want` between them. */
const misread = (cs: string[], want: string) =>
  cs.filter((c) => plainForm(`a${c}b`) !== `a${want}b`).map(hex);

describe("each class as a reader takes it", () => {
  const blank = oneOf(BLANK);

  it("what renders as nothing (default-ignorable, format, other controls) is dropped; a blank among them is a space", () => {
    const hidden = every(oneOf(HIDDEN)).filter((c) => !blank.test(c));
    expect(hidden.length).toBeGreaterThan(4000);
    expect(misread(hidden, "")).toEqual([]);
    const controls = every(/^[\p{Cc}]$/u).filter((c) => !oneOf(LINE_BREAK).test(c) && c !== "\t");
    expect(misread(controls, "")).toEqual([]);
  });

  it("every space separator, the tab, the Braille blank and the Hangul fillers are a space", () => {
    const blanks = every(oneOf(BLANK));
    expect(blanks.map(hex)).toEqual(
      expect.arrayContaining(["U+00A0", "U+2800", "U+3164", "U+FFA0", "U+3000"]),
    );
    expect(misread(blanks, " ")).toEqual([]);
  });

  it("every line break is a newline, CR LF one", () => {
    expect(misread(every(oneOf(LINE_BREAK)), "\n")).toEqual([]);
    expect(plainForm("a\r\nb\u2028c")).toBe("a\nb\nc");
  });

  it("every arrow is →, and so is one spelled in ASCII or with look-alike dashes", () => {
    const arrows = every(new RegExp(`^(?!\\p{Cn})[${ARROW}]$`, "u"));
    expect(arrows.length).toBeGreaterThan(600);
    expect(misread(arrows, "→")).toEqual([]);
    for (const spelled of [
      "->",
      "-->",
      "=>",
      "==>",
      "\u2013>",
      "\u2014>",
      "\u2212>",
      "-\u203a",
      "\uff0d\uff1e",
    ])
      expect(plainForm(`  ${spelled} get`), spelled).toBe("  → get");
  });

  it("every dash is -", () => {
    const dashes = every(oneOf(DASH)).filter((c) => !CONFUSABLES.some(([, cs]) => cs.includes(c)));
    expect(misread(dashes, "-")).toEqual([]);
  });

  it("a decimal digit of any script is its ASCII digit", () => {
    const digits = every(/^\p{Nd}$/u);
    expect(digits.length).toBeGreaterThan(600);
    const wrong = digits.filter((c) => {
      const value = c.normalize("NFKC");
      return /^[0-9]$/.test(value) ? plainForm(c) !== value : !/^[0-9]$/.test(plainForm(c));
    });
    expect(wrong.map(hex)).toEqual([]);
    expect(plainForm("\u0660.\u0669\u0665\u0661 \u0966\u096f \u{1d7ce}\uff19")).toBe("0.951 09 09");
  });

  it("each look-alike of the confusables table is the ASCII it is drawn like", () => {
    for (const [ascii, chars] of CONFUSABLES) expect(misread([...chars], ascii), ascii).toEqual([]);
    expect(plainForm("sc\u043er\u0435\ua78a0.951")).toBe("score=0.951");
  });

  it("a letter with accents, a fullwidth, mathematical or circled one is the plain letter", () => {
    expect(
      plainForm(
        "s\u0307c\u00f3r\u00eb \uff53\uff43\uff4f\uff52\uff45 \u{1d42c}\u{1d41c}\u{1d428}\u{1d42b}\u{1d41e} \u24e2",
      ),
    ).toBe("score score score s");
  });
});

describe("plain text", () => {
  it("is left exactly as it is, funes's own →, · and … too", () => {
    for (const text of [
      "Decided: the cache goes through an LRU of 512 MB → done · ok…",
      "[2026-01-02T10:00:00Z] claude_code app/abcd1234 text  score=0.951\n  → get a b",
      "if (a < b && c > d) return x >= y;",
    ])
      expect(plainForm(text)).toBe(text);
  });
});
