/** Recall hits built by hand, for the output formatters' tests. */
import type { RecallHit } from "../../src/commands/index.js";

/** A plain text hit of one Hub memory's session, with `over` on top. */
export function recallHit(over: Partial<RecallHit>): RecallHit {
  return {
    id: "0123456789abcdef",
    sessionId: "sess-1",
    turnUuid: "turn-1",
    ts: "2026-01-01T00:00:00Z",
    harness: "claude",
    workdir: "/w",
    blockType: "text",
    role: "assistant",
    seq: 1,
    text: "zebrafish",
    score: 0.5,
    memory: "hf://datasets/evil/memory",
    neighbors: [],
    ...over,
  } as RecallHit;
}
