/**
 * Small files funes rewrites whole (state.json, forgotten.json, the forget marker, curation decisions):
 * written to a temp file beside them, then renamed over them, so a reader sees the old file or the new one.
 * A write that fails (a full disk) removes its temp file: nothing truncated is left behind.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";

const tmpOf = (path: string) => `${path}.${process.pid}.tmp`;

/** Writes `text` to `path` atomically (see the file header). */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = tmpOf(path);
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** {@link writeFileAtomic}, synchronously. */
export function writeFileAtomicSync(path: string, text: string): void {
  const tmp = tmpOf(path);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
