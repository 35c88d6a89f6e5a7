/**
 * Which data files a memory's newest version still uses. A forget on a Hub memory deletes rows with deletion
 * files; a fragment whose rows are all deleted leaves the manifest, but its data file stays in the repo (the
 * commit only adds files), so a cached copy holds files no current row uses.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TABLE_NAME } from "./schema.js";

const U64_MAX = (1n << 64n) - 1n;

/** The newest manifest under `<dir>/chunks.lance/_versions` (both of Lance's naming schemes), or null. */
function newestManifest(lanceDir: string): string | null {
  const folder = join(lanceDir, "_versions");
  if (!existsSync(folder)) return null;
  let best: { v: bigint; name: string } | null = null;
  for (const name of readdirSync(folder)) {
    const m = /^(\d+)\.manifest$/.exec(name);
    if (m === null) continue;
    const n = BigInt(m[1] as string);
    // V2 names count down from u64::MAX so the newest sorts first; V1 names are the version itself.
    const v = n > 1n << 63n ? U64_MAX - n : n;
    if (best === null || v > best.v) best = { v, name };
  }
  return best === null ? null : join(folder, best.name);
}

/**
 * Data files (paths under `dir`) the newest version of the memory in `dir` does not reference. A manifest
 * stores each fragment's data file name as a plain string, so a name absent from its bytes is unused.
 * Empty when there is no manifest to go by.
 */
export function unreferencedDataFiles(dir: string): string[] {
  const lanceDir = join(dir, `${TABLE_NAME}.lance`);
  const manifest = newestManifest(lanceDir);
  const data = join(lanceDir, "data");
  if (manifest === null || !existsSync(data)) return [];
  const bytes = readFileSync(manifest);
  return readdirSync(data)
    .filter((name) => name.endsWith(".lance") && !bytes.includes(Buffer.from(name)))
    .map((name) => join(data, name));
}
