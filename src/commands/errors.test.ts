/**
 * The written style of funes's error messages (ARCHITECTURE.md, "Errors"), checked on the whole catalogue:
 * each meaning's next step, the sentences the catalogue builds, and every message a FunesError is thrown
 * with anywhere in src/ (read from the source, so a new one is checked the day it is written).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../test/helpers/fixtures.js";
import { modelRepoError, noIndexMessage } from "../memory/index.js";
import {
  BadArgumentError,
  describeFailure,
  type FunesErrorCode,
  hubOfflineError,
  NEXT_STEP,
  notAuthorizedError,
  readOnlyError,
} from "./errors.js";

/** Verbs a next step starts with (or, after "nothing was changed;", goes on with). */
const IMPERATIVE =
  /\b(run|re-run|set|check|fix|see|read|use|create|pass|try|drop|give|install|name|add|unset|rebuild|index|push|recall|answer|wait|say|swap|write|copy|quote|point|keep|did you mean)\b/;

/** The problems of one message with the style; empty when it keeps it. */
function styleProblems(message: string, code: FunesErrorCode | "unexpected"): string[] {
  const out: string[] = [];
  if (message.includes("\n")) out.push("more than one line");
  if (/^[A-Z][a-z]/.test(message)) out.push("starts with a capitalised word (it follows `funes: `)");
  if (/\.\s*$/.test(message)) out.push("ends with a period");
  if (/^(error|Error)\b/.test(message)) out.push("starts with 'error'");
  const dash = message.lastIndexOf(" — ");
  const next = dash < 0 ? "" : message.slice(dash + 3);
  // Bad input may instead say what is accepted, in the clause itself: the fix is the accepted value.
  const saysAccepted = /\b(takes|runs|expected|needs|is not|isn't|must be)\b/.test(message);
  // Or it opens with the instruction itself ("say what to forget: …").
  const startsWithStep = /^(say|give|name|pass|run|set)\b/.test(message);
  if (dash < 0 && !startsWithStep && !(code === "bad_input" && saysAccepted))
    out.push('no " — " followed by what to do next');
  if (dash >= 0 && !IMPERATIVE.test(next)) out.push(`the next step "${next}" names nothing to do`);
  return out;
}

describe("error messages keep one written style", () => {
  it("every meaning's next step is an instruction: lowercase, one line, no closing period", () => {
    for (const [code, step] of Object.entries(NEXT_STEP)) {
      expect(step, code).toMatch(/^[a-z]/);
      expect(step, code).not.toMatch(/\.$|\n/);
      expect(step, code).toMatch(IMPERATIVE);
    }
  });

  it("the sentences the catalogue builds say what failed, then what to do next", () => {
    const uri = "hf://datasets/acme/kb";
    const built: [string, FunesErrorCode | "unexpected"][] = [
      [notAuthorizedError(uri, "read").message, "no_access"],
      [notAuthorizedError(uri, "write").message, "no_access"],
      [readOnlyError(uri, "publishing").message, "no_access"],
      [hubOfflineError(uri, "push", "huggingface.co: ECONNREFUSED").message, "unreachable"],
      [modelRepoError("acme/model").message, "bad_input"],
      [noIndexMessage({ kind: "local", dir: "/m", label: "/m", isDefault: true }), "no_memory"],
      [describeFailure(new Error("boom")).message, "unexpected"],
      [
        new BadArgumentError({ arg: "since", flag: "--since", value: "x", problem: "is not a date" }).message,
        "bad_input",
      ],
    ];
    for (const [message, code] of built) expect(styleProblems(message, code), message).toEqual([]);
  });

  it("every message thrown as a FunesError in src/ keeps the style", () => {
    const problems: string[] = [];
    const thrown = thrownMessages();
    expect(thrown.length).toBeGreaterThan(60);
    for (const t of thrown) {
      // A lower layer's own message, prefixed with what it is about: that message keeps the style itself.
      if (/^\$\{[^}]+\}: \$\{[^}]*message\}$/.test(t.message)) continue;
      for (const p of styleProblems(t.message, t.code)) problems.push(`${t.where}: ${p}: ${t.message}`);
    }
    expect(problems).toEqual([]);
  });

  it("the checker itself flags what breaks the style", () => {
    expect(styleProblems("Could not read it.", "no_memory")).toEqual([
      "starts with a capitalised word (it follows `funes: `)",
      "ends with a period",
      'no " — " followed by what to do next',
    ]);
    expect(styleProblems("x failed — sorry", "busy")).toEqual(['the next step "sorry" names nothing to do']);
    expect(styleProblems('--format takes human or agent, not "x"', "bad_input")).toEqual([]);
  });
});

/** Every `new FunesError(code, message …)` in src/ (tests aside): its code and message source text. */
function thrownMessages(): { where: string; code: FunesErrorCode; message: string }[] {
  const out: { where: string; code: FunesErrorCode; message: string }[] = [];
  const src = join(ROOT, "src");
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? walk(join(dir, e.name))
        : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")
          ? [join(dir, e.name)]
          : [],
    );
  for (const file of walk(src)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/new (?:FunesError|MemoryMissingError)\(\s*"(\w+)",\s*/g)) {
      const start = (m.index ?? 0) + m[0].length;
      const literal = readLiteral(text, start);
      if (literal === null) continue; // a message passed on from a variable: checked where it was built
      const line = text.slice(0, start).split("\n").length;
      out.push({ where: `${relative(src, file)}:${line}`, code: m[1] as FunesErrorCode, message: literal });
    }
  }
  return out;
}

/**
 * The string or template literal at `i` (its source between the quotes, `${…}` holes kept as written), or
 * null when the argument is not a literal.
 */
function readLiteral(text: string, i: number): string | null {
  const quote = text[i];
  if (quote !== '"' && quote !== "`") return null;
  let j = i + 1;
  let depth = 0;
  while (j < text.length) {
    const c = text[j];
    if (c === "\\") {
      j += 2;
      continue;
    }
    if (quote === "`" && depth === 0 && c === "$" && text[j + 1] === "{") {
      depth = 1;
      j += 2;
      continue;
    }
    if (depth > 0) {
      if (c === "{") depth++;
      else if (c === "}") depth--;
      else if (c === "`") {
        // A template inside a hole: skip it whole.
        const inner = readLiteral(text, j);
        j += (inner?.length ?? 0) + 2;
        continue;
      }
      j++;
      continue;
    }
    if (c === quote) return text.slice(i + 1, j);
    j++;
  }
  return null;
}
