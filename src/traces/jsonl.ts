/**
 * Shared JSONL machinery (shared/spec/core.md §1.4): lossy UTF-8, line splitting, per-line JSON with
 * every rejected line counted by reason.
 */
import { readFile } from "node:fs/promises";
import { countSkip, type SkipCounts } from "./types.js";

/** A parsed JSONL record with the line it came from (needed for lossless re-serialization). */
export interface JsonRecord {
  raw: string;
  value: Record<string, unknown>;
}

/** Skip reason for a line that is not JSON (e.g. a partial trailing write). */
export const SKIP_MALFORMED = "malformed JSON line";
/** Skip reason for a line the reference's JSON parser rejects for an unpaired UTF-16 surrogate escape. */
export const SKIP_SURROGATE = "unpaired surrogate escape";
/** Skip reason for a JSON line that is not an object. */
export const SKIP_NOT_OBJECT = "JSON line is not an object";

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Reads a file as text, invalid UTF-8 bytes becoming U+FFFD (Rust `from_utf8_lossy`). */
export async function readTextLossy(path: string): Promise<string> {
  return decoder.decode(await readFile(path));
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const UNPAIRED =
  /(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})(?<!\\)(?:\\\\)*\\u[dD][c-fC-F][0-9a-fA-F]{2}/;

/**
 * Splits text into trimmed, non-blank lines and parses each as a JSON object. Lines that fail are counted
 * in `skips`, never thrown: a torn last line must not lose the rest of the file.
 */
export function* parseJsonl(text: string, skips: SkipCounts): Generator<JsonRecord> {
  if (isLfsPointer(text)) {
    countSkip(skips, SKIP_LFS_POINTER);
    return;
  }
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      countSkip(skips, SKIP_MALFORMED);
      continue;
    }
    if (SURROGATE_ESCAPE.test(raw) && UNPAIRED.test(raw)) {
      countSkip(skips, SKIP_SURROGATE);
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      countSkip(skips, SKIP_NOT_OBJECT);
      continue;
    }
    yield { raw, value: value as Record<string, unknown> };
  }
}

/**
 * Skip reason for a Git LFS pointer found where a transcript should be: a backup repository checked out
 * without its LFS objects (a real `~/.hermes` backup's `state.db` was one). The transcript is not on disk.
 */
export const SKIP_LFS_POINTER =
  "Git LFS pointer in place of the file (run `git lfs pull` where it was checked out)";

/** True for the text of a Git LFS pointer file (`version https://git-lfs.github.com/spec/v1`, oid, size). */
export function isLfsPointer(text: string): boolean {
  return text.length < 1024 && text.startsWith("version https://git-lfs.github.com/spec/");
}

/** Narrows an unknown JSON value to an object. */
export function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Narrows an unknown JSON value to a string. */
export function asString(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
