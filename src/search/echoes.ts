/**
 * funes reading its own outputs back. Every recall an agent makes is a turn like any other: the question,
 * the tool call, the tool's output (which quotes the recalled passages in full) and the agent's answer are
 * indexed and published with the rest. Left alone, those copies outrank the passages they quote and
 * multiply with every recall. What a row is is decided here from what is stored (tool name, block type,
 * text), never from a mark written at index time, so memories indexed before this rule existed, and memories
 * other people published, are read the same way.
 *
 * A copy is known by what it contains, not by the command that made it: funes's whole output shapes (a hit's
 * header line with its `→ get` line under it, the terminal view's numbered hit with its `→ funes get` line,
 * the JSON of a recall, `get`'s turns, `ask`'s prompt), matched on the text as a reader takes it
 * (lookalike/plain-form.ts), so any shell spelling, alias or script that printed them is caught, and a decision
 * written as an arrow list, a pasted event with a `sessionId` key or a session about building a recall tool
 * is not. Only an MCP tool named after funes (`mcp__funes__recall`) is funes's by its name.
 *
 * Kinds:
 * - `echo`: funes's own words — its output (above), a call whose result is one, a call of a tool named
 *   after funes, and the prompt `funes ask` hands an agent. Hidden from recall by default; forgotten with
 *   what they quote.
 * - `question`: the user's prompt that an agent answered by recalling (the last user prompt before funes's
 *   call or output). The user's words, but a question put to memory, not an answer to one.
 * - `restatement`: the agent's prose after funes's output, before the next user prompt ("From memory: …").
 *   The agent's words; it cites what it recalled.
 * Questions and restatements stay recallable, linked to the turns their recall returned (`SessionKinds`'s
 * `links`, read from the output's `→ get` lines or JSON ids): recall never ranks one above a linked passage
 * it shows (commands/recall-kinds.ts).
 */
import { plainForm } from "../lookalike/index.js";

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
 * The funes tool a tool name calls when the name says it is funes's, however the agent spells an MCP tool:
 * `mcp__funes__recall` (Claude Code), `mcp__plugin_funes_funes__recall` (a Claude plugin), `funes___recall`
 * (droid), `mcp_funes_recall` (Gemini), `funes_recall` (OpenCode), `funes-recall` (Copilot), `funes.recall`.
 * A bare `recall` or `get` (pi's tools, and any project's own tool of that name) is not funes's by its name:
 * its output tells (`echoOf`).
 */
export function funesToolOfName(name: string | null): FunesTool | null {
  if (name === null) return null;
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const last = words[words.length - 1];
  if (last === undefined || !TOOLS.has(last)) return null;
  return words.includes("funes") ? (last as FunesTool) : null;
}

/**
 * What may come before an output's first line: the render prefix the chunker puts before a tool block's
 * first piece (`[tool_result Bash] `), and the key of a JSON envelope holding the output (`{"output":"`).
 */
const RENDER_PREFIX = String.raw`(?:\[tool_(?:use|result)[^\]\n]*\] )?(?:\{?"[\w-]+"\s*:\s*")?`;
/** A shell word for an id as the `→ get` line prints it: plain, or single-quoted. */
const ID = String.raw`(?:'[^'\n]*'|\S+)`;

/**
 * funes's output shapes (see the file header), each as funes writes it, on the plain form (where a blank
 * of any kind is a space, so a run of spaces stands for funes's one or two):
 * - a recall hit in the agent format: `[ts] harness workdir/abcd1234 text  score=0.812` with
 *   `  → get <session> <turn>` on the next line;
 * - a hit in the terminal view: `1. 2026-11-02 10:00 · claude · … · text  score 0.81`, then its passage and
 *   `  → funes get <session> <turn>`;
 * - a turn of `get`'s agent format: `[ts] role seq12 turn=<uuid>` with a `---` line closing the turn;
 * - `ask`'s prompt: its opening sentence and its `== RECALLED PASSAGES ==` line.
 * The JSON of `--json` is `isRecallJson`.
 */
const SHAPES: readonly RegExp[] = [
  new RegExp(
    String.raw`^${RENDER_PREFIX}\[[^\]\n]{1,64}\] +[^\n]*/[^\n/]{0,16} +[\w-]+ +score=\d+\.\d{3}\n *→ +get +${ID} +${ID}`,
    "m",
  ),
  new RegExp(
    String.raw`^${RENDER_PREFIX}\d+\. +\d{4}-\d{2}-\d{2} +\d{2}:\d{2} +· [^\n]* · [^\n]*score +\d+\.\d{2}\n(?:[^\n]*\n){0,200}? *→ +funes +get +${ID} +${ID}`,
    "m",
  ),
  new RegExp(
    String.raw`^${RENDER_PREFIX}\[[^\]\n]{1,64}\] +[\w-]+ +seq-?\d+ +turn=\S+\n[\s\S]{0,20000}?^---$`,
    "m",
  ),
  /Answer the question below using only the recalled passages[\s\S]*^== RECALLED PASSAGES ==$/m,
];

/** Keys only a recall hit in `--json` has, beside its ids (a transcript's event may well have the ids). */
const HIT_KEYS = [
  "relevance",
  "recency",
  "reranked",
  "legs",
  "neighbors",
  "splitIdx",
  "blockIdx",
  "hiddenEchoes",
];

/** The JSON of `recall --json` (pretty or compact, or escaped inside another JSON string). */
function isRecallJson(text: string): boolean {
  if (!/\\?"turnUuid\\?"\s*:/.test(text)) return false;
  const keys = new Set<string>();
  for (const m of text.matchAll(/\\?"([A-Za-z]+)\\?"\s*:/g)) keys.add(m[1] as string);
  return HIT_KEYS.filter((k) => keys.has(k)).length >= 4;
}

/** JSON string escapes undone: `\n`, `\r\n`, `\t`, `\"` and `\uXXXX` (a tool's JSON envelope). */
function jsonUnescaped(text: string): string {
  return text
    .replace(/\\r\\n|\\n/g, "\n")
    .replace(/\\"/g, '"')
    .replace(/\\t/g, "\t")
    .replace(/\\u([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * The plain form of `text`, and when it holds JSON string escapes (a tool's JSON envelope) the plain form of
 * it with them undone, so a look-alike written as `\u00a0` is folded as the character it stands for.
 */
function readings(text: string): string[] {
  const plain = plainForm(text);
  return /\\[nu]/.test(text) ? [plain, plainForm(jsonUnescaped(text))] : [plain];
}

/** True when the text carries one of funes's whole output shapes (see `SHAPES`). */
export function hasFunesOutput(text: string): boolean {
  return readings(text).some((t) => isRecallJson(t) || SHAPES.some((re) => re.test(t)));
}

/** Why a row is funes's own, or null when it is not. */
export type EchoReason = "call" | "output" | "prompt";

/**
 * Whether a row is funes's own words (see the file header), from this row alone. A call is known here only
 * by a tool named after funes; any other call is known by its result (`sessionKinds`). A piece of a long
 * output that carries neither the tool's name nor a whole shape (the middle of one quoted passage) is found
 * through its block's other pieces.
 */
export function echoOf(row: StoredRow): EchoReason | null {
  const named = funesToolOfName(row.toolName) !== null;
  if (row.blockType === "tool_use") return named ? "call" : null;
  if (row.blockType === "tool_result" && named) return "output";
  if (hasFunesOutput(row.text)) return row.blockType === "tool_result" ? "output" : "prompt";
  return null;
}

/**
 * Whether a candidate may be funes's call known only by its result (a shell, an alias, a bare `recall`):
 * a call of a tool a row alone cannot settle. Recall reads the turns around it to see.
 */
export function mayBeCall(row: StoredRow): boolean {
  return row.blockType === "tool_use" && echoOf(row) === null;
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

/** Key of a turn: `session\0turn`. */
export const turnKey = (sessionId: string, turnUuid: string) => `${sessionId}\u0000${turnUuid}`;

/** A turn as funes's output names it: whole ids, or (the terminal view) the leading characters of each. */
export interface NamedTurn {
  sessionId: string;
  turnUuid: string;
}

/** Shortest id prefix taken as naming a turn (the terminal view prints eight characters). */
const MIN_PREFIX = 6;

/**
 * An index of `rows` by turn: given a turn as an output names it (a `turnKey`), the rows of that turn, by
 * whole ids or by the prefixes the terminal view prints.
 */
export function turnIndex<T extends NamedTurn>(rows: T[]): (key: string) => T[] {
  const exact = new Map<string, T[]>();
  const bySession = new Map<string, T[]>();
  for (const r of rows) {
    const k = turnKey(r.sessionId, r.turnUuid);
    exact.set(k, [...(exact.get(k) ?? []), r]);
    const p = r.sessionId.slice(0, MIN_PREFIX);
    bySession.set(p, [...(bySession.get(p) ?? []), r]);
  }
  return (key) => {
    const found = exact.get(key);
    if (found !== undefined) return found;
    const [s = "", t = ""] = key.split("\u0000");
    if (s.length < MIN_PREFIX || t.length < MIN_PREFIX) return [];
    return (bySession.get(s.slice(0, MIN_PREFIX)) ?? []).filter(
      (r) => r.sessionId.startsWith(s) && r.turnUuid.startsWith(t),
    );
  };
}

/** Kinds of a session's rows, and for each question and restatement the turns its recall returned. */
export interface SessionKinds {
  kinds: RowKind[];
  /** Per row: keys (`turnKey`) of the turns funes's output in its exchange named; empty for other kinds. */
  links: string[][];
}

/**
 * Questions and restatements of one session, from its rows (a window of them is enough: each rule looks only
 * as far as the nearest user prompt), with `echo` telling funes's own rows. An exchange runs from a user
 * prompt to the next: its prompt is a question when funes was called or answered in it; an assistant text
 * after funes's output in it restates that output (a prompt that is funes's own, `ask`'s, opens an exchange
 * whose answers restate it). Each question and restatement is linked to the turns its exchange's outputs
 * name (`quotedTurns`).
 */
export function exchangeKinds(
  rows: SessionRow[],
  echo: (r: SessionRow) => boolean,
  order: number[] = seqOrder(rows),
): SessionKinds {
  const kinds: RowKind[] = rows.map((r) => (echo(r) ? "echo" : "original"));
  const links: string[][] = rows.map(() => []);
  let prompt: number | null = null; // the exchange's opening prompt, when it is the user's own
  let members: number[] = []; // restatements so far
  let named = new Set<string>();
  let funes = false;
  let output = false;
  const close = () => {
    if (prompt !== null && funes) kinds[prompt] = "question";
    for (const i of prompt !== null && funes ? [prompt, ...members] : members) links[i] = [...named];
  };
  for (const i of order) {
    const r = rows[i] as SessionRow;
    const own = kinds[i] === "echo";
    if (isPrompt(r)) {
      close();
      prompt = own ? null : i;
      members = [];
      named = new Set();
      funes = own;
      output = own;
    } else if (own) {
      funes = true;
      if (r.blockType !== "tool_use") output = true;
    } else if (output && r.role === "assistant" && r.blockType === "text") {
      kinds[i] = "restatement";
      members.push(i);
    }
    if (own) for (const t of quotedTurns(r.text)) named.add(turnKey(t.sessionId, t.turnUuid));
  }
  close();
  return { kinds, links };
}

/** Indexes of `rows` in session order (seq, then block and piece when known). */
function seqOrder(rows: SessionRow[]): number[] {
  const at = (i: number) => rows[i] as SessionRow & { blockIdx?: number; splitIdx?: number };
  return rows
    .map((_, i) => i)
    .sort(
      (a, b) =>
        at(a).seq - at(b).seq ||
        (at(a).blockIdx ?? 0) - (at(b).blockIdx ?? 0) ||
        (at(a).splitIdx ?? 0) - (at(b).splitIdx ?? 0),
    );
}

/** A stored row with its place in its session: what `sessionKinds` reads. */
export interface PlacedRow extends SessionRow {
  turnUuid: string;
  blockIdx: number;
  splitIdx?: number;
}

/**
 * The kind of each row of one session (all of it, or a window of it), with the links of its questions and
 * restatements. A block is funes's own when any of its pieces shows it (the first piece names the tool; one
 * from the middle of a long output may not), or when it is the call whose result is funes's output (the
 * result answers the nearest call before it of the same tool name: a shell running funes under any
 * spelling, an alias, pi's bare `recall`).
 */
export function sessionKinds(rows: PlacedRow[]): SessionKinds {
  const block = (r: PlacedRow) => `${r.turnUuid}\u0000${r.blockIdx}`;
  const order = seqOrder(rows);
  const own = new Set(rows.filter((r) => echoOf(r) !== null).map(block));
  const calls: number[] = [];
  for (const i of order) {
    const r = rows[i] as PlacedRow;
    if (r.blockType === "tool_use") calls.push(i);
    else if (r.blockType === "tool_result" && own.has(block(r))) {
      for (let j = calls.length - 1; j >= 0; j--) {
        const c = rows[calls[j] as number] as PlacedRow;
        if (r.toolName === null || c.toolName === null || c.toolName === r.toolName) {
          own.add(block(c));
          break;
        }
      }
    } else if (isPrompt(r)) calls.length = 0;
  }
  return exchangeKinds(rows, (r) => own.has(block(r as PlacedRow)), order);
}

/**
 * The turns a text names as funes names them: `→ get <session> <turn>` (agent format), `→ funes get …`
 * (terminal view: id prefixes, matched by `turnIndex`), and each hit's `sessionId` with its `turnUuid` in `--json` (pretty, compact or escaped).
 * The originals an echo is a copy of, and the turns a recall returned.
 */
export function quotedTurns(text: string): NamedTurn[] {
  const out: NamedTurn[] = [];
  for (const t of readings(text)) {
    for (const m of t.matchAll(/→ +(?:funes +)?get +('[^'\n]*'|\S+) +('[^'\n]*'|\S+)/g))
      out.push({ sessionId: unquoted(m[1] as string), turnUuid: unquoted(m[2] as string) });
    if (!isRecallJson(t)) continue;
    const ids = (re: RegExp) => [...t.matchAll(re)].map((m) => ({ at: m.index, id: m[1] as string }));
    const sessions = ids(JSON_SESSION);
    if (sessions.length > 0)
      for (const turn of ids(JSON_TURN)) {
        // The hit's own session id: the nearest before its turn id (a hit's keys keep HitRow's order).
        const s = sessions.filter((x) => x.at < turn.at).pop() ?? sessions[0];
        if (s !== undefined) out.push({ sessionId: s.id, turnUuid: turn.id });
      }
  }
  const seen = new Set<string>();
  return out.filter((q) => {
    const k = turnKey(q.sessionId, q.turnUuid);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A hit's ids in `--json` (pretty, compact, or escaped inside another JSON string). */
const JSON_SESSION = /\\?"sessionId\\?"\s*:\s*\\?"([^"\\\n]+)\\?"/g;
const JSON_TURN = /\\?"turnUuid\\?"\s*:\s*\\?"([^"\\\n]+)\\?"/g;

/** An id as the `→ get` line printed it, single quotes (see format's `shellId`) taken off. */
function unquoted(word: string): string {
  return word.length >= 2 && word.startsWith("'") && word.endsWith("'")
    ? word.slice(1, -1).replaceAll("'\\''", "'")
    : word;
}
