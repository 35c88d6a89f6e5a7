/** SQL literals for Lance filters. */

/** A SQL string literal (quotes doubled). */
export function sqlString(v: string): string {
  return `'${v.replaceAll("'", "''")}'`;
}
