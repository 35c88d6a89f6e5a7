/**
 * `funes recall`, keyword leg: BM25 over the full-text index with block-type and harness filters, the top
 * k, and each hit's neighbour turns (same session, seq ± n). Rows still waiting for a vector are found
 * here like any other.
 */
import { LocalStore, sqlString, type TextHit } from "../local/index.js";
import type { LocalMemory } from "../memory/index.js";
import type { Harness } from "../traces/index.js";
import { FunesError } from "./errors.js";

/** What to recall. */
export interface RecallOptions {
  query: string;
  k: number;
  blockType?: string | undefined;
  harness?: Harness | undefined;
  neighbors: number;
}

/** A chunk shown under a hit. */
export interface RecallNeighbor {
  role: string;
  blockType: string;
  seq: number;
  text: string;
}

/** One recalled passage. */
export interface RecallHit extends TextHit {
  /** Relevance in [0, 1]: BM25 relative to the best hit. */
  relevance: number;
  neighbors: RecallNeighbor[];
}

/** Recalls from a local memory; FunesError when it has no index. */
export async function recallKeyword(memory: LocalMemory, opts: RecallOptions): Promise<RecallHit[]> {
  const store = await LocalStore.open(memory.dir);
  if (store === null)
    throw new FunesError(
      "no_memory",
      memory.isDefault
        ? "no index yet — run `funes index` to build one, then recall your own history"
        : `no index found at ${memory.dir}`,
    );
  try {
    const filters: string[] = [];
    if (opts.blockType !== undefined) filters.push(`block_type = ${sqlString(opts.blockType)}`);
    if (opts.harness !== undefined) filters.push(`harness = ${sqlString(opts.harness)}`);
    const hits = await store.searchText(
      opts.query,
      opts.k,
      filters.length > 0 ? filters.join(" AND ") : undefined,
    );
    const top = hits[0]?.score ?? 0;
    const out: RecallHit[] = [];
    for (const h of hits) {
      const neighbors =
        opts.neighbors > 0
          ? (await store.turnsAround(h.sessionId, h.seq - opts.neighbors, h.seq + opts.neighbors))
              .filter((n) => n.turnUuid !== h.turnUuid)
              .map((n) => ({ role: n.role, blockType: n.blockType, seq: n.seq, text: n.text }))
          : [];
      out.push({ ...h, relevance: top > 0 ? h.score / top : 0, neighbors });
    }
    return out;
  } finally {
    store.close();
  }
}

/**
 * The reference's agent format (shared/spec/core.md §5.5), byte for byte: header, `→ get` line, the full
 * chunk text, `~` neighbour lines clipped to 160 code points, `---`. No hits → exactly `no results`.
 */
export function formatRecallAgent(hits: RecallHit[], memoryLabel: string, note = ""): string {
  if (hits.length === 0) return `${note}no results`;
  let out = note;
  for (const h of hits) {
    const session8 = Buffer.from(h.sessionId, "utf8").subarray(0, 8).toString("utf8");
    out += `[${h.ts}] ${h.harness} ${h.workdir}/${session8} ${h.blockType}  score=${h.relevance.toFixed(3)}\n`;
    out += `  → get ${h.sessionId} ${h.turnUuid}${memoryLabel === "" ? "" : ` --memory ${memoryLabel}`}\n`;
    out += `${h.text}\n`;
    for (const n of h.neighbors)
      out += `  ~ [${n.role} ${n.blockType} seq${n.seq}] ${Array.from(n.text).slice(0, 160).join("")}\n`;
    out += "---\n";
  }
  return out;
}
