/**
 * The Gemini API's `Part` lists, as Gemini CLI and Qwen Code (a fork of it) store message content:
 * `{text}`, `{text, thought: true}`, `{functionCall: {id, name, args}}`, `{functionResponse: {id, name,
 * response}}`; anything else (inline data, file data, executable code…) is counted, not indexed.
 */
import type { ArgumentSerializer } from "./blocks.js";
import { makeBlock } from "./blocks.js";
import { compactJson } from "./json-compact.js";
import { asObject, asString } from "./jsonl.js";
import { isBlank } from "./text.js";
import { type Block, countSkip, type SkipCounts } from "./types.js";

/** A tool's answer found in a Part list: the call it answers and its text. */
export interface FunctionResponse {
  /** The call id (absent in some older records). */
  callId: string | null;
  name: string | null;
  text: string;
}

/** A Part list from stored content: a string is one text part; anything else that is not a list is none. */
export function partList(content: unknown): unknown[] {
  if (typeof content === "string") return [{ text: content }];
  return Array.isArray(content) ? content : [];
}

/**
 * The text of a `functionResponse.response`: its `output` (or `error`) when that is a string, which is how
 * both CLIs wrap a tool's text; else the whole response as compact JSON.
 */
export function responseText(response: unknown): string {
  const r = asObject(response);
  const out = asString(r?.output) ?? asString(r?.error);
  if (out !== null) return out;
  return response === undefined ? "" : compactJson(response);
}

/** What one Part list holds: blocks in order, and the tool answers among them (kept apart). */
export interface ReadParts {
  blocks: Block[];
  responses: FunctionResponse[];
}

/**
 * Reads a Part list. Text becomes a text block (a thought part a thinking block), a function call a
 * tool_use block (its arguments serialized from the raw record at `path` + index), a function response is
 * returned apart for the caller to place; blank text yields nothing, and any other part is counted.
 */
export function readParts(
  content: unknown,
  args: ArgumentSerializer,
  path: (string | number)[],
  skipped: SkipCounts,
): ReadParts {
  const blocks: Block[] = [];
  const responses: FunctionResponse[] = [];
  partList(content).forEach((el, i) => {
    const part = asObject(el);
    if (part === null) {
      countSkip(skipped, "content part that is not an object");
      return;
    }
    const text = asString(part.text);
    const call = asObject(part.functionCall);
    const response = asObject(part.functionResponse);
    if (text !== null) {
      if (!isBlank(text)) blocks.push(makeBlock(part.thought === true ? "thinking" : "text", text));
    } else if (call !== null) {
      const serialized = args.serialize(call.args, [...path, i, "functionCall", "args"]);
      blocks.push(makeBlock("tool_use", serialized, asString(call.name), asString(call.id)));
    } else if (response !== null) {
      responses.push({
        callId: asString(response.id),
        name: asString(response.name),
        text: responseText(response.response),
      });
    } else {
      const kind = Object.keys(part).find((k) => k !== "thought" && k !== "thoughtSignature");
      countSkip(skipped, `content part "${kind ?? "(empty)"}" not indexed`);
    }
  });
  return { blocks, responses };
}
