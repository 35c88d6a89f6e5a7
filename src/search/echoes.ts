/**
 * funes reading its own outputs back. Every recall an agent makes is a turn like any other: the question,
 * the tool call, the tool's output (which quotes the recalled passages in full) and the agent's answer are
 * indexed and published with the rest. Left alone, those copies outrank the passages they quote and
 * multiply with every recall. What a row is is decided here from what is stored (tool name, block type,
 * text), never from a mark written at index time, so memories indexed before this rule existed, and memories
 * other people published, are read the same way.
 *
 * Kinds:
 * - `echo`: funes's own words — a call of funes's tools (by any agent's spelling of the name, or a shell
 *   running `funes recall|get|ask`), what they returned (recognised by name and by funes's output formats:
 *   the agent format's hit headers and `→ get` lines, the terminal view, `--json`, `get`'s format), and the
 *   prompt `funes ask` hands an agent. Hidden from recall by default; forgotten with what they quote.
 * - `question`: the user's prompt that an agent answered by recalling (the last user prompt before a funes
 *   call). The user's words, but a question put to memory, not an answer to one.
 * - `restatement`: the agent's prose after a funes result, before the next user prompt ("From memory: …").
 *   The agent's words; it cites what it recalled.
 * Questions and restatements stay recallable, at EXCHANGE_WEIGHT of their relevance, so a memory that is
 * used often does not bury what it remembers.
 */

/**
 * The share of its relevance a question put to memory or an agent's restatement keeps in recall. A recall's
 * exchange matches its question better than the passage that answered it does (measured: from the first
 * indexed round on, one of them outscored the original for every planted decision), so it follows any
 * passage at least this share as relevant; it still comes before passages that are barely related.
 */
export const EXCHANGE_WEIGHT = 0.25;

/** What recall and forget need of a stored row. */
export interface StoredRow {
  text: string;
  role: string;
  blockType: string;
  toolName: string | null;
}

/** Which of funes's tools a name or command calls. */
export type FunesTool = "recall" | "get" | "ask" | "status";

const TOOLS: ReadonlySet<string> = new Set(["recall", "get", "ask", "status"]);

/**
 * The funes tool a tool name calls, however the agent spells an MCP tool: `mcp__funes__recall` (Claude
 * Code), `mcp__plugin_funes_funes__recall` (a Claude plugin), `funes___recall` (droid), `mcp_funes_recall`
 * (Gemini), `funes_recall` (OpenCode), `funes-recall` (Copilot), `funes.recall`, or pi's bare `recall`.
 * A name's words are what counts: any name whose last word is one of funes's tools and that names funes;
 * of bare names only `recall` (pi's `get` is told by its arguments or output: `get` is a common name).
 */
export function funesToolOfName(name: string | null): FunesTool | null {
  if (name === null) return null;
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const last = words[words.length - 1];
  if (last === undefined || !TOOLS.has(last)) return null;
  if (words.includes("funes")) return last as FunesTool;
  return words.length === 1 && last === "recall" ? "recall" : null;
}

/**
 * A shell command (or a tool call's arguments holding one, as a string or an argv array) that runs funes's
 * recall, get or ask, global options between (`funes --memory acme/m recall …`).
 */
const SEP = String.raw`(?:\s+|"\s*,\s*"|'\s*,\s*')`;
const SHELL_CALL = new RegExp(
  String.raw`(?:^|[\s"'\`;&|(/\\=\[])funes(?:\.js|\.cmd|\.mjs)?` +
    String.raw`(?:${SEP}--?[\w-]+(?:(?:=|${SEP})(?!recall\b|get\b|ask\b)[^\s"',]+)?)*${SEP}(recall|get|ask)\b`,
);

/** `get`'s arguments: a session and a turn (any agent's spelling of the two keys). */
const GET_ARGS = /"session_?id"\s*:[\s\S]*"turn_?uuid"\s*:/i;

/**
 * funes's output formats, each a line no transcript writes by chance:
 * - the agent format's hit header (`[ts] harness workdir/abcd1234 text  score=0.812`),
 * - a `→ get <session> <turn>` line (agent format) or `→ funes get …` (terminal view),
 * - the terminal view's numbered header (`1. 2026-11-02 10:00 · claude · …`),
 * - `get`'s agent format (`[ts] assistant seq12 turn=<uuid>`),
 * - the JSON of `--json` (our camelCase keys side by side),
 * - the prompt `funes ask` writes.
 */
const OUTPUT_SIGNS: readonly RegExp[] = [
  /^\[[^\]\n]{1,64}\] [\w.-]+ [^\n]*\/[^\n/]{0,16} (?:text|thinking|tool_use|tool_result)\s+score=\d+\.\d{3}\s*$/m,
  /^[ \t]*→ (?:funes )?get \S+ \S+/m,
  /^\d+\. \d{4}-\d{2}-\d{2} \d{2}:\d{2} · [\w.-]+ · /m,
  /^\[[^\]\n]{1,64}\] [\w.-]+ seq\d+ turn=\S+\s*$/m,
  /"sessionId"\s*:\s*"[^"\n]*"[\s\S]{0,2000}?"turnUuid"\s*:/,
  /"turnUuid"\s*:\s*"[^"\n]*"[\s\S]{0,2000}?"sessionId"\s*:/,
  /^== RECALLED PASSAGES ==$/m,
];

/** True when the text carries one of funes's output formats. */
export function hasFunesOutput(text: string): boolean {
  return OUTPUT_SIGNS.some((re) => re.test(text));
}

/** Why a row is funes's own, or null when it is not. */
export type EchoReason = "call" | "output" | "prompt";

/**
 * Whether a row is funes's own words (see the file header), from this row alone. A piece of a long output
 * that carries neither the tool's name nor a format line (the middle of one quoted passage) is found through
 * its block's other pieces: see `echoBlocks`.
 */
export function echoOf(row: StoredRow): EchoReason | null {
  const tool = funesToolOfName(row.toolName);
  if (row.blockType === "tool_use") {
    if (tool !== null) return "call";
    if (SHELL_CALL.test(row.text)) return "call";
    if (row.toolName !== null && row.toolName.toLowerCase() === "get" && GET_ARGS.test(row.text))
      return "call";
    return null;
  }
  if (row.blockType === "tool_result" && tool !== null) return "output";
  if (hasFunesOutput(row.text)) return row.blockType === "tool_result" ? "output" : "prompt";
  return null;
}

/** A row's place in a session: what `exchangeKinds` reads. */
export interface SessionRow extends StoredRow {
  seq: number;
}

/** The kind of a row in its session (see the file header). */
export type RowKind = "original" | "echo" | "question" | "restatement";

/** Rows of the user's own typing: a user text block (Claude stores tool results as user turns too). */
function isPrompt(r: StoredRow): boolean {
  return r.role === "user" && r.blockType === "text";
}

/**
 * Questions and restatements of one session, from its rows in seq order (a window of them is enough: each
 * rule looks only as far as the nearest user prompt). A question is the last user prompt before a funes call;
 * a restatement is an assistant text after a funes call or output, before the next user prompt. Returns the
 * kind of each row given, `echo` for funes's own rows.
 */
export function exchangeKinds(rows: SessionRow[], echo: (r: SessionRow) => boolean): RowKind[] {
  const order = rows
    .map((_, i) => i)
    .sort((a, b) => (rows[a] as SessionRow).seq - (rows[b] as SessionRow).seq);
  const kinds: RowKind[] = rows.map((r) => (echo(r) ? "echo" : "original"));
  // Forward: an assistant text after a funes row, until the next prompt, restates what it read.
  let afterCall = false;
  for (const i of order) {
    const r = rows[i] as SessionRow;
    if (kinds[i] === "echo") afterCall = true;
    else if (isPrompt(r)) afterCall = false;
    else if (afterCall && r.role === "assistant" && r.blockType === "text") kinds[i] = "restatement";
  }
  // Backward: the nearest prompt before a funes call put the question.
  let callAhead = false;
  for (const i of [...order].reverse()) {
    const r = rows[i] as SessionRow;
    if (kinds[i] === "echo" && r.blockType === "tool_use") callAhead = true;
    else if (isPrompt(r)) {
      if (callAhead && kinds[i] === "original") kinds[i] = "question";
      callAhead = false;
    }
  }
  return kinds;
}

/** A stored row with its place in its session: what `sessionKinds` reads. */
export interface PlacedRow extends SessionRow {
  turnUuid: string;
  blockIdx: number;
}

/**
 * The kind of each row of one session (all of it, or a window of it): a block is funes's own when any of its
 * pieces shows it (the first piece names the tool; one from the middle of a long output may not), and the
 * exchange around funes's rows is read as `exchangeKinds` reads it.
 */
export function sessionKinds(rows: PlacedRow[]): RowKind[] {
  const block = (r: PlacedRow) => `${r.turnUuid}\u0000${r.blockIdx}`;
  const own = new Set(rows.filter((r) => echoOf(r) !== null).map(block));
  return exchangeKinds(rows, (r) => own.has(block(r as PlacedRow)));
}

/**
 * The turns a text quotes by funes's `→ get <session> <turn>` lines (agent format and terminal view): the
 * originals an echo is a copy of.
 */
export function quotedTurns(text: string): { sessionId: string; turnUuid: string }[] {
  const out: { sessionId: string; turnUuid: string }[] = [];
  for (const m of text.matchAll(/→ (?:funes )?get (\S+) (\S+)/g))
    out.push({ sessionId: m[1] as string, turnUuid: m[2] as string });
  return out;
}
