import { describe, expect, it } from "vitest";
import { shellWords, topLevelArgs } from "./pasted-get.js";

describe("a pasted → get line reads as the get it names", () => {
  it("splits a line as a shell does", () => {
    expect(shellWords(` → get 'a b'  "c\\"d" e\\ f 'it'\\''s'`)).toEqual([
      "→",
      "get",
      "a b",
      'c"d',
      "e f",
      "it's",
    ]);
  });

  it("takes the line after funes, after funes get, or whole in one pair of quotes", () => {
    const want = ["get", "s1", "t1", "--memory", "acme/m"];
    expect(topLevelArgs(["→", "get", "s1", "t1", "--memory", "acme/m"])).toEqual(want);
    expect(topLevelArgs(["→ get s1 t1 --memory acme/m"])).toEqual(want);
    expect(topLevelArgs(["get", "→", "get", "s1", "t1", "--memory", "acme/m"])).toEqual(want);
    expect(topLevelArgs(["get", "get", "s1", "t1", "--memory", "acme/m"])).toEqual(want);
    expect(topLevelArgs(["get", "→ get 's1' 't1' --memory acme/m"])).toEqual(want);
    // The people's view prints `→ funes get …`; a shell prompt's `$` may come along.
    expect(topLevelArgs(["get", "funes get s1 t1 --memory acme/m"])).toEqual(want);
    expect(topLevelArgs(["get", "→ funes get s1 t1 --memory acme/m"])).toEqual(want);
    expect(topLevelArgs(["→ funes get s1 t1 --memory acme/m"])).toEqual(want);
    expect(topLevelArgs(["get", "$ funes get s1 t1", "--memory", "acme/m"])).toEqual(want);
    expect(topLevelArgs(["help", "recall"])).toEqual(["recall", "--help"]);
    // A range read's line: a position is a flag's value, never the pasted line.
    expect(topLevelArgs(["get", "→ get s1 --from 40 --to 60"])).toEqual([
      "get",
      "s1",
      "--from",
      "40",
      "--to",
      "60",
    ]);
    expect(topLevelArgs(["get", "s 1", "--from", "4 0"])).toEqual(["get", "s 1", "--from", "4 0"]);
  });

  it("never splits or unquotes ids given as words of their own, nor a flag's value", () => {
    const hostile = ["get", "s 1 --memory x", "'t'", "--highlight", "two words"];
    expect(topLevelArgs(hostile)).toEqual(hostile);
    expect(topLevelArgs(["recall", "→ get"])).toEqual(["recall", "→ get"]);
  });
});
