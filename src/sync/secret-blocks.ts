/**
 * Whole blocks, rebuilt from their stored chunks and scanned for secrets: what the push gate holds back and
 * what scrub rewrites. A secret that chunking cut in two is whole again in the stitched block.
 *
 * Blocks are read a group at a time (their places first, from small columns; then the texts of one group
 * of blocks, scanned and let go), so a gate over a million chunks holds one group's texts, not all of them.
 *
 * Every string column a row leaves the machine with is scanned, not only its text: the working folder, the
 * repo, the session and turn ids, the tool name, the source path… (`FIELD_COLUMNS`). A secret there makes
 * the block dirty as one in its text does. Those values repeat from row to row, so each distinct value is
 * scanned once per gate.
 */
import { stitch } from "../chunk/index.js";
import { garbageBound } from "../heap/index.js";
import { type LocalStore, type RowPlace, type RowStrings, rowPlaces, stringsAt } from "../local/index.js";
import { FunesError } from "../memory/index.js";
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

/** A secret in one of a block's other string columns (its working folder, its session id…). */
export interface FieldFinding {
  column: string;
  rule: string;
}

/** A block whose stitched text, or another string column of one of its chunks, holds at least one secret. */
export interface DirtyBlock {
  chunks: BlockChunk[];
  text: string;
  /** Secrets in the stitched text (empty when only a field holds one). */
  findings: Finding[];
  /** Secrets in the chunks' other string columns, one per column and rule. */
  fields: FieldFinding[];
}

/** The first rule that found a secret in a block, for counts by rule. */
export function firstRule(d: DirtyBlock): string {
  return d.findings[0]?.rule ?? d.fields[0]?.rule ?? "secret";
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
    const rule = firstRule(d);
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
  const fieldScan = new FieldScan();
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
    yield* scanGroup(store, group, fieldScan);
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

/** A listed chunk's strings; a chunk gone since it was listed stops the scan (it cannot be vouched for). */
function stringsOf(texts: Map<string, RowStrings>, id: string): RowStrings {
  const t = texts.get(id);
  if (t === undefined)
    throw new FunesError(
      "busy",
      `chunk "${id}" left the memory while it was being scanned for secrets — run the command again`,
    );
  return t;
}

/**
 * One group of blocks: their strings read, texts stitched and scanned in calls of `BLOCKS_PER_SCAN`, their
 * other columns' values scanned (each distinct value once per gate); the dirty ones.
 */
async function* scanGroup(
  store: LocalStore,
  group: RowPlace[][],
  fieldScan: FieldScan,
): AsyncGenerator<DirtyBlock> {
  const strings = await stringsAt(store, group.flat());
  const fieldsOf = (places: RowPlace[]) => places.flatMap((p) => stringsOf(strings, p.id).fields);
  await fieldScan.scan(group.flatMap(fieldsOf));
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
          text: stringsOf(strings, p.id).text,
        }),
      ),
  );
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_SCAN) {
    const call = blocks.slice(i, i + BLOCKS_PER_SCAN);
    const stitched = call.map((l) => stitch(l.map((r) => r.text)));
    const found = await findingsPerText(stitched);
    for (const [j, chunks] of call.entries()) {
      const findings = found[j] ?? [];
      const fields = fieldScan.findingsOf(fieldsOf(group[i + j] ?? []));
      if (findings.length > 0 || fields.length > 0)
        yield { chunks, text: stitched[j] ?? "", findings, fields };
    }
  }
}

/**
 * A value whose shape leaves no room for a secret: a UUID, a time in RFC 3339. Scanned alone, a
 * rule finds nothing in one (none is recognised without a name or a prefix around it), so it is not scanned:
 * a transcript's turn ids and times are most of the distinct values the gate and an index run see.
 */
export function isPlainValue(value: string): boolean {
  return PLAIN.test(value);
}

const PLAIN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)$/i;

/** Distinct field values scanned per scanner call. */
const VALUES_PER_SCAN = 1024;

/**
 * The other columns' values a gate has scanned, each once: its rule when it holds a secret, null when clean.
 * A working folder is stored munged (every character but a letter or digit made `-`, as Claude Code names
 * its project folders), which glues a key to the words around it: it is scanned with each `-` read as a
 * space too.
 */
class FieldScan {
  /** Values of columns that repeat across a memory (a session's, a folder's, a tool's), kept for the gate. */
  private readonly lasting = new Map<string, string | null>();
  /** Values of a turn's own columns (its ids, its time), kept for one group only. */
  private group = new Map<string, string | null>();

  private static key(column: string, value: string): string {
    return `${column}\u0000${value}`;
  }

  private cache(column: string): Map<string, string | null> {
    return PER_TURN.has(column) ? this.group : this.lasting;
  }

  /** Scans the values of one group not scanned before. */
  async scan(fields: [string, string][]): Promise<void> {
    this.group = new Map();
    const fresh = new Map<string, [string, string]>();
    for (const f of fields) {
      const k = FieldScan.key(f[0], f[1]);
      if (this.cache(f[0]).has(k)) continue;
      if (isPlainValue(f[1])) this.cache(f[0]).set(k, null);
      else fresh.set(k, f);
    }
    const todo = [...fresh.entries()];
    for (let i = 0; i < todo.length; i += VALUES_PER_SCAN) {
      const part = todo.slice(i, i + VALUES_PER_SCAN);
      const texts = part.flatMap(([, [column, value]]) =>
        column === "workdir" ? [value, value.replaceAll("-", " ")] : [value],
      );
      const found = await findingsPerText(texts);
      let at = 0;
      for (const [k, [column]] of part) {
        const views = column === "workdir" ? 2 : 1;
        this.cache(column).set(k, found.slice(at, at + views).flat()[0]?.rule ?? null);
        at += views;
      }
    }
  }

  /** The secrets among `fields` (of the group scanned last), one per column and rule. */
  findingsOf(fields: [string, string][]): FieldFinding[] {
    const out = new Map<string, FieldFinding>();
    for (const [column, value] of fields) {
      const rule = this.cache(column).get(FieldScan.key(column, value));
      if (rule !== null && rule !== undefined) out.set(`${column}\u0000${rule}`, { column, rule });
    }
    return [...out.values()];
  }
}

/** Columns whose values belong to one turn: scanned per group, not kept for the whole gate. */
const PER_TURN: ReadonlySet<string> = new Set(["turn_uuid", "parent_uuid", "ts"]);
