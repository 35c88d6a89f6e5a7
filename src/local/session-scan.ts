/**
 * The scan behind `sessions`: every row's session, agent, repo, folder, time and turn, folded per session.
 * Decoding a text cell (Arrow's `get(i)`) costs about a microsecond, and a memory of a million rows has
 * millions of cells; but a session's rows are written together, so most cells repeat the row before. The
 * scan compares a cell's UTF-8 bytes with its neighbour's and decodes only what changed: the strings
 * decoded scale with sessions and turns, not with rows.
 */
import type { Data, Table } from "apache-arrow";

/** A text column of one record batch, read as UTF-8 bytes. */
class TextCells {
  private readonly offsets: ArrayLike<number | bigint> | null;
  private readonly values: Uint8Array | null;
  private readonly nulls: Uint8Array | null;
  private readonly at: number;
  private static readonly decoder = new TextDecoder();

  constructor(data: Data | undefined) {
    this.offsets = (data?.valueOffsets as ArrayLike<number | bigint> | undefined) ?? null;
    this.values = (data?.values as Uint8Array | undefined) ?? null;
    this.nulls = data !== undefined && data.nullCount > 0 ? (data.nullBitmap ?? null) : null;
    this.at = data?.offset ?? 0;
  }

  private start(i: number): number {
    return Number(this.offsets?.[this.at + i] ?? 0);
  }

  private end(i: number): number {
    return Number(this.offsets?.[this.at + i + 1] ?? 0);
  }

  /** Bytes in cell `i` (0: empty, null, or no such column). */
  size(i: number): number {
    if (this.values === null || this.isNull(i)) return 0;
    return this.end(i) - this.start(i);
  }

  private isNull(i: number): boolean {
    if (this.nulls === null) return false;
    const k = this.at + i;
    return ((this.nulls[k >> 3] ?? 0) & (1 << (k & 7))) === 0;
  }

  /** True when cells `i` and `j` hold the same text (nulls and empties alike). */
  same(i: number, j: number): boolean {
    const n = this.size(i);
    if (n !== this.size(j)) return false;
    const v = this.values as Uint8Array;
    const a = this.start(i);
    const b = this.start(j);
    for (let k = 0; k < n; k++) if (v[a + k] !== v[b + k]) return false;
    return true;
  }

  /** Compares cell `i` with `other`'s cell `j` bytewise (UTF-8 order is code point order): <0, 0, >0. */
  compare(i: number, other: TextCells, j: number): number {
    const n = this.size(i);
    const m = other.size(j);
    const v = this.values ?? new Uint8Array();
    const w = other.values ?? new Uint8Array();
    const a = this.start(i);
    const b = other.start(j);
    for (let k = 0; k < Math.min(n, m); k++) {
      const d = (v[a + k] ?? 0) - (w[b + k] ?? 0);
      if (d !== 0) return d;
    }
    return n - m;
  }

  /** Cell `i` as a string ("" for null). */
  text(i: number): string {
    const n = this.size(i);
    if (n === 0) return "";
    const a = this.start(i);
    return TextCells.decoder.decode((this.values as Uint8Array).subarray(a, a + n));
  }

  /** True when cell `i` reads as a time: `YYYY-` (stored times are ISO strings). */
  isTime(i: number): boolean {
    if (this.size(i) < 5) return false;
    const v = this.values as Uint8Array;
    const a = this.start(i);
    for (let k = 0; k < 4; k++) {
      const c = v[a + k] ?? 0;
      if (c < 48 || c > 57) return false;
    }
    return v[a + 4] === 45;
  }
}

/** A cell kept by reference (its batch's column and row), decoded once at the end. */
interface CellRef {
  cells: TextCells;
  row: number;
}

/** One session folded from its rows. */
export interface FoldedSession {
  sessionId: string;
  harness: string;
  repo: string;
  workdir: string;
  started: string;
  ended: string;
  turns: number;
}

interface Fold {
  sessionId: string;
  harness: string;
  repo: string;
  workdir: string;
  first: CellRef | null;
  last: CellRef | null;
  turns: Set<string>;
}

/**
 * Folds a table of `session_id`, `workdir`, `ts`, `turn_uuid` (and `harness`, `repo` when the memory has
 * them) per agent and session: earliest and latest time (cells that are no time left out), the first
 * non-empty repo and folder, distinct turns.
 */
export function foldSessions(table: Table): FoldedSession[] {
  const by = new Map<string, Fold>();
  for (const batch of table.batches) {
    const col = (name: string) => new TextCells(batch.getChild(name)?.data[0]);
    const [sid, hn, rp, wd, ts, turn] = ["session_id", "harness", "repo", "workdir", "ts", "turn_uuid"].map(
      col,
    ) as [TextCells, TextCells, TextCells, TextCells, TextCells, TextCells];
    let f: Fold | undefined;
    for (let i = 0; i < batch.numRows; i++) {
      const moved = i === 0 || !sid.same(i, i - 1) || !hn.same(i, i - 1);
      if (moved || f === undefined) {
        const sessionId = sid.text(i);
        const harness = hn.text(i);
        const key = `${harness}\u0000${sessionId}`;
        f = by.get(key);
        if (f === undefined) {
          f = { sessionId, harness, repo: "", workdir: "", first: null, last: null, turns: new Set() };
          by.set(key, f);
        }
      }
      if (f.repo === "" && rp.size(i) > 0) f.repo = rp.text(i);
      if (f.workdir === "" && wd.size(i) > 0) f.workdir = wd.text(i);
      if (ts.isTime(i)) {
        if (f.first === null || ts.compare(i, f.first.cells, f.first.row) < 0)
          f.first = { cells: ts, row: i };
        if (f.last === null || ts.compare(i, f.last.cells, f.last.row) > 0) f.last = { cells: ts, row: i };
      }
      // A turn's rows are written together: its id is decoded once per run of rows, not per row.
      if (moved || turn.size(i) === 0 || !turn.same(i, i - 1)) {
        // A turn without an id (a parser gave it none) is its place.
        f.turns.add(turn.size(i) > 0 ? turn.text(i) : `#${String(batch.getChild("seq")?.get(i) ?? "")}`);
      }
    }
  }
  const text = (c: CellRef | null) => (c === null ? "" : c.cells.text(c.row));
  return [...by.values()].map((f) => ({
    sessionId: f.sessionId,
    harness: f.harness,
    repo: f.repo,
    workdir: f.workdir,
    started: text(f.first),
    ended: text(f.last),
    turns: f.turns.size,
  }));
}
