/**
 * Whole blocks, rebuilt from their stored chunks and scanned for secrets: what the push gate holds back and
 * what scrub rewrites. A secret that chunking cut in two is whole again in the stitched block.
 *
 * Blocks are read a group at a time (their places first, from small columns; then the texts of one group
 * of blocks, scanned and let go), so a gate over a million chunks holds one group's texts, not all of them.
 */
import { stitch } from "../chunk/index.js";
import { garbageBound } from "../heap/index.js";
import { type LocalStore, type RowPlace, rowPlaces, textsAt } from "../local/index.js";
import { type Finding, findingsPerText } from "../redact/index.js";
import { FunesError } from "./errors.js";

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

/**
 * Blocks per scanner call. The scanner reads a call's texts joined, and a finding across a join counts for
 * both blocks (fail-closed): the calls are the same whatever the group size, so grouping changes nothing.
 */
const BLOCKS_PER_SCAN = 256;

/** Chunks whose texts are read at once: a group is the scanner calls that reach this many chunks. */
export const GATE_GROUP_ROWS = 8_192;

/** How the blocks are read. */
export interface GateOptions {
  /** Every row's place (`rowPlaces`), when the caller has listed them already. */
  places?: RowPlace[] | undefined;
  /** Chunks per group (default `GATE_GROUP_ROWS`). */
  groupRows?: number | undefined;
}

/** What the push gate holds back of some chunks: each held chunk's rule, and held chunks counted by rule. */
export interface HeldBack {
  held: Map<string, string>;
  byRule: Record<string, number>;
}

/**
 * The push gate over `candidates` (chunks about to leave the machine): every chunk of a block whose stitched
 * text holds a secret is held back; only candidates are counted. Only the held ids are kept, never texts.
 */
export async function holdBack(
  store: LocalStore,
  candidates: (BlockKey & { id: string })[],
  opts: GateOptions = {},
): Promise<HeldBack> {
  const held = new Map<string, string>();
  const byRule: Record<string, number> = {};
  if (candidates.length === 0) return { held, byRule };
  for await (const d of scanBlocks(store, candidates, opts)) {
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
export async function dirtyBlocks(
  store: LocalStore,
  only?: BlockKey[],
  opts: GateOptions = {},
): Promise<DirtyBlock[]> {
  const dirty: DirtyBlock[] = [];
  for await (const d of scanBlocks(store, only, opts)) dirty.push(d);
  return dirty;
}

/**
 * The dirty blocks among `only` (all when omitted), in the order the table's scan first meets them, read
 * and scanned a group at a time.
 */
async function* scanBlocks(
  store: LocalStore,
  only: BlockKey[] | undefined,
  opts: GateOptions,
): AsyncGenerator<DirtyBlock> {
  const places = opts.places ?? (await rowPlaces(store));
  const { order, blocks, sizes } = blockRuns(places, only);
  const groupRows = Math.max(1, opts.groupRows ?? GATE_GROUP_ROWS);
  // Each group's texts are dead once scanned; left to V8 they piled up to ≈ 900 MB at a million chunks.
  const garbage = garbageBound();
  const chunksOf = (b: number): RowPlace[] => {
    const start = blocks[b] ?? 0;
    return Array.from(order.subarray(start, start + (sizes[start] ?? 0)), (i) => places[i] as RowPlace);
  };
  for (let from = 0; from < blocks.length; ) {
    // Whole scanner calls, until the group holds enough chunks.
    let to = from;
    let rows = 0;
    while (to < blocks.length && rows < groupRows) {
      const end = Math.min(blocks.length, to + BLOCKS_PER_SCAN);
      for (let b = to; b < end; b++) rows += sizes[blocks[b] ?? 0] ?? 0;
      to = end;
    }
    const group: RowPlace[][] = [];
    for (let b = from; b < to; b++) group.push(chunksOf(b));
    yield* scanGroup(store, group);
    garbage.check();
    from = to;
  }
}

/**
 * The wanted blocks (all when `only` is omitted) as runs of `order` (indices into `places`, each block's
 * chunks together in scan order); `blocks` holds where each run starts, blocks in the order the scan first
 * meets them, and `sizes[start]` its length. Keyed by numbers: a million places keyed by strings
 * ("session\0turn\0block") held ≈ 400 MB of keys.
 */
function blockRuns(
  places: RowPlace[],
  only: BlockKey[] | undefined,
): { order: Uint32Array; blocks: Uint32Array; sizes: Uint32Array } {
  const pairs = new Map<string, number>();
  // Block numbers: a (session, turn) pair's number times the span of block indices, plus the index.
  let lo = 0;
  let hi = 0;
  for (const p of places) {
    lo = Math.min(lo, p.blockIdx);
    hi = Math.max(hi, p.blockIdx);
  }
  const span = hi - lo + 1;
  const numberOf = (b: BlockKey, add: boolean): number | undefined => {
    const key = `${b.sessionId}\u0000${b.turnUuid}`;
    let pair = pairs.get(key);
    if (pair === undefined && add) {
      pair = pairs.size;
      pairs.set(key, pair);
    }
    return pair === undefined || b.blockIdx < lo || b.blockIdx > hi
      ? undefined
      : pair * span + b.blockIdx - lo;
  };
  const num = new Float64Array(places.length);
  places.forEach((p, i) => {
    num[i] = numberOf(p, true) ?? 0;
  });
  let wanted: Set<number> | null = null;
  if (only !== undefined) {
    wanted = new Set();
    for (const b of only) {
      const n = numberOf(b, false);
      if (n !== undefined) wanted.add(n);
    }
  }
  pairs.clear();
  const picked: number[] = [];
  for (let i = 0; i < places.length; i++) if (wanted === null || wanted.has(num[i] ?? -1)) picked.push(i);
  wanted = null;
  const order = Uint32Array.from(picked).sort((a, b) => (num[a] ?? 0) - (num[b] ?? 0) || a - b);
  const sizes = new Uint32Array(order.length);
  const starts: number[] = [];
  for (let i = 0; i < order.length; ) {
    let j = i + 1;
    while (j < order.length && num[order[j] ?? 0] === num[order[i] ?? 0]) j++;
    sizes[i] = j - i;
    starts.push(i);
    i = j;
  }
  // A run's first index is its block's first row in the scan.
  const blocks = Uint32Array.from(starts).sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0));
  return { order, blocks, sizes };
}

/** A listed chunk's text; a chunk gone since it was listed stops the scan (it cannot be vouched for). */
function textOf(texts: Map<string, string>, id: string): string {
  const t = texts.get(id);
  if (t === undefined)
    throw new FunesError(
      "busy",
      `chunk "${id}" left the memory while it was being scanned for secrets — run the command again`,
    );
  return t;
}

/** One group of blocks: their texts read, stitched, scanned in calls of `BLOCKS_PER_SCAN`; the dirty ones. */
async function* scanGroup(store: LocalStore, group: RowPlace[][]): AsyncGenerator<DirtyBlock> {
  const texts = await textsAt(store, group.flat());
  const blocks = group.map((places) =>
    [...places]
      .sort((a, b) => a.splitIdx - b.splitIdx)
      .map(
        (p): BlockChunk => ({
          sessionId: p.sessionId,
          turnUuid: p.turnUuid,
          blockIdx: p.blockIdx,
          splitIdx: p.splitIdx,
          id: p.id,
          text: textOf(texts, p.id),
        }),
      ),
  );
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_SCAN) {
    const call = blocks.slice(i, i + BLOCKS_PER_SCAN);
    const stitched = call.map((l) => stitch(l.map((r) => r.text)));
    const found = await findingsPerText(stitched);
    for (const [j, chunks] of call.entries()) {
      const findings = found[j] ?? [];
      if (findings.length > 0) yield { chunks, text: stitched[j] ?? "", findings };
    }
  }
}
