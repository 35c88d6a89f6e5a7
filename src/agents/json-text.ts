/**
 * Editing a user's JSON or JSONC file in place (docs/agents.md#what-add-and-remove-change): the file is
 * read with Microsoft's `jsonc-parser` (comments and trailing commas allowed, as Gemini CLI, Qwen Code and
 * OpenCode read theirs), and a new content is written as the smallest text edits that turn the old
 * value into it — a key added after its siblings with their indentation, an entry taken out with its line
 * and the comma it needed, a changed value replaced where it stands. Everything else (comments, key order,
 * indentation, blank lines, the final newline) keeps its bytes, and an edit that changes nothing gives the
 * same text back.
 */
import { type Node, type ParseError, parseTree } from "jsonc-parser";
import { canonicalJson } from "./files.js";

type Json = Record<string, unknown>;
type Path = (string | number)[];

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const PARSE = { allowTrailingComma: true, disallowComments: false };
const STRICT = { allowTrailingComma: false, disallowComments: true };

/**
 * The file's object: `{}` for no file or blank text, null for text that is not a JSON(C) object (with
 * `strict`, for an agent that reads plain JSON only, also for text with comments or trailing commas).
 */
export function readJsonText(text: string | null, strict = false): Json | null {
  if (text === null || text.trim() === "") return {};
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, strict ? STRICT : PARSE);
  if (errors.length > 0 || tree === undefined || tree.type !== "object") return null;
  const value: unknown = nodeValue(tree);
  return isObject(value) ? value : null;
}

/** Whether a text holds nothing: no file, blank, or an object with only empty objects and lists in it. */
export function jsonTextIsEmpty(text: string | null): boolean {
  const prune = (v: unknown): boolean =>
    Array.isArray(v) ? v.length === 0 : isObject(v) ? Object.values(v).every(prune) : false;
  const root = readJsonText(text);
  return root !== null && prune(root);
}

/** A node's value (jsonc-parser's own `getNodeValue` without its import: objects, lists, scalars). */
function nodeValue(n: Node): unknown {
  if (n.type === "object") {
    const out: Json = {};
    for (const p of n.children ?? []) {
      const [k, v] = p.children ?? [];
      if (k !== undefined && v !== undefined) out[String(k.value)] = nodeValue(v);
    }
    return out;
  }
  if (n.type === "array") return (n.children ?? []).map(nodeValue);
  return n.value;
}

/** How the file is laid out: its indentation unit and line ending (two spaces and `\n` when it shows none). */
interface Layout {
  unit: string;
  eol: string;
}

function layoutOf(text: string): Layout {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1] ?? "");
  const tab = indents.find((i) => i.startsWith("\t"));
  if (tab !== undefined) return { unit: "\t", eol };
  const widths = indents.map((i) => i.length).filter((w) => w > 0);
  return { unit: widths.length > 0 ? " ".repeat(Math.min(...widths)) : "  ", eol };
}

/** Where the line holding `offset` starts, and its leading whitespace. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? "";
}

/** Whether only blanks stand between the start of the line and `offset`. */
function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === "";
}

/** The offset of the next token at or after `offset`, comments and blanks skipped. */
function nextToken(text: string, offset: number): number {
  let i = offset;
  while (i < text.length) {
    const c = text[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") i++;
    else if (text.startsWith("//", i)) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? text.length : nl;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else break;
  }
  return i;
}

/**
 * Where the line holding `offset` ends (before its line break), past a comment that closes it: what follows
 * `offset` on that line is blanks and comments only, else null.
 */
function restOfLine(text: string, offset: number): number | null {
  let i = offset;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  if (text.startsWith("//", i)) {
    const nl = text.indexOf("\n", i);
    i = nl < 0 ? text.length : nl;
  } else if (text.startsWith("/*", i)) {
    const end = text.indexOf("*/", i + 2);
    if (end < 0 || text.slice(i, end).includes("\n")) return null;
    return restOfLine(text, end + 2);
  }
  if (i >= text.length) return i;
  if (text[i] === "\r" && text[i + 1] === "\n") return i;
  return text[i] === "\n" ? i : null;
}

/** `value` as JSON text laid out for a place whose line is indented by `indent`. */
function render(value: unknown, indent: string, layout: Layout, inline: boolean): string {
  if (inline) return JSON.stringify(value);
  return JSON.stringify(value, null, layout.unit).split("\n").join(`${layout.eol}${indent}`);
}

function splice(text: string, from: number, to: number, insert: string): string {
  return `${text.slice(0, from)}${insert}${text.slice(to)}`;
}

/** The node a path names (a property's value), or undefined. */
function nodeAt(text: string, path: Path): Node | undefined {
  let n = parseTree(text, [], PARSE);
  for (const seg of path) {
    if (n === undefined) return undefined;
    if (n.type === "object" && typeof seg === "string")
      n = n.children?.find((p) => p.children?.[0]?.value === seg)?.children?.[1];
    else if (n.type === "array" && typeof seg === "number") n = n.children?.[seg];
    else return undefined;
  }
  return n;
}

/** The child node (a property, or a list's item) a path's last step names in its container. */
function childAt(text: string, path: Path): { container: Node; child: Node; index: number } | null {
  const container = nodeAt(text, path.slice(0, -1));
  const last = path[path.length - 1];
  const children = container?.children ?? [];
  const index =
    container?.type === "object"
      ? children.findIndex((p) => p.children?.[0]?.value === last)
      : typeof last === "number"
        ? last
        : -1;
  const child = children[index];
  return container === undefined || child === undefined ? null : { container, child, index };
}

/** Takes out the property or item at `path`, with its line when it has one to itself, and its comma. */
function remove(text: string, path: Path): string {
  const at = childAt(text, path);
  if (at === null) return text;
  const { container, child, index } = at;
  const siblings = container.children ?? [];
  const start = child.offset;
  const end = child.offset + child.length;
  const after = nextToken(text, end);
  const comma = text[after] === "," ? after : null;
  const last = index === siblings.length - 1;
  const ownLine = startsLine(text, start) && restOfLine(text, comma === null ? end : comma + 1) !== null;
  if (ownLine) {
    const from = lineStart(text, start);
    const lineEnd = restOfLine(text, comma === null ? end : comma + 1) ?? end;
    const to = text.startsWith("\r\n", lineEnd)
      ? lineEnd + 2
      : text[lineEnd] === "\n"
        ? lineEnd + 1
        : lineEnd;
    let out = splice(text, from, to, "");
    // The last entry without a trailing comma: the one before it loses the comma it had for it.
    const prev = siblings[index - 1];
    if (last && comma === null && prev !== undefined) {
      const c = nextToken(out, prev.offset + prev.length);
      if (out[c] === ",") out = splice(out, c, c + 1, "");
    }
    return out;
  }
  const next = siblings[index + 1];
  if (next !== undefined) return splice(text, start, next.offset, "");
  const prev = siblings[index - 1];
  if (prev !== undefined)
    return splice(text, prev.offset + prev.length, comma === null ? end : comma + 1, "");
  return splice(text, start, comma === null ? end : comma + 1, "");
}

/** Inserts `item` (a property's `"key": value` or a list's value, rendered by `make`) into `container`. */
function insert(
  text: string,
  layout: Layout,
  container: Node,
  index: number,
  make: (indent: string, inline: boolean) => string,
): string {
  const children = container.children ?? [];
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const parentIndent = indentAt(text, open);
  const { eol } = layout;
  if (children.length === 0) {
    const indent = `${parentIndent}${layout.unit}`;
    const item = make(indent, false);
    if (text.slice(open + 1, close).trim() === "")
      return splice(text, open + 1, close, `${eol}${indent}${item}${eol}${parentIndent}`);
    // Only comments inside: the item goes on a line of its own before the closing bracket.
    if (startsLine(text, close)) {
      const at = lineStart(text, close);
      return splice(text, at, at, `${indent}${item}${eol}`);
    }
    return splice(text, close, close, `${eol}${indent}${item}${eol}${parentIndent}`);
  }
  const first = children[0] as Node;
  const multiline = text.slice(open, close).includes("\n") && startsLine(text, first.offset);
  const indent = multiline ? indentAt(text, first.offset) : `${parentIndent}${layout.unit}`;
  const item = make(indent, !multiline);
  if (index === 0)
    return splice(text, first.offset, first.offset, multiline ? `${item},${eol}${indent}` : `${item}, `);
  const prev = children[Math.min(index, children.length) - 1] as Node;
  const prevEnd = prev.offset + prev.length;
  const c = nextToken(text, prevEnd);
  const comma = text[c] === "," ? c : null;
  const appended = index >= children.length;
  if (comma !== null) {
    // In the middle, or after a trailing comma (which the new last entry keeps).
    const at = multiline ? restOfLine(text, comma + 1) : null;
    if (at === null) return splice(text, comma + 1, comma + 1, ` ${item},`);
    return splice(text, at, at, `${eol}${indent}${item},`);
  }
  if (!appended) return text;
  const at = multiline ? restOfLine(text, prevEnd) : null;
  if (at === null) return splice(text, prevEnd, prevEnd, `, ${item}`);
  return splice(splice(text, prevEnd, prevEnd, ","), at + 1, at + 1, `${eol}${indent}${item}`);
}

/** Sets the value at `path` (its parent exists): replaced where it stands, or added after its siblings. */
function set(text: string, layout: Layout, path: Path, value: unknown, arrayInsert = false): string {
  const last = path[path.length - 1];
  const container = nodeAt(text, path.slice(0, -1));
  if (container === undefined) return text;
  if (container.type === "array" && typeof last === "number" && arrayInsert)
    return insert(text, layout, container, last, (indent, inline) => render(value, indent, layout, inline));
  const existing = nodeAt(text, path);
  if (existing !== undefined) {
    const indent = indentAt(text, existing.offset);
    const inline = !text.slice(container.offset, container.offset + container.length).includes("\n");
    return splice(
      text,
      existing.offset,
      existing.offset + existing.length,
      render(value, indent, layout, inline),
    );
  }
  if (container.type !== "object") return text;
  const index = container.children?.length ?? 0;
  return insert(
    text,
    layout,
    container,
    index,
    (indent, inline) => `${JSON.stringify(String(last))}: ${render(value, indent, layout, inline)}`,
  );
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The edits from `old` to `next` at `path`, applied to `text` one by one. */
function diff(text: string, layout: Layout, path: Path, old: unknown, next: unknown): string {
  if (same(old, next)) return text;
  if (isObject(old) && isObject(next)) {
    let out = text;
    for (const k of Object.keys(old)) if (!Object.hasOwn(next, k)) out = remove(out, [...path, k]);
    for (const [k, v] of Object.entries(next))
      out = Object.hasOwn(old, k)
        ? diff(out, layout, [...path, k], old[k], v)
        : set(out, layout, [...path, k], v);
    return out;
  }
  if (Array.isArray(old) && Array.isArray(next)) {
    // Items kept in order are matched; the others go, highest first, then the new ones come in at their places.
    const matched = new Set<number>();
    const kept = new Set<number>();
    let from = 0;
    next.forEach((v, j) => {
      for (let i = from; i < old.length; i++)
        if (same(old[i], v)) {
          matched.add(i);
          kept.add(j);
          from = i + 1;
          return;
        }
    });
    let out = text;
    for (let i = old.length - 1; i >= 0; i--) if (!matched.has(i)) out = remove(out, [...path, i]);
    next.forEach((v, j) => {
      if (!kept.has(j)) out = set(out, layout, [...path, j], v, true);
    });
    return out;
  }
  return set(text, layout, path, next);
}

/**
 * `text` (a JSON or JSONC object, or null / blank for no file) edited to hold `next`: the smallest edits,
 * the rest of its bytes as they were; a new file is pretty-printed with a final newline.
 */
export function rewriteJson(text: string | null, next: Json): string {
  if (text === null || text.trim() === "") return `${JSON.stringify(next, null, 2)}\n`;
  const old = readJsonText(text);
  if (old === null) throw new Error("rewriteJson: the text is not a JSON object");
  const layout = layoutOf(text);
  const out = diff(text, layout, [], old, next);
  if (same(readJsonText(out), next)) return out;
  // Not expected: the edits missed; the content wins over the layout.
  const end = text.endsWith("\n") ? layout.eol : "";
  return `${JSON.stringify(next, null, layout.unit).split("\n").join(layout.eol)}${end}`;
}

/** `text` with `edit` applied to its object (see rewriteJson); the same text when nothing changes. */
export function editJsonText(text: string | null, edit: (root: Json) => Json): string {
  const root = readJsonText(text);
  if (root === null) throw new Error("editJsonText: the text is not a JSON object");
  const next = edit(root);
  if (text !== null && same(root, next)) return text;
  return rewriteJson(text, next);
}
