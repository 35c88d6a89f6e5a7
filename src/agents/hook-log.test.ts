import { describe, expect, it } from "vitest";
import { lastPushOutcomes } from "./hook-log.js";

describe("lastPushOutcomes", () => {
  it("keeps the last outcome line per memory, with its reason, and passes over everything else", () => {
    const log = [
      "2026-11-30T07:00:00+0000 push[acme/mem]: start",
      "pushed 3 chunks to hf://datasets/acme/mem (commit 1234abcd, 4 files, 8.0 KiB)",
      "2026-11-30T07:00:02+0000 push[acme/mem]: ok",
      "2026-11-30T07:00:03+0000 index[claude]: ok",
      "2026-11-30T08:00:00+0100 push[acme/mem]: FAILED (exit 1) — hf://datasets/acme/mem is unreachable — can't push",
      "2026-11-30T07:30:00+0000 push[me/other]: again — 5 chunks still wait for vectors",
      "2026-11-30T07:31:00+0000 push[me/other]: WARN — nothing was published: held back",
      "funes: push[acme/mem]: ok (a line of funes output, not an outcome)",
    ].join("\n");
    expect(lastPushOutcomes(log, "/l")).toEqual([
      {
        memory: "acme/mem",
        at: Date.parse("2026-11-30T07:00:00Z"),
        state: "failed",
        detail: "hf://datasets/acme/mem is unreachable — can't push",
        log: "/l",
      },
      {
        memory: "me/other",
        at: Date.parse("2026-11-30T07:31:00Z"),
        state: "warn",
        detail: "nothing was published: held back",
        log: "/l",
      },
    ]);
  });
});
