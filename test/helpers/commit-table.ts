/**
 * Reading what a commit on the Hub stand-in holds: its `chunks.lance/` files written to a scratch folder
 * and opened with Lance, the way a reader would see that commit.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalStore } from "../../src/local/index.js";

/** Selected columns of every row of the memory in `files` (a commit's paths and bytes). */
export async function commitRows(
  files: Map<string, Buffer>,
  scratch: string,
  columns: string[],
): Promise<Record<string, unknown>[]> {
  const dir = mkdtempSync(join(scratch, "commit-"));
  for (const [p, b] of files) {
    if (!p.startsWith("chunks.lance/")) continue;
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
  const store = await LocalStore.open(dir);
  if (store === null) return [];
  try {
    return await store.table.query().select(columns).toArray();
  } finally {
    store.close();
  }
}

/** Every chunk id in `files`. */
export async function commitIds(files: Map<string, Buffer>, scratch: string): Promise<string[]> {
  return (await commitRows(files, scratch, ["id"])).map((r) => String(r.id));
}
