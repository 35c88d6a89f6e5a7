/**
 * Shared JSONL machinery (docs/transcript-formats.md#reading-jsonl): lossy UTF-8, line splitting, per-line
 * JSON with every rejected line counted by reason.
 */
import { closeSync, readSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { openAgentFile, TRANSCRIPT_FILE } from "./agent-file.js";
import { NestedTooDeepError, tooDeep } from "./json-compact.js";
import { countSkip, type SkipCounts, type UnreadableRecord } from "./types.js";

/** A parsed JSONL record with the line it came from (needed for lossless re-serialization). */
export interface JsonRecord {
  raw: string;
  value: Record<string, unknown>;
  /** 1-based line number in the file (a whole-file document: 1). */
  line: number;
}

/** A line too long to be a string at all (V8's limit is 2^29 − 24 UTF-16 units). */
export interface OverlongLine {
  overlong: true;
}

/**
 * A transcript's text: a whole string (tests, small files), or its lines read from the file one at a time
 * (every iteration reads the file again from the start, so a parser can make two passes). Lines hold no
 * `\n`; a line too long to be a string comes as an {@link OverlongLine}.
 */
export type TranscriptText = string | Iterable<string | OverlongLine>;

/** Skip reason for a line longer than a string can be: it is passed over, the rest of the file read. */
export const SKIP_OVERLONG = "line too long to read (over 512 MiB)";

/** Skip reason for a record whose content cannot be taken apart (JSON nested too deep to serialize). */
export const SKIP_UNREADABLE = "record that could not be read";

/** At most this many unreadable records are named per unit (the rest are counted). */
export const NAMED_UNREADABLE = 5;

/**
 * Where a record sits in its unit: a 1-based line of its file, or, where a unit is not lines, the record
 * named by its id or position (`message id 17`, `part "prt_…"`, `message 3`).
 */
export type RecordPlace = number | string;

/**
 * Reads one record with `read` (its JSON parsed and taken apart: every parser's one guard); when it throws a
 * {@link NestedTooDeepError} or overflows the stack (JSON nested 100,000 deep), the record is passed over:
 * counted under {@link SKIP_UNREADABLE} and named by its place in `named`, never failing the rest of the
 * unit. Returns null then.
 */
export function readGuarded<T>(
  at: RecordPlace,
  skipped: SkipCounts,
  named: UnreadableRecord[],
  read: () => T,
): T | null {
  try {
    return read();
  } catch (err) {
    const reason = unreadableReason(err);
    if (reason === null) throw err;
    countSkip(skipped, SKIP_UNREADABLE);
    if (named.length < NAMED_UNREADABLE)
      named.push({ at: typeof at === "number" ? `line ${at}` : at, reason });
    return null;
  }
}

/** Why a record could not be read, for an error that means so; null for any other error. */
export function unreadableReason(err: unknown): string | null {
  const e = tooDeep(err);
  return e instanceof NestedTooDeepError ? e.message : null;
}

/** Longest line joined into one string, UTF-16 units (V8's string limit, with room to spare). */
const MAX_LINE = 0x1fff_ffe8 - 1024;
const CHUNK_BYTES = 1 << 20;

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
 * A file's lines, read a megabyte at a time (lossy UTF-8, as {@link readTextLossy}): memory is bounded by
 * the longest line, not the file, and a file larger than a string can be is read too. Each iteration opens
 * the file again, as every file in an agent's folder is opened (`openAgentFile`): a regular file inside
 * `root` (the path itself when omitted), never through a link out of it, never a FIFO or device.
 */
export function fileLines(path: string, root: string = path): Iterable<string | OverlongLine> {
  return {
    *[Symbol.iterator]() {
      const fd = openAgentFile(root, path, TRANSCRIPT_FILE);
      try {
        const buf = Buffer.allocUnsafe(CHUNK_BYTES);
        const dec = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
        // The start of the current line, in pieces (joined once, when its end is found: linear).
        let pieces: string[] = [];
        let held = 0;
        let overlong = false;
        const take = (tail: string): string | OverlongLine => {
          const line = overlong ? null : pieces.length === 0 ? tail : pieces.join("") + tail;
          pieces = [];
          held = 0;
          overlong = false;
          return line ?? { overlong: true };
        };
        for (;;) {
          const n = readSync(fd, buf, 0, CHUNK_BYTES, null);
          const s = n === 0 ? dec.decode() : dec.decode(buf.subarray(0, n), { stream: true });
          let start = 0;
          for (let nl = s.indexOf("\n"); nl >= 0; nl = s.indexOf("\n", start)) {
            if (held + nl - start > MAX_LINE) overlong = true;
            yield take(s.slice(start, nl));
            start = nl + 1;
          }
          if (start < s.length && !overlong) {
            held += s.length - start;
            if (held > MAX_LINE) {
              overlong = true;
              pieces = [];
            } else pieces.push(s.slice(start));
          }
          if (n === 0) break;
        }
        if (overlong || pieces.length > 0) yield take("");
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** The lines of a whole text (split at `\n`, as the reference splits). */
function* textLines(text: string): Generator<string> {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    yield text.slice(start, end);
    start = end + 1;
  }
}

/** A transcript's whole text (for the formats that are one JSON document, not lines). */
export function wholeText(input: TranscriptText): string {
  if (typeof input === "string") return input;
  const lines: string[] = [];
  for (const l of input) lines.push(typeof l === "string" ? l : "");
  return lines.join("\n");
}

/**
 * Splits text into trimmed, non-blank lines and parses each as a JSON object. Lines that fail are counted
 * in `skips`, never thrown: a torn last line must not lose the rest of the file.
 */
export function* parseJsonl(input: TranscriptText, skips: SkipCounts): Generator<JsonRecord> {
  if (typeof input === "string" && isLfsPointer(input)) {
    countSkip(skips, SKIP_LFS_POINTER);
    return;
  }
  let line = 0;
  for (const got of typeof input === "string" ? textLines(input) : input) {
    line++;
    if (typeof got !== "string") {
      countSkip(skips, SKIP_OVERLONG);
      continue;
    }
    if (line === 1 && typeof input !== "string" && got.startsWith(LFS_FIRST_LINE)) {
      countSkip(skips, SKIP_LFS_POINTER);
      return;
    }
    const raw = got.trim();
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
    yield { raw, value: value as Record<string, unknown>, line };
  }
}

const LFS_FIRST_LINE = "version https://git-lfs.github.com/spec/";

/**
 * Skip reason for a Git LFS pointer found where a transcript should be: a backup repository checked out
 * without its LFS objects (a real `~/.hermes` backup's `state.db` was one). The transcript is not on disk.
 */
export const SKIP_LFS_POINTER =
  "Git LFS pointer in place of the file (run `git lfs pull` where it was checked out)";

/** True for the text of a Git LFS pointer file (`version https://git-lfs.github.com/spec/v1`, oid, size). */
export function isLfsPointer(text: string): boolean {
  return text.length < 1024 && text.startsWith(LFS_FIRST_LINE);
}

/** Narrows an unknown JSON value to an object. */
export function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Narrows an unknown JSON value to a string. */
export function asString(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
