/**
 * Turns to chunk rows: select blocks by tier (and thinking), render, split, id.
 */
import type { Turn } from "../traces/index.js";
import { chunkId } from "./ids.js";
import { renderBlock, splitText, type Tier, tierOf } from "./split.js";

/** One row of the memory, before it has a vector. Field meanings: docs/memory-format.md#columns. */
export interface Chunk {
  id: string;
  text: string;
  sessionId: string;
  workdir: string;
  turnUuid: string;
  parentUuid: string | null;
  seq: number;
  ts: string;
  role: string;
  blockType: string;
  toolName: string | null;
  sourcePath: string;
  blockIdx: number;
  splitIdx: number;
  harness: string;
  /** Space-separated `owner/name` of the session checkout's git remotes, or "". */
  repo: string;
}

/** Which blocks a pass chunks. */
export interface ChunkOptions {
  tiers: ReadonlySet<Tier>;
  /** False drops thinking blocks (`--no-thinking`); their block_idx is still consumed. */
  thinking: boolean;
  repo: string;
}

/** Every tier. */
export const ALL_TIERS: ReadonlySet<Tier> = new Set<Tier>(["text", "tool_use", "tool_result"]);

/**
 * Chunks turns. block_idx is the block's position in the parsed list whatever the pass selects, so ids
 * are the same for a one-tier pass and an all-tier pass.
 */
export function chunkTurns(turns: Turn[], opts: ChunkOptions): Chunk[] {
  const out: Chunk[] = [];
  for (const t of turns) {
    t.blocks.forEach((b, blockIdx) => {
      if (!opts.tiers.has(tierOf(b.blockType))) return;
      if (!opts.thinking && b.blockType === "thinking") return;
      // Agent-injected text keeps its block_idx (ids stay the reference's) but is not indexed.
      if (b.injected !== undefined) return;
      splitText(renderBlock(b)).forEach((text, splitIdx) => {
        out.push({
          id: chunkId(t.sessionId, t.turnUuid, blockIdx, splitIdx),
          text,
          sessionId: t.sessionId,
          workdir: t.workdir,
          turnUuid: t.turnUuid,
          parentUuid: t.parentUuid,
          seq: t.seq,
          ts: t.ts,
          role: t.role,
          blockType: b.blockType,
          toolName: b.toolName,
          sourcePath: t.sourcePath,
          blockIdx,
          splitIdx,
          harness: t.harness,
          repo: opts.repo,
        });
      });
    });
  }
  return out;
}

/**
 * Ids the chunks of agent-injected blocks would have, had they been indexed (as funes before it recognised
 * them did, and as the reference does): a re-read removes such rows from the memory.
 */
export function injectedChunkIds(turns: Turn[]): string[] {
  const out: string[] = [];
  for (const t of turns)
    t.blocks.forEach((b, blockIdx) => {
      if (b.injected === undefined) return;
      splitText(renderBlock(b)).forEach((_, splitIdx) => {
        out.push(chunkId(t.sessionId, t.turnUuid, blockIdx, splitIdx));
      });
    });
  return out;
}
