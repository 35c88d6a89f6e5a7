/**
 * funes's hooks in Hermes's `config.yaml`, edited as text (docs/agents.md#what-add-and-remove-change): the
 * `yaml` library's document says where each hook list and entry sits, and funes's entries are added or
 * taken out as whole lines there — an entry after the list's last one with its indentation, a list after
 * the `hooks:` mapping's last one, a `hooks:` mapping at the end — so comments, anchors, quoting and the
 * layout of every other line keep their bytes. Each edit is checked by reading the result back; a layout
 * these line edits do not cover (flow-style lists, `hooks` given as `{…}`) is written by the library's own
 * rendering instead, which keeps comments but may re-lay the file.
 */
import { type Document, isMap, isSeq, type Node, parseDocument, stringify } from "yaml";
import { canonicalJson } from "../files.js";
import { isFunesCommand } from "../hook-scripts.js";

/** One hook funes wants: a Hermes event and the command it runs. */
export interface HermesHook {
  event: string;
  command: string;
}

/** Seconds Hermes gives a funes hook. */
const TIMEOUT = 30;

const ownsItem = (item: unknown) => isMap(item) && isFunesCommand(item.get("command"));

/** Drops funes's entries from every hook list (and lists, then `hooks`, left empty). */
export function stripYaml(doc: Document): void {
  const hooks = doc.get("hooks", true);
  if (!isMap(hooks)) return;
  for (const pair of [...hooks.items]) {
    const seq = pair.value;
    if (!isSeq(seq)) continue;
    seq.items = seq.items.filter((item) => !ownsItem(item));
    if (seq.items.length === 0) hooks.items.splice(hooks.items.indexOf(pair), 1);
  }
  if (hooks.items.length === 0) doc.delete("hooks");
}

/** Appends funes's entries to their lists (creating lists and `hooks` as needed). */
export function addYaml(doc: Document, hooks: HermesHook[]): void {
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  for (const h of hooks) {
    const seq = doc.getIn(["hooks", h.event], true);
    const entry = doc.createNode({ command: h.command, timeout: TIMEOUT });
    if (isSeq(seq)) seq.items.push(entry);
    else doc.setIn(["hooks", h.event], doc.createNode([{ command: h.command, timeout: TIMEOUT }]));
  }
}

const lineStart = (text: string, offset: number) => text.lastIndexOf("\n", offset - 1) + 1;

/** The end of the line holding `offset - 1` (past its line break): where a node's lines end. */
function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === "\n") return offset;
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

function rangeOf(node: Node | null | undefined): [number, number] | null {
  const r = node?.range;
  return r === undefined || r === null ? null : [r[0], r[2]];
}

/** A block list's entry: its lines, when it starts its own `- ` line; else null. */
function itemLines(text: string, item: Node): [number, number] | null {
  const r = rangeOf(item);
  if (r === null) return null;
  const from = lineStart(text, r[0]);
  return /^[ \t]*-[ \t]+$/.test(text.slice(from, r[0])) ? [from, lineEnd(text, r[1])] : null;
}

/** A block mapping's key and value: their lines, when the key starts its own line; else null. */
function pairLines(text: string, key: unknown, value: unknown): [number, number] | null {
  const k = rangeOf(key as Node);
  const v = rangeOf(value as Node);
  if (k === null || v === null) return null;
  const from = lineStart(text, k[0]);
  return text.slice(from, k[0]).trim() === "" ? [from, lineEnd(text, v[1])] : null;
}

const cut = (text: string, [from, to]: [number, number]) => `${text.slice(0, from)}${text.slice(to)}`;
const put = (text: string, at: number, insert: string) => `${text.slice(0, at)}${insert}${text.slice(at)}`;

/** One funes entry as block YAML, its `- ` at `indent`. */
function entryText(h: HermesHook, indent: string): string {
  const command = stringify(h.command, { lineWidth: 0 }).trimEnd();
  return `${indent}- command: ${command}\n${indent}  timeout: ${TIMEOUT}\n`;
}

const indentOf = (text: string, offset: number) => text.slice(lineStart(text, offset), offset);

/** `text` without funes's entries, by whole lines; null when a layout is not one these edits cover. */
function stripLines(text: string): string | null {
  const doc = parseDocument(text);
  const hooks = doc.get("hooks", true);
  if (!isMap(hooks) || hooks.flow === true) return isMap(hooks) ? null : text;
  const cuts: [number, number][] = [];
  let left = 0;
  for (const pair of hooks.items) {
    const seq = pair.value;
    if (!isSeq(seq) || !seq.items.some(ownsItem)) {
      left++;
      continue;
    }
    if (seq.flow === true) return null;
    if (seq.items.every(ownsItem)) {
      const lines = pairLines(text, pair.key, seq);
      if (lines === null) return null;
      cuts.push(lines);
      continue;
    }
    left++;
    for (const item of seq.items.filter(ownsItem)) {
      const lines = itemLines(text, item as Node);
      if (lines === null) return null;
      cuts.push(lines);
    }
  }
  if (cuts.length === 0) return text;
  if (left === 0) {
    const pair =
      doc.contents !== null && isMap(doc.contents)
        ? doc.contents.items.find((p) => p.value === hooks)
        : undefined;
    const lines = pair === undefined ? null : pairLines(text, pair.key, hooks);
    return lines === null ? null : cut(text, lines);
  }
  return cuts.sort((a, b) => b[0] - a[0]).reduce(cut, text);
}

/** `text` with one funes entry added by whole lines; null when a layout is not one these edits cover. */
function addLine(text: string, h: HermesHook): string | null {
  const doc = parseDocument(text);
  const root = doc.contents;
  if (root !== null && (!isMap(root) || root.flow === true)) return null;
  const hooks = doc.get("hooks", true);
  if (hooks === undefined || hooks === null) {
    // A `hooks:` mapping at the end of the file.
    const lead = text === "" || text.endsWith("\n") ? "" : "\n";
    return `${text}${lead}hooks:\n  ${h.event}:\n${entryText(h, "    ")}`;
  }
  if (!isMap(hooks) || hooks.flow === true) return null;
  const seq = hooks.get(h.event, true);
  if (isSeq(seq)) {
    const last = seq.items[seq.items.length - 1];
    if (seq.flow === true || last === undefined) return null;
    const lines = itemLines(text, last as Node);
    const first = rangeOf(seq.items[0] as Node);
    if (lines === null || first === null) return null;
    const dash = text.slice(lineStart(text, first[0]), first[0]).replace(/-[ \t]+$/, "");
    return put(text, lines[1], entryText(h, dash));
  }
  if (seq !== undefined && seq !== null) return null;
  // A new list after the mapping's last one, its keys and entries indented as the others are.
  const pairs = hooks.items;
  const firstKey = rangeOf(pairs[0]?.key as Node);
  const lastPair = pairs[pairs.length - 1];
  const end = lastPair === undefined ? null : pairLines(text, lastPair.key, lastPair.value);
  if (firstKey === null || end === null) return null;
  const keyIndent = indentOf(text, firstKey[0]);
  const other = pairs.map((p) => p.value).find((v) => isSeq(v) && v.items.length > 0 && v.flow !== true);
  const start = isSeq(other) ? rangeOf(other.items[0] as Node) : null;
  const dash =
    start === null
      ? `${keyIndent}  `
      : text.slice(lineStart(text, start[0]), start[0]).replace(/-[ \t]+$/, "");
  return put(text, end[1], `${keyIndent}${h.event}:\n${entryText(h, dash)}`);
}

/** The hooks a document holds for funes, per event, in order. */
function funesEntries(doc: Document): string {
  const hooks = doc.get("hooks", true);
  const out: Record<string, unknown[]> = {};
  if (isMap(hooks))
    for (const pair of hooks.items)
      if (isSeq(pair.value)) {
        const mine = pair.value.items.filter(ownsItem).map((i) => (isMap(i) ? i.toJSON() : i));
        if (mine.length > 0) out[String((pair.key as { value?: unknown })?.value ?? pair.key)] = mine;
      }
  return canonicalJson(out);
}

const same = (a: string, b: Document) => {
  const doc = parseDocument(a);
  return doc.errors.length === 0 && canonicalJson(doc.toJS() ?? null) === canonicalJson(b.toJS() ?? null);
};

/** `text` without funes's hook entries (the same text when it holds none). */
export function stripYamlText(text: string): string {
  const doc = parseDocument(text);
  stripYaml(doc);
  const lines = stripLines(text);
  return lines !== null && same(lines, doc) ? lines : doc.toString({ lineWidth: 0 });
}

/** `text` holding exactly `hooks` for funes (the same text when it already does). */
export function addYamlText(text: string, hooks: HermesHook[]): string {
  const doc = parseDocument(text);
  const wanted = parseDocument("");
  addYaml(wanted, hooks);
  if (funesEntries(doc) === funesEntries(wanted)) return text;
  stripYaml(doc);
  addYaml(doc, hooks);
  let lines: string | null = stripYamlText(text);
  for (const h of hooks) lines = lines === null ? null : addLine(lines, h);
  return lines !== null && same(lines, doc) ? lines : doc.toString({ lineWidth: 0 });
}
