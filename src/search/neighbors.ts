/**
 * Neighbour picking: the chunks shown under a hit are every chunk of the same session within `window`
 * turns (by seq), from other turns, ordered by (seq, block_idx, split_idx).
 */

/** The fields neighbour picking reads. */
export interface SeqRow {
  sessionId: string;
  turnUuid: string;
  seq: number;
  blockIdx: number;
  splitIdx: number;
}

/** Neighbours of one hit among `rows`. */
export function pickNeighbors<R extends SeqRow>(hit: SeqRow, rows: R[], window: number): R[] {
  return rows
    .filter(
      (r) =>
        r.sessionId === hit.sessionId && Math.abs(r.seq - hit.seq) <= window && r.turnUuid !== hit.turnUuid,
    )
    .sort((a, b) => a.seq - b.seq || a.blockIdx - b.blockIdx || a.splitIdx - b.splitIdx);
}
