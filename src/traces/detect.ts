/**
 * What a transcript file is, judged by its content rather than its name: a SQLite database (Hermes
 * `state.db`, whatever the file is called), or the first records of a JSONL transcript. The reference
 * sniffs one record and calls anything unknown Claude; here a file that no agent writes is named as such,
 * so `funes index README.md` says so instead of "indexing" it with nothing stored.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { asObject, asString, parseJsonl } from "./jsonl.js";
import { SqliteSnapshot } from "./sqlite-snapshot.js";
import type { Harness } from "./types.js";

/** What the head of a file says it is. */
export type Sniffed =
  | { kind: "sqlite" }
  | { kind: "empty" }
  | { kind: "transcript"; harness: Harness }
  /** Whole lines were read and none is a record of a known agent. */
  | { kind: "unknown" }
  /** No complete line in the head (one huge first record): nothing to judge by. */
  | { kind: "undecided" };

const SQLITE_MAGIC = "SQLite format 3\u0000";
/** Bytes read to judge a file: enough for several records, small enough to stay instant. */
const HEAD_BYTES = 256 * 1024;
/** Records looked at before giving up on a file. */
const SNIFF_RECORDS = 20;

/** Claude Code record fields that no other agent's first records carry. */
const CLAUDE_KEYS = ["uuid", "parentUuid", "sessionId", "leafUuid", "messageId", "isSidechain"];
/**
 * Claude Code record types that carry none of those keys. A session teleported from the web starts with
 * `teleported-from` (`remoteSessionId`, `branch`, `messageCount`), and a real file can hold that line alone.
 */
const CLAUDE_TYPES = new Set(["teleported-from"]);
const CODEX_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);
const CHAT_ROLES = new Set(["user", "assistant", "tool", "system", "developer"]);

/** Reads the first bytes of a file. */
export function readHead(path: string, bytes = HEAD_BYTES): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Judges a file by its first bytes (see {@link Sniffed}). */
export function sniffFile(path: string): Sniffed {
  const head = readHead(path);
  if (head.length === 0) return { kind: "empty" };
  if (head.subarray(0, 16).toString("latin1") === SQLITE_MAGIC) return { kind: "sqlite" };
  const text = head.toString("utf8");
  if (/^\s*$/.test(text) && head.length < HEAD_BYTES) return { kind: "empty" };
  if (path.toLowerCase().endsWith(".json")) return sniffJsonDocument(text, head.length < HEAD_BYTES);
  // Only whole lines count: the last one may be cut by the head's end.
  const whole = head.length < HEAD_BYTES ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  if (whole.trim() === "") return { kind: "undecided" };
  const harness = sniffRecords(whole);
  return harness === null ? { kind: "unknown" } : { kind: "transcript", harness };
}

/**
 * The harness the first records of JSONL text belong to, or null when none matches. A Claude-keyed record
 * without a message (a summary, a snapshot, a system line) only leans Claude's way: Qwen Code's records carry
 * the same keys, and a later message, or a Qwen system record's `systemPayload`, settles it.
 */
export function sniffRecords(text: string): Harness | null {
  let seen = 0;
  let leaning: Harness | null = null;
  for (const { value: r } of parseJsonl(text, {})) {
    if (++seen > SNIFF_RECORDS) break;
    const type = asString(r.type);
    if (type === "session") return "pi";
    // Gemini CLI: its session metadata line, or its replay records.
    if (type === null && typeof r.sessionId === "string" && "projectHash" in r) return "gemini";
    if (asObject(r.$set) !== null || typeof r.$rewindTo === "string") return "gemini";
    // Qwen Code: Claude-like record keys, Gemini's Part lists, a provenance on every record of newer versions,
    // a payload on its system records.
    if (
      type !== null &&
      ("provenance" in r || "systemPayload" in r || Array.isArray(asObject(r.message)?.parts))
    )
      return "qwen";
    // Copilot CLI's `{type: "session.start", data, id, timestamp, parentId}` events.
    if (
      type !== null &&
      /^(session|user|assistant|tool|system)\./.test(type) &&
      "data" in r &&
      "parentId" in r
    )
      return "copilot";
    if (type !== null && CODEX_TYPES.has(type) && "payload" in r) return "codex";
    if (type === null && "id" in r && "instructions" in r) return "codex";
    if ("record_type" in r) return "codex";
    if (type !== null && (CLAUDE_TYPES.has(type) || CLAUDE_KEYS.some((k) => k in r))) {
      if (asObject(r.message) !== null) return "claude_code";
      leaning ??= "claude_code";
      continue;
    }
    // Hermes `sessions/<id>.jsonl`: bare OpenAI-chat rows.
    if (type === null && CHAT_ROLES.has(asString(r.role) ?? "")) return "hermes";
  }
  return leaning;
}

/**
 * A single-document `.json` transcript: Codex's 2025 `rollout-*.json` (`{session, items}`), a Hermes
 * `session_<id>.json` snapshot (`{session_id, messages}`) or Gemini CLI's older `session-*.json`
 * (`{sessionId, projectHash, messages}`). A head that ends mid-document is judged by its
 * leading keys.
 */
function sniffJsonDocument(text: string, complete: boolean): Sniffed {
  if (complete) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { kind: "unknown" };
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return { kind: "unknown" };
    const d = doc as Record<string, unknown>;
    if (Array.isArray(d.messages) && ("session_id" in d || "session_start" in d))
      return { kind: "transcript", harness: "hermes" };
    // A Hermes API request dump (`sessions/request_dump_*.json`): the conversation sent, under `request.body`.
    if (typeof d.session_id === "string" && typeof d.request === "object" && d.request !== null)
      return { kind: "transcript", harness: "hermes" };
    if (Array.isArray(d.items) && "session" in d) return { kind: "transcript", harness: "codex" };
    // Gemini CLI's older whole-file session.
    if (Array.isArray(d.messages) && typeof d.sessionId === "string" && "projectHash" in d)
      return { kind: "transcript", harness: "gemini" };
    return { kind: "unknown" };
  }
  if (/^\s*\{\s*"sessionId"\s*:/.test(text) && /"projectHash"\s*:/.test(text))
    return { kind: "transcript", harness: "gemini" };
  if (/^\s*\{\s*"session"\s*:/.test(text)) return { kind: "transcript", harness: "codex" };
  if (/"session_id"\s*:/.test(text) && /"(messages|request)"\s*:/.test(text))
    return { kind: "transcript", harness: "hermes" };
  return { kind: "undecided" };
}

/**
 * Which agent wrote a SQLite file, by its tables: OpenCode's `session`, `message` and `part`; anything else
 * is left to the Hermes reader, which names what it lacks. Read through a private copy: OpenCode's tables
 * can sit in the WAL alone (its main file holds no schema yet).
 */
export function sqliteHarness(path: string): "opencode" | null {
  let snap: SqliteSnapshot;
  try {
    // Only a path the user gave is sniffed: it is read as they named it, through its links.
    snap = SqliteSnapshot.take(path, { root: path });
  } catch {
    return null;
  }
  try {
    const rows = snap.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
    const tables = new Set(rows.map((r) => r.name));
    return ["session", "message", "part"].every((t) => tables.has(t)) ? "opencode" : null;
  } catch {
    return null;
  } finally {
    snap.close();
  }
}
