/**
 * Text a terminal or an agent can read without being driven by it. Every passage, id, workdir and name
 * funes prints may come from a stranger's memory (or a transcript that quoted one), so before it reaches a
 * terminal or an MCP result, control characters are made visible instead of acted on: C0 controls but
 * newline and tab, DEL, C1 controls (and so every ESC/CSI/OSC sequence: OSC 52 clipboard writes, window
 * titles, clear-screen, hyperlinks), bidi overrides and isolates, line/paragraph separators and NUL.
 * Pure: strings in, strings out. `--json` output does not come through here: JSON escapes what it must and
 * keeps the content unchanged.
 */

import type { RecallResult } from "../commands/index.js";

/** Bidi embeddings, overrides, isolates and marks; U+2028/2029 (read as line breaks by some renderers). */
const BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069";

// C0 (but tab and newline), DEL, C1, and the characters above. Built from a string so no control
// character sits in this source file.
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`, "g");
const UNSAFE_OR_BREAK = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`, "g");

/** The visible form of one unsafe character: `\n`, `\t`, `\r`, `\x1b`, `\u202e`. */
function visible(c: string): string {
  if (c === "\n") return "\\n";
  if (c === "\t") return "\\t";
  if (c === "\r") return "\\r";
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Multi-line text (a passage, a turn, a note): newlines and tabs kept, a CR before a newline dropped
 * (Windows line ends), every other control character shown escaped.
 */
export function safeText(s: string): string {
  return s.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

/** A field that must stay on its line (a header's workdir, role, harness, a name): newlines escaped too. */
export function oneLine(s: string): string {
  return s.replace(UNSAFE_OR_BREAK, visible);
}

/** The characters a session or turn id may have and still be pasted into a shell as it is. */
const PLAIN_ID = /^[A-Za-z0-9._:-]+$/;

/** POSIX single quotes around an already one-line string. */
function singleQuoted(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/**
 * An id as a shell word for a `→ get` line: printed as it is when plain (`[A-Za-z0-9._:-]+`), else on one
 * line and in single quotes, so pasting the line runs `funes get` and nothing else.
 */
export function shellId(id: string): string {
  return PLAIN_ID.test(id) ? id : singleQuoted(oneLine(id));
}

/** A memory label (`hf://datasets/o/n`, a path) as a shell word; `/`, `@`, `+` and `,` also stay plain. */
export function shellMemory(label: string): string {
  return /^[A-Za-z0-9._:/@+,=-]+$/.test(label) ? label : singleQuoted(oneLine(label));
}

/**
 * A recall result ready for the agent format: notes and header fields on one line, passages escaped, and
 * the ids and memory of each `→ get` line as shell words (a plain id, as the reference prints it, is left
 * exactly as it is). Not for `--json`, which keeps every field as stored.
 */
export function terminalSafeRecall(r: RecallResult): RecallResult {
  return {
    ...r,
    notes: r.notes.map(oneLine),
    hits: r.hits.map((h) => ({
      ...h,
      ts: oneLine(h.ts),
      harness: oneLine(h.harness),
      workdir: oneLine(h.workdir),
      blockType: oneLine(h.blockType),
      sessionId: shellId(h.sessionId),
      turnUuid: shellId(h.turnUuid),
      memory: h.memory === "" ? "" : shellMemory(h.memory),
      text: safeText(h.text),
      neighbors: h.neighbors.map((n) => ({
        ...n,
        role: oneLine(n.role),
        blockType: oneLine(n.blockType),
        text: oneLine(n.text),
      })),
    })),
  };
}
