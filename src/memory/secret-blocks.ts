/**
 * Whole blocks, rebuilt from their stored chunks and scanned for secrets: what the push gate holds back and
 * what scrub rewrites. A secret that chunking cut in two is whole again in the stitched block.
 */
import { stitch } from "../chunk/index.js";
import { blockRows, type LocalStore } from "../local/index.js";
import { type Finding, findingsPerText } from "../redact/index.js";

/** A block's coordinates. */
export interface BlockKey {
  sessionId: string;
  turnUuid: string;
  blockIdx: number;
}

/** A stored chunk of a block. */
export interface BlockChunk extends BlockKey {
  id: string;
  splitIdx: number;
  text: string;
}

/** A block whose stitched text holds at least one secret. */
export interface DirtyBlock {
  chunks: BlockChunk[];
  text: string;
  findings: Finding[];
}

/** Blocks per scanner call. */
const BLOCKS_PER_SCAN = 256;

function blockKey(b: BlockKey): string {
  return `${b.sessionId}\u0000${b.turnUuid}\u0000${b.blockIdx}`;
}

/** What the push gate holds back of some chunks: each held chunk's rule, and held chunks counted by rule. */
export interface HeldBack {
  held: Map<string, string>;
  byRule: Record<string, number>;
}

/**
 * The push gate over `candidates` (chunks about to leave the machine): every chunk of a block whose stitched
 * text holds a secret is held back; only candidates are counted.
 */
export async function holdBack(
  store: LocalStore,
  candidates: (BlockKey & { id: string })[],
): Promise<HeldBack> {
  const held = new Map<string, string>();
  const byRule: Record<string, number> = {};
  if (candidates.length === 0) return { held, byRule };
  for (const d of await dirtyBlocks(store, candidates)) {
    const rule = d.findings[0]?.rule ?? "secret";
    for (const c of d.chunks) held.set(c.id, rule);
  }
  for (const c of candidates) {
    const rule = held.get(c.id);
    if (rule !== undefined) byRule[rule] = (byRule[rule] ?? 0) + 1;
  }
  return { held, byRule };
}

/** The blocks (all of them when `only` is omitted) whose stitched text the scanner finds a secret in. */
export async function dirtyBlocks(store: LocalStore, only?: BlockKey[]): Promise<DirtyBlock[]> {
  const rows = await blockRows(store, only);
  const byBlock = new Map<string, BlockChunk[]>();
  for (const r of rows) {
    const k = blockKey(r);
    const list = byBlock.get(k);
    if (list === undefined) byBlock.set(k, [r]);
    else list.push(r);
  }
  const lists = [...byBlock.values()];
  for (const l of lists) l.sort((a, b) => a.splitIdx - b.splitIdx);
  const dirty: DirtyBlock[] = [];
  for (let i = 0; i < lists.length; i += BLOCKS_PER_SCAN) {
    const group = lists.slice(i, i + BLOCKS_PER_SCAN);
    const texts = group.map((l) => stitch(l.map((r) => r.text)));
    const found = await findingsPerText(texts);
    group.forEach((chunks, j) => {
      const findings = found[j] ?? [];
      if (findings.length > 0) dirty.push({ chunks, text: texts[j] ?? "", findings });
    });
  }
  return dirty;
}
