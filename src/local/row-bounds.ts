/**
 * Bounds on what a memory someone else wrote may hold once decompressed, checked before funes reads it for
 * anything else. A Lance data file can be tiny on the wire and huge inside (a zstd text column of repeated
 * bytes: 120 KB that inflates to 400 MB); the download cap counts bytes on the wire only. funes never writes
 * a chunk longer than it splits one (1,200 code points, at most 4,800 bytes of UTF-8, a little more after
 * redaction), and every published row carries a 1,536-byte vector that barely compresses, so:
 * - no row's text columns together hold more than {@link MAX_ROW_TEXT_BYTES};
 * - all text columns together hold no more than {@link MAX_INFLATION} times the data files' size on disk
 *   (or {@link MIN_TEXT_BUDGET}, for small memories).
 * The scan asks Lance for the columns' byte lengths only (`octet_length`), streams them batch by batch and
 * stops at the first bound crossed, so a bomb is refused after decompressing about one budget's worth.
 * Manifest-level bounds (rows against bytes on disk) are checked before this, without Lance
 * (manifest-check.ts).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { arrow, lancedb } from "./arrow.js";
import { COLUMNS, TABLE_NAME } from "./schema.js";

/** The most a row's text columns may hold together, bytes (about 13× the longest chunk funes writes). */
export const MAX_ROW_TEXT_BYTES = 64 * 1024;
/** Text bytes allowed per byte of data file on disk (funes's own rows: below 4). */
export const MAX_INFLATION = 16;
/** Text bytes any memory may hold whatever its size on disk. */
export const MIN_TEXT_BUDGET = 16 * 1024 * 1024;

/** Columns funes reads as text (every column but the vector and the integers). */
const TEXT_COLUMNS = COLUMNS.filter(
  (c) => c !== "vector" && c !== "seq" && c !== "block_idx" && c !== "split_idx",
);

/** A memory holds more than funes ever writes: what, in words. */
export class OversizeMemoryError extends Error {}

/** Bytes of the files under `dir` (one level: Lance's `data/`). */
function bytesIn(dir: string): number {
  let n = 0;
  try {
    for (const name of readdirSync(dir)) n += statSync(join(dir, name)).size;
  } catch {
    return 0;
  }
  return n;
}

/**
 * Checks the table in `dir` (the folder holding `chunks.lance`) against the bounds in the file header;
 * throws OversizeMemoryError at the first one crossed. Opens the table read-only (nothing is written).
 */
export async function checkRowBounds(dir: string): Promise<void> {
  const budget = Math.max(MIN_TEXT_BUDGET, MAX_INFLATION * bytesIn(join(dir, `${TABLE_NAME}.lance`, "data")));
  const db = await lancedb.connectNamespace("dir", { root: dir, manifestEnabled: false });
  try {
    const table = await db.openTable(TABLE_NAME);
    try {
      // Only columns stored as text: one of another type is refused by the schema check, in its own words.
      const text = new Set(
        (await table.schema()).fields
          .filter((f) => arrow.DataType.isUtf8(f.type) || arrow.DataType.isLargeUtf8(f.type))
          .map((f) => f.name),
      );
      const columns = TEXT_COLUMNS.filter((c) => text.has(c));
      if (columns.length === 0) return;
      const sum = columns.map((c) => `coalesce(octet_length(${c}), 0)`).join(" + ");
      let total = 0;
      for await (const batch of table.query().select({ n: sum })) {
        const n = batch.getChild("n");
        for (let i = 0; i < batch.numRows; i++) {
          const bytes = Number(n?.get(i) ?? 0);
          if (bytes > MAX_ROW_TEXT_BYTES)
            throw new OversizeMemoryError(
              `has a row of ${Math.ceil(bytes / 1024)} KiB of text, far beyond the longest chunk funes writes (1,200 code points)`,
            );
          total += bytes;
          if (total > budget)
            throw new OversizeMemoryError(
              `inflates to more than ${mib(budget)} MiB of text, ${MAX_INFLATION}× its data files on disk, far beyond what funes writes`,
            );
        }
      }
    } finally {
      table.close();
    }
  } finally {
    db.close();
  }
}

const mib = (n: number) => (n / 1048576).toFixed(1);
