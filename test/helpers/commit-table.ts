/**
 * Reading what a commit on the Hub stand-in holds: its `chunks.lance/` files written to a scratch folder
 * and opened with Lance, the way a reader would see that commit.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalStore } from "../../src/local/index.js";

/** A commit's `chunks.lance/` files written to a new folder under `scratch`. */
export function writeOut(files: Map<string, Buffer>, scratch: string): string {
  const dir = mkdtempSync(join(scratch, "commit-"));
  for (const [p, b] of files) {
    if (!p.startsWith("chunks.lance/")) continue;
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
  return dir;
}

/** Selected columns of every row of the memory in `files` (a commit's paths and bytes). */
export async function commitRows(
  files: Map<string, Buffer>,
  scratch: string,
  columns: string[],
): Promise<Record<string, unknown>[]> {
  const store = await LocalStore.open(writeOut(files, scratch));
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

/** The `project` a commit's memory names in its schema metadata, or null. */
export async function commitProject(files: Map<string, Buffer>, scratch: string): Promise<string | null> {
  const store = await LocalStore.open(writeOut(files, scratch));
  try {
    return (await store?.project()) ?? null;
  } finally {
    store?.close();
  }
}
