/** SQL literals for Lance filters. */

/** A SQL string literal (quotes doubled). */
export function sqlString(v: string): string {
  return `'${v.replaceAll("'", "''")}'`;
}

/**
 * A row with a vector funes can use: present and finite. Stored vectors are unit length, so a component
 * past ±1e30 (or NaN, which compares false) is a broken embedder's output, e.g. a corrupt model file in an
 * earlier funes. Such a row is neither published nor searched as embedded: it counts as waiting, and the
 * backfill embeds it again (its vector is overwritten). The filter costs no more than `vector IS NULL`
 * (both read the vector column; measured within noise at 100k rows).
 */
export const HAS_VECTOR = "(vector IS NOT NULL AND array_max(vector) < 1e30 AND array_min(vector) > -1e30)";

/** A row waiting for a vector: none, or a broken one (see {@link HAS_VECTOR}). */
export const NEEDS_VECTOR = `(NOT ${HAS_VECTOR})`;
