/** Chunks built by hand for store and backfill tests. */
import type { Chunk } from "../../src/chunk/index.js";

/** Row `i`: id `id-<i>`, turn `t-<i>` at seq i, a user's text in session `s-<i mod 4>`; `over` on top. */
export function numberedChunk(i: number, over: Partial<Chunk> = {}): Chunk {
  return {
    id: `id-${i}`,
    text: `text of row ${i}`,
    sessionId: `s-${i % 4}`,
    workdir: "-w",
    turnUuid: `t-${i}`,
    parentUuid: null,
    seq: i,
    ts: "2026-06-12T21:21:57.939Z",
    role: "user",
    blockType: "text",
    toolName: null,
    sourcePath: "/x.jsonl",
    blockIdx: 0,
    splitIdx: 0,
    harness: "claude_code",
    repo: "",
    ...over,
  };
}
