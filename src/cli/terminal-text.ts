/**
 * Text for people on a terminal: colour that is only there when asked for, wrapping at the terminal's
 * width, tool fragments shown as their content instead of escaped JSON, and short session labels that still
 * tell sessions apart. Pure: the caller says the width and whether colour is on.
 */
import { terminalText } from "../format/index.js";

/** How a terminal view looks. */
export interface TerminalStyle {
  /** Columns to fit (code points; wide characters are not measured). */
  width: number;
  color: boolean;
}

/** ANSI styles that vanish when colour is off. */
export function paint(color: boolean) {
  const sgr = (on: string, off: string) => (s: string) => (color ? `\x1b[${on}m${s}\x1b[${off}m` : s);
  return {
    bold: sgr("1", "22"),
    dim: sgr("2", "22"),
    cyan: sgr("36", "39"),
    yellow: sgr("33", "39"),
    green: sgr("32", "39"),
  };
}

/** The width to lay text out at: the terminal's, else 80 (a terminal's default); never narrower than 40. */
export function layoutWidth(columns: number | null): number {
  return Math.max(40, columns ?? 80);
}

/**
 * Rows `text` takes on a terminal `width` columns wide that wraps what passes its edge: each line at least
 * one row, a line of exactly `width` code points one row (the cursor waits at the edge).
 */
export function terminalRows(text: string, width: number): number {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return lines.reduce((n, l) => n + Math.max(1, Math.ceil(Array.from(l).length / width)), 0);
}

/**
 * `text` with every line that would pass `width` wrapped at spaces, the continuation indented like the line
 * (a `note:` or `warning:` line's continuation under its text, a bullet's under its words), so a terminal
 * never breaks a word. `width` null (output that is not a terminal) leaves the text as it is. Ends with a
 * newline when `text` does.
 */
export function fitText(text: string, width: number | null): string {
  if (width === null) return text;
  const end = text.endsWith("\n");
  const lines = (end ? text.slice(0, -1) : text).split("\n").flatMap((line) => {
    if (Array.from(line).length <= width) return [line];
    const lead = /^(\s*(?:(?:funes|note|warning): |[-•→~] )?)/.exec(line)?.[1] ?? "";
    const indent = " ".repeat(Math.min(Array.from(lead).length, Math.floor(width / 3)));
    // Wrapped to what is left after the lead, so the first line and its continuations both fit.
    const rest = wrapText(line.slice(lead.length), Math.max(10, width - Array.from(lead).length));
    return rest.map((l, i) => (i === 0 ? `${lead}${l}` : `${indent}${l}`));
  });
  return `${lines.join("\n")}${end ? "\n" : ""}`;
}

/** `s` cut to `width` code points, ending in `…` when cut. */
export function clip(s: string, width: number): string {
  const cps = Array.from(s);
  return cps.length <= width ? s : `${cps.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** Wraps each line at spaces to `width` code points; a word longer than the width is split. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    let cur = "";
    let curLen = 0;
    for (const word of line.split(" ")) {
      let w = Array.from(word);
      if (curLen > 0 && curLen + 1 + w.length > width) {
        out.push(cur);
        cur = "";
        curLen = 0;
      }
      while (w.length > width) {
        if (curLen > 0) {
          out.push(cur);
          cur = "";
          curLen = 0;
        }
        out.push(w.slice(0, width).join(""));
        w = w.slice(width);
      }
      cur = curLen === 0 ? w.join("") : `${cur} ${w.join("")}`;
      curLen = curLen === 0 ? w.length : curLen + 1 + w.length;
    }
    out.push(cur);
  }
  return out;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "", '"': '"', "\\": "\\", "/": "/" };

/** JSON string escapes undone, for a fragment of JSON that does not parse (a chunk split mid-object). */
function unescapeJsonish(s: string): string {
  return s.replace(/\\(["\\/nrt])/g, (_m, c: string) => ESCAPES[c] ?? c);
}

/**
 * A stored tool block (`[tool_use Bash] {"command":"ls\n-la"}`) as a person reads it: the label, then the
 * input's fields one per line with string values unescaped (`command: ls` / `-la`). Other text is returned
 * as it is; a piece of a tool block that is not whole JSON has its escapes undone. Control characters the
 * decoding brings back are shown as control pictures (terminalText).
 */
export function readableTool(text: string, blockType: string): string {
  if (blockType !== "tool_use" && blockType !== "tool_result") return text;
  const m = /^\[(tool_use|tool_result)([^\]]*)\] ?([\s\S]*)$/.exec(text);
  const label = m === null ? null : `[${m[1]}${m[2]}]`;
  const body = m === null ? text : (m[3] ?? "");
  let shown: string;
  try {
    const v = JSON.parse(body) as unknown;
    if (typeof v === "string") shown = v;
    else if (v !== null && typeof v === "object" && !Array.isArray(v))
      shown = Object.entries(v)
        .map(([k, x]) => `${k}: ${typeof x === "string" ? x : JSON.stringify(x)}`)
        .join("\n");
    else shown = body;
  } catch {
    shown = unescapeJsonish(body);
  }
  // Decoding undoes JSON's escapes, so a control character escaped in the stored text (a command that
  // printed `\u001b]52;…`) is raw again here: it is made visible again before anything prints it.
  shown = terminalText(shown);
  return label === null ? shown : `${label} ${shown}`;
}

/** `text` on one line: whitespace runs (newlines too) become one space. */
export function flattenSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Short labels for session ids, one per id, that tell the given sessions apart: 8 code points of the id's
 * core (`coreOf`: after a timestamp prefix, which sessions of one day share), longer where two would
 * collide. A label is
 * also a short id `funes get` resolves (commands/get.ts).
 */
export function sessionLabels(ids: string[], coreOf: (id: string) => string): Map<string, string> {
  const distinct = [...new Set(ids)];
  const core = (id: string) => Array.from(coreOf(id));
  const longest = Math.max(8, ...distinct.map((id) => core(id).length));
  for (let n = 8; ; n += 4) {
    const labels = new Map(distinct.map((id) => [id, core(id).slice(0, n).join("")]));
    if (new Set(labels.values()).size === distinct.length || n >= longest) return labels;
  }
}
