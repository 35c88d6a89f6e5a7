import { describe, expect, it } from "vitest";
import type { ForgetCandidate } from "../local/index.js";
import { FunesError } from "./errors.js";
import { compileSelectors, type ForgetSelectors, previewOf } from "./forget-select.js";

const row = (id: string, sessionId: string, turnUuid: string, ts: string, text: string): ForgetCandidate => ({
  id,
  sessionId,
  turnUuid,
  seq: Number(id.slice(1)),
  ts,
  role: "user",
  blockType: "text",
  toolName: null,
  blockIdx: 0,
  sourcePath: "/x",
  text,
});

const rows = [
  row("r1", "s1", "t1", "2026-01-01T10:00:00Z", "deploy with token abc-123-XYZ please"),
  row("r2", "s1", "t2", "2026-01-02T10:00:00Z", "nothing here"),
  row("r3", "s2", "t1", "2026-03-01T10:00:00Z", "another abc-123-XYZ mention"),
];
const none: ForgetSelectors = { sessions: [], turns: [], match: [], regex: false };
const pick = (s: Partial<ForgetSelectors>) =>
  rows.filter(compileSelectors({ ...none, ...s }, Date.parse("2026-06-01T00:00:00Z"))).map((r) => r.id);

describe("forget selectors", () => {
  it("adds up values of one kind and requires every kind given", () => {
    expect(pick({ sessions: ["s1"] })).toEqual(["r1", "r2"]);
    expect(pick({ sessions: ["s1", "s2"], match: ["abc-123-XYZ"] })).toEqual(["r1", "r3"]);
    expect(pick({ turns: [{ session: "s2", turn: "t1" }] })).toEqual(["r3"]);
    expect(pick({ match: ["abc-123-XYZ"], since: "2026-02-01" })).toEqual(["r3"]);
    expect(pick({ until: "2026-01-01T12:00:00Z" })).toEqual(["r1"]);
    // A plain --match is literal (the dots and brackets of a secret are not pattern syntax).
    expect(pick({ match: ["abc.123"] })).toEqual([]);
    expect(pick({ match: ["abc.123"], regex: true })).toEqual(["r1", "r3"]);
  });

  it("refuses no selector, an empty match, a bad regex or a bad time, naming the flag", () => {
    expect(() => pick({})).toThrow(FunesError);
    expect(() => pick({ match: [""] })).toThrow("--match needs a non-empty text");
    expect(() => pick({ match: ["("], regex: true })).toThrow(
      /--regex "\(" is not a valid regular expression/,
    );
    expect(() => pick({ since: "yesterday-ish" })).toThrow('--since "yesterday-ish" is not a date');
  });

  it("previews sessions newest first, with the matched text masked", () => {
    const selected = rows.filter((r) => r.id !== "r2");
    const p = previewOf(selected, { ...none, match: ["abc-123-XYZ"] });
    expect(p.chunks).toBe(2);
    expect(p.sessions.map((s) => s.sessionId)).toEqual(["s2", "s1"]);
    expect(p.sessions[1]).toMatchObject({
      chunks: 1,
      turns: 1,
      samples: ["user: deploy with token […] please"],
    });
    expect(JSON.stringify(p)).not.toContain("abc-123-XYZ");
  });
});
