/**
 * Memories written by a tool that did not redact (say, an older version): rows straight into Lance, with a
 * unit vector each so they are publishable.
 */
import { join } from "node:path";
import type { Chunk } from "../../src/chunk/index.js";
import { LocalStore, writeVectors } from "../../src/local/index.js";

/** A text row of session `sessionId`, block `blockIdx` of turn `t-<blockIdx>`. */
export function leakyRow(
  id: string,
  text: string,
  blockIdx: number,
  splitIdx = 0,
  sessionId = "leaky",
): Chunk {
  return {
    id,
    text,
    sessionId,
    workdir: "-w",
    turnUuid: `t-${blockIdx}`,
    parentUuid: null,
    seq: blockIdx,
    ts: "2026-11-01T00:00:00Z",
    role: "assistant",
    blockType: "text",
    toolName: null,
    sourcePath: "/x",
    blockIdx,
    splitIdx,
    harness: "claude_code",
    repo: "",
  };
}

/** Writes `rows` into the memory under `funesHome`, each with the vector e_(i mod 384). */
export async function writeLeakyMemory(funesHome: string, rows: Chunk[]): Promise<void> {
  const store = await LocalStore.openOrCreate(join(funesHome, "memory"));
  try {
    await store.append(rows);
    await writeVectors(
      store.table,
      new Map(
        rows.map((r, i) => {
          const v = new Float32Array(384);
          v[i % 384] = 1;
          return [r.id, v];
        }),
      ),
    );
  } finally {
    store.close();
  }
}
