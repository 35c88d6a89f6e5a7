/**
 * Claude Code's externalised tool outputs (docs/transcript-formats.md#externalised-tool-output): an output
 * too large for the transcript is saved to `<session>/tool-results/<id>.txt`, and the transcript's
 * tool_result holds only `<persisted-output>` with the saved path and a 2 KB preview. The full output is
 * indexed as one more tool_result block of the same turn, after the turn's own blocks, so every block the
 * reference numbers keeps its number (and its chunk id) and the preview stays as the reference stores it.
 */
import { makeBlock } from "./blocks.js";
import { isBlank } from "./text.js";
import { type Block, countSkip, type SkipCounts } from "./types.js";

/** Skip reason for a saved output the transcript names but that is not on disk. */
export const SKIP_PERSISTED_MISSING =
  "externalised tool output not found beside the transcript (preview kept)";

const SAVED_TO = /^<persisted-output>[\s\S]*?Full output saved to: ([^\r\n]+)/;

/**
 * The `[sessionFolder, file]` a persisted-output preview names: the last three components of the saved
 * path must be `<session>/tool-results/<file>` (the path itself may be another machine's).
 */
export function persistedOutputRef(text: string): [string, string] | null {
  const m = SAVED_TO.exec(text.trimStart());
  if (m === null) return null;
  const parts = (m[1] ?? "").trim().split(/[\\/]/);
  const [folder, dir, file] = parts.slice(-3);
  if (folder === undefined || dir !== "tool-results" || file === undefined) return null;
  if ([folder, file].some((p) => p === "" || p === "." || p === "..")) return null;
  return [folder, file];
}

/**
 * What reading a saved output gave: its text, null when it is not on disk, or why the file there was not read
 * (a link, not a regular file, over its cap: the reason is counted).
 */
export type PersistedRead = string | null | { refused: string };

/**
 * Appends the full text of each persisted output a tool_result block of `blocks` names. When the saved file is
 * not on disk (a transcript copied without its folder) or was refused, `inRecord` stands in for it: the
 * record's own copy of the output (Bash's `toolUseResult.stdout`, which real 2.0/2.1 transcripts keep whole),
 * used only for a record with one persisted output and only when it is longer than the preview.
 */
export function addPersistedOutputs(
  blocks: Block[],
  read: (sessionFolder: string, file: string) => PersistedRead,
  skipped: SkipCounts,
  inRecord: string | null = null,
): void {
  const refs: [Block, [string, string]][] = [];
  for (const b of blocks) {
    const ref = b.blockType === "tool_result" ? persistedOutputRef(b.text) : null;
    if (ref !== null) refs.push([b, ref]);
  }
  const found: Block[] = [];
  for (const [b, [folder, file]] of refs) {
    const got = read(folder, file);
    // A refused file (a link, a FIFO, over its cap) is counted by its reason; the record's copy may stand in.
    if (got !== null && typeof got === "object") countSkip(skipped, got.refused);
    let full = typeof got === "string" ? got : null;
    if (full === null && refs.length === 1 && inRecord !== null && inRecord.length > b.text.length)
      full = inRecord;
    if (full === null) {
      if (got === null) countSkip(skipped, SKIP_PERSISTED_MISSING);
    } else if (!isBlank(full)) found.push(makeBlock("tool_result", full, b.toolName, b.toolUseId));
  }
  blocks.push(...found);
}
