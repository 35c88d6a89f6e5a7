/**
 * Hermes's API request dumps: `~/.hermes/sessions/request_dump_<session>_<time>.json`, written when a call to
 * the model fails (`{timestamp, session_id, reason, request{method, url, headers, body}, error}`). The body is
 * the whole conversation sent at that moment, in the provider's dialect: OpenAI chat (`messages`), Anthropic
 * (`system` + `messages` of content blocks) or OpenAI Responses (`instructions` + `input` items). Real backups
 * hold sessions known only from these dumps (15 of 17 in one `~/.hermes` backup without a `state.db`), so they
 * are read, but only for what no other copy of the session holds (see HermesFilesSource).
 * Here the three dialects become OpenAI-chat rows, the shape of Hermes's own session files.
 */
import { compactJson } from "./json-compact.js";
import { asObject, asString, type RecordPlace, readGuarded } from "./jsonl.js";
import { countSkip, type SkipCounts, type UnreadableRecord } from "./types.js";

/** An OpenAI-chat message read from a Hermes file, with its place there (to name it if it cannot be read). */
export interface PlacedRow {
  value: Record<string, unknown>;
  at: RecordPlace;
}

/** True for a request dump's file name. */
export function isHermesRequestDump(name: string): boolean {
  return /^request_dump_.+\.json$/.test(name);
}

/** True for a parsed document shaped like a request dump (a session id and the request sent). */
export function looksLikeRequestDump(doc: Record<string, unknown>): boolean {
  return typeof doc.session_id === "string" && asObject(asObject(doc.request)?.body) !== null;
}

/**
 * The conversation of a dump's request body as OpenAI-chat rows (`role`, `content`, `tool_calls`, …), each
 * placed by the request's message it came from; one that cannot be read is passed over alone, counted in
 * `skipped` and named in `unreadable`.
 */
export function requestDumpRows(
  doc: Record<string, unknown>,
  { skipped, unreadable }: { skipped: SkipCounts; unreadable: UnreadableRecord[] },
): PlacedRow[] {
  const body = asObject(asObject(doc.request)?.body);
  if (body === null) return [];
  // A Responses call joins the row before it, so each message is read onto the rows so far.
  const values: Record<string, unknown>[] = [];
  const rows: PlacedRow[] = [];
  const read = (at: string, add: (into: Record<string, unknown>[]) => void) => {
    const before = values.length;
    if (readGuarded(at, skipped, unreadable, () => add(values)) === null) values.length = before;
    for (let k = rows.length; k < values.length; k++)
      rows.push({ value: values[k] as Record<string, unknown>, at });
  };
  read("request system prompt", (into) => {
    const system = textOf(body.system ?? body.instructions);
    if (system !== "") into.push({ role: "system", content: system });
  });
  if (Array.isArray(body.messages)) {
    body.messages.forEach((m, i) => {
      read(`request message ${i + 1}`, (into) => chatRows(asObject(m), into, skipped));
    });
  } else if (Array.isArray(body.input)) {
    body.input.forEach((item, i) => {
      read(`request item ${i + 1}`, (into) => responsesRow(asObject(item), into, skipped));
    });
  }
  return rows;
}

/** One chat message; Anthropic content blocks split into the assistant's calls and the tools' results. */
function chatRows(m: Record<string, unknown> | null, rows: Record<string, unknown>[], skipped: SkipCounts) {
  if (m === null) {
    countSkip(skipped, "message that is not an object");
    return;
  }
  // Hermes sends its system prompt as a `developer` message to OpenAI's newer models (a real dump to gpt-5.4).
  if (m.role === "developer") {
    rows.push({ ...m, role: "system" });
    return;
  }
  if (
    !Array.isArray(m.content) ||
    !m.content.some((p) => isBlockOf(p, ["tool_use", "tool_result", "thinking"]))
  ) {
    rows.push(m);
    return;
  }
  const texts: string[] = [];
  const calls: unknown[] = [];
  const results: Record<string, unknown>[] = [];
  let reasoning = "";
  for (const p of m.content) {
    const o = asObject(p);
    switch (asString(o?.type)) {
      case "text":
        texts.push(asString(o?.text) ?? "");
        break;
      case "thinking":
        reasoning += asString(o?.thinking) ?? "";
        break;
      case "tool_use":
        calls.push({
          id: o?.id,
          type: "function",
          function: { name: o?.name, arguments: compactJson(o?.input ?? {}) },
        });
        break;
      case "tool_result":
        results.push({ role: "tool", tool_call_id: o?.tool_use_id, content: textOf(o?.content) });
        break;
      default:
        countSkip(skipped, `content part "${asString(o?.type) ?? "(none)"}" not indexed`);
    }
  }
  rows.push(...results);
  if (texts.length > 0 || calls.length > 0 || reasoning !== "")
    rows.push({
      role: m.role,
      content: texts.join("\n"),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reasoning !== "" ? { reasoning } : {}),
    });
}

/**
 * One Responses `input` item. A function call joins the assistant row just before it, as Hermes stores an
 * answer and its calls in one row, so the dump's copy of a message compares equal to the database's.
 */
function responsesRow(
  item: Record<string, unknown> | null,
  rows: Record<string, unknown>[],
  skipped: SkipCounts,
) {
  const type = asString(item?.type) ?? (item?.role !== undefined ? "message" : null);
  if (item === null || type === null) {
    countSkip(skipped, "message that is not an object");
    return;
  }
  switch (type) {
    case "message":
      rows.push({ role: item.role === "developer" ? "system" : item.role, content: textOf(item.content) });
      return;
    case "function_call": {
      // Arguments as text here, so an object too deep to write is met while this item is read.
      const a = item.arguments;
      const call = {
        id: item.call_id,
        type: "function",
        function: {
          name: item.name,
          arguments: typeof a === "string" || a === undefined ? a : compactJson(a),
        },
      };
      const last = rows.at(-1);
      if (last?.role === "assistant")
        last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), call];
      else rows.push({ role: "assistant", content: "", tool_calls: [call] });
      return;
    }
    case "function_call_output":
      rows.push({ role: "tool", tool_call_id: item.call_id, content: textOf(item.output) });
      return;
    default:
      countSkip(skipped, `hermes request item "${type}" not indexed`);
  }
}

function isBlockOf(p: unknown, types: string[]): boolean {
  const t = asString(asObject(p)?.type);
  return t !== null && types.includes(t);
}

/** A string, or the text parts of a list of content parts (`text`, `input_text`, `output_text`). */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) return v === undefined || v === null ? "" : compactJson(v);
  const parts: string[] = [];
  for (const p of v) {
    if (typeof p === "string") parts.push(p);
    else {
      const t = asString(asObject(p)?.text);
      if (t !== null) parts.push(t);
    }
  }
  return parts.join("\n");
}
