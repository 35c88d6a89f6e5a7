/**
 * Helpers shared by the parsers: content flattening, argument serialization, tool-name back-fill.
 */
import {
  compactJson,
  compactLossless,
  type LosslessJson,
  losslessField,
  needsLosslessJson,
  parseLossless,
  tooDeep,
} from "./json-compact.js";
import { type Block, countSkip, type SkipCounts, type Turn } from "./types.js";

/**
 * Flattens tool output (Claude and pi) and multimodal message content (Hermes): a string verbatim; an
 * array gives the `text` of each `{type:"text"}` element and each bare string, joined by newlines; anything
 * else is empty. With `skipped`, every other element of an array (an image, a document, a tool reference,
 * an untyped value) is counted under its type, as the parsers count the content parts they leave out.
 */
export function flattenToolContent(content: unknown, skipped?: SkipCounts): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const el of content) {
    if (typeof el === "string") {
      parts.push(el);
      continue;
    }
    const kind = el !== null && typeof el === "object" ? (el as { type?: unknown }).type : undefined;
    const t = kind === "text" ? (el as { text?: unknown }).text : undefined;
    if (typeof t === "string") parts.push(t);
    else if (skipped !== undefined)
      countSkip(
        skipped,
        typeof kind === "string"
          ? `content part "${kind}" not indexed`
          : "content part that is not a typed object",
      );
  }
  return parts.join("\n");
}

/**
 * Lazily parses a record's raw line losslessly, only when plain JSON could serialize an argument value
 * differently from the reference.
 */
export class ArgumentSerializer {
  private tree: LosslessJson | undefined;
  private readonly lossless: boolean;

  constructor(private readonly raw: string) {
    this.lossless = needsLosslessJson(raw);
  }

  /**
   * Compact JSON of `value`, found in the raw record at `path` (keys and array indexes). Missing → `{}`.
   */
  serialize(value: unknown, path: (string | number)[]): string {
    if (value === undefined) return "{}";
    if (!this.lossless) return compactJson(value);
    try {
      return this.serializeLossless(value, path);
    } catch (err) {
      throw tooDeep(err);
    }
  }

  private serializeLossless(value: unknown, path: (string | number)[]): string {
    this.tree ??= parseLossless(this.raw);
    let node: LosslessJson | undefined = this.tree;
    for (const step of path) {
      node =
        typeof step === "number" ? (Array.isArray(node) ? node[step] : undefined) : losslessField(node, step);
    }
    return node === undefined ? compactJson(value) : compactLossless(node);
  }
}

/**
 * Gives every nameless tool_result the name of the tool_use with the same id anywhere in the session
 * (later uses overwrite earlier ones), as the reference does for Claude and Codex before chunking.
 */
export function backfillToolNames(turns: Turn[]): void {
  const names = new Map<string, string>();
  for (const t of turns)
    for (const b of t.blocks)
      if (b.blockType === "tool_use" && b.toolUseId !== null && b.toolName !== null)
        names.set(b.toolUseId, b.toolName);
  for (const t of turns)
    for (const b of t.blocks)
      if (b.blockType === "tool_result" && b.toolName === null && b.toolUseId !== null)
        b.toolName = names.get(b.toolUseId) ?? null;
}

/** Builds a block. */
export function makeBlock(
  blockType: Block["blockType"],
  text: string,
  toolName: string | null = null,
  toolUseId: string | null = null,
): Block {
  return { blockType, text, toolName, toolUseId };
}
