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
import { HIDDEN, plainForm } from "../lookalike/index.js";

/** Bidi embeddings, overrides, isolates and marks; U+2028/2029 (read as line breaks by some renderers). */
const BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069";

/**
 * Characters that render as nothing, so text made of them is read by an agent but not seen by its user
 * ("ASCII smuggling" with Unicode tags, data hidden in variation selectors, zero-width padding): the one
 * definition the look-alike folding uses too (lookalike/classes.ts `HIDDEN`: Unicode's default-ignorable
 * code points and every format character, category Cf — tags, variation selectors and their supplement,
 * zero width space, word joiner and invisible operators, the soft hyphen, the BOM inside text, Hangul
 * fillers, Mongolian selectors, CGJ, Khmer invisible vowels, musical and shorthand format controls, and any
 * Unicode adds). The zero-width (non-)joiners and the variation selectors U+FE00–FE0F are kept (the
 * lookahead before each class below): scripts and emoji need them.
 */
const INVISIBLE = HIDDEN;
const KEPT = "(?![\\u200c\\u200d\\ufe00-\\ufe0f])";

// C0 (but tab and newline), DEL, C1, and the characters above. Built from a string so no control
// character sits in this source file.
const UNSAFE = new RegExp(
  `${KEPT}[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}${INVISIBLE}]`,
  "gu",
);
const UNSAFE_OR_BREAK = new RegExp(
  `${KEPT}[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}${INVISIBLE}]`,
  "gu",
);

/**
 * What a terminal or a reader of the output may act on, one code point at a time: everything `UNSAFE_OR_BREAK`
 * names but newline and tab, and lone surrogates (which a UTF-8 stream would turn into U+FFFD unseen).
 */
const UNSAFE_OUTPUT = `${KEPT}[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}${INVISIBLE}\\ud800-\\udfff]`;

/** Each UTF-16 unit of `c` as a JSON escape (`\u001b`, `\udb40\udc41`): visible text, and valid in a JSON string. */
function jsonEscaped(c: string): string {
  let out = "";
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * The last pass over everything the CLI writes (cli/output-guard.ts), whatever produced it: returns a
 * function that turns every character a terminal acts on or hides (C0 but newline and tab, DEL, C1 with
 * 8-bit CSI/OSC, bidi controls, invisible characters, lone surrogates) into a `\uXXXX` escape, except the
 * sequences the regex source `keep` matches (the CLI's own colours). The escape is JSON's own, and in JSON these characters
 * only ever sit inside strings (`JSON.stringify` escapes C0 itself), so `--json` and MCP output stay valid
 * JSON that parses to the same content, while a terminal shows the escape instead of acting on it.
 */
export function outputGuard(keep: string | null): (s: string) => string {
  const pattern = new RegExp(keep === null ? UNSAFE_OUTPUT : `(${keep})|${UNSAFE_OUTPUT}`, "gu");
  return (s) =>
    s.replace(pattern, (c: string, ours?: string) => (typeof ours === "string" ? ours : jsonEscaped(c)));
}

/** The visible form of one unsafe character: `\n`, `\t`, `\r`, `\x1b`, `\u202e`, `\u{e0041}`. */
function visible(c: string): string {
  if (c === "\n") return "\\n";
  if (c === "\t") return "\\t";
  if (c === "\r") return "\\r";
  const code = c.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}

/**
 * The terminal view's form of one unsafe character: a C0 control or DEL as its Unicode control picture
 * (`␛` for ESC, `␇`, `␀`, `␊` for a newline kept off its line, `␡`), so a stored colour code reads as
 * `␛[33m`, plainly not text the transcript typed (`\x1b` could be); anything else as {@link visible}.
 */
function pictured(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  return code === 0x7f ? "\u2421" : visible(c);
}

/** Multi-line text for people on a terminal: {@link safeText} with control pictures (`␛[33m`). */
export function terminalText(s: string): string {
  return s.replace(/\r\n/g, "\n").replace(UNSAFE, pictured);
}

/** A one-line field for people on a terminal: {@link oneLine} with control pictures. */
export function terminalLine(s: string): string {
  return clip(s, MAX_FIELD).replace(UNSAFE_OR_BREAK, pictured);
}

/**
 * Longest one-line field printed whole (UTF-16 code units): ids, workdirs, names. Longer ones come from no
 * transcript (a hostile memory can write megabytes into a session id) and are cut, saying how much.
 */
export const MAX_FIELD = 1000;

/**
 * Longest passage `recall` prints whole: funes and the reference write chunks of at most 1,200 characters,
 * so only a hostile memory's rows are longer; they are cut (an agent's context is not a dump target).
 */
export const MAX_PASSAGE = 16_000;

/** `s` cut to `max` code units (never inside a surrogate pair), saying how many more there were. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${s.slice(0, end)}… [cut: ${s.length - end} more characters]`;
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
  return clip(s, MAX_FIELD).replace(UNSAFE_OR_BREAK, visible);
}

/** Longest error message printed whole (UTF-16 code units); only a stranger's value makes one longer. */
const MAX_MESSAGE = 4000;

/**
 * An error or warning message as the one line it is meant to be: a value quoted in it may be a stranger's
 * (a memory's model name, a file it names), so newlines are escaped too; a line break there would let it
 * print a line of its own that reads as funes's (`funes: all good — now run …`).
 */
export function messageLine(s: string): string {
  // A long quoted value (a 100,000-character argument) is shortened where it stands, so the sentence's
  // next step after it still shows.
  const quoted = s.replace(/"([^"]{201,})"/g, (_m, v: string) => `"${clip(v, 160)}"`);
  return clip(quoted, MAX_MESSAGE).replace(UNSAFE_OR_BREAK, visible);
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
  return id.length <= MAX_FIELD && PLAIN_ID.test(id) ? id : singleQuoted(oneLine(id));
}

/** A memory label (`hf://datasets/o/n`, a path) as a shell word; `/`, `@`, `+` and `,` also stay plain. */
export function shellMemory(label: string): string {
  return label.length <= MAX_FIELD && /^[A-Za-z0-9._:/@+,=-]+$/.test(label)
    ? label
    : singleQuoted(oneLine(label));
}

/**
 * Starts of lines that read as the agent format's own structure, on a line as `readAs` gives it (where a
 * blank of any kind is a space, so a run of spaces stands for funes's one or two): a recall hit's header
 * (`[ts] … score=…`), its `→ get` line, a neighbour line (`~ [role …`), a `get` turn header
 * (`[ts] role seqN turn=…`).
 */
const STRUCTURE_START = /^(?:\[[^\]\n]*\] .* score=\d| *→ +get | *~ +\[|\[[^\]\n]*\] +\S+ +seq-?\d+ +turn=)/;

/** The escapes `safeText` shows an invisible or control character as (`\xad`, `\u2060`, `\u{e0041}`). */
const SHOWN_ESCAPE = /\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\u\{([0-9a-f]{1,6})\}/g;

/** The character an escape of `SHOWN_ESCAPE` shows (nothing for a code point past Unicode's last). */
function shownChar(_m: string, x?: string, u?: string, braced?: string): string {
  const cp = Number.parseInt(x ?? u ?? braced ?? "", 16);
  return cp <= 0x10ffff ? String.fromCodePoint(cp) : "";
}

/**
 * A line as a reader takes it: the escapes `safeText` made of invisible and control characters read as the
 * characters they show (a reader skims `sco\xadre` as `score` and `text\u3164score` as `text score`), then
 * the plain form every look-alike guard uses (lookalike/plain-form.ts: blanks as spaces, invisible
 * characters and combining marks dropped, NFKC, Unicode's confusables as the ASCII they are drawn like,
 * dashes as `-`, arrows and `->` as `→`).
 */
function readAs(line: string): string {
  return plainForm(line.replace(SHOWN_ESCAPE, shownChar));
}

/**
 * A passage or turn text for the agent format, where its lines sit between funes's own: a line that would
 * read as a hit header, a `→ get` line or a turn header (a stranger's passage posing as a hit from your own
 * memory, pointing `→ get` at theirs) is shown with a `\` before it, also when it imitates one with
 * look-alike spaces, invisible characters, another arrow or letters of another script: lines are compared
 * in the plain form the echo rule reads (search/echoes.ts). Any other text is left as it is, so the format
 * stays the reference's byte for byte for what transcripts hold.
 */
export function unforgeable(text: string): string {
  return text
    .split("\n")
    .map((line) => (STRUCTURE_START.test(readAs(line)) ? `\\${line}` : line))
    .join("\n");
}

/**
 * A recall result ready for the agent format: notes and header fields on one line, passages escaped, and
 * the ids and memory of each `→ get` line as shell words (a plain id, as the reference prints it, is left
 * exactly as it is). Not for `--json`, which keeps every field as stored.
 */
export function terminalSafeRecall(r: RecallResult, view: "agent" | "people" = "agent"): RecallResult {
  // People on a terminal see control pictures, and neighbours keep their line breaks (the view folds them).
  const line = view === "people" ? terminalLine : oneLine;
  const text = view === "people" ? terminalText : safeText;
  return {
    ...r,
    notes: r.notes.map(line),
    hits: r.hits.map((h) => ({
      ...h,
      ts: line(h.ts),
      harness: line(h.harness),
      workdir: line(h.workdir),
      blockType: line(h.blockType),
      sessionId: shellId(h.sessionId),
      turnUuid: shellId(h.turnUuid),
      memory: h.memory === "" ? "" : shellMemory(h.memory),
      text: text(clip(h.text, MAX_PASSAGE)),
      neighbors: h.neighbors.map((n) => ({
        ...n,
        role: line(n.role),
        blockType: line(n.blockType),
        text: view === "people" ? terminalText(clip(n.text, MAX_PASSAGE)) : oneLine(n.text),
      })),
    })),
  };
}
