/**
 * Builds hermes `state.db` files for tests from the schema facts in docs/transcript-formats.md#hermes:
 * v12 (no sessions.cwd), v20 (cwd, columns appended out of DDL order) and v30 (the current DDL), plus an
 * old schema without `reasoning_content`.
 */
import Database from "better-sqlite3";

/** Schema generations to build. */
export type HermesSchema = "v6" | "v12" | "v20" | "v30";

/** One message row; absent fields are NULL. */
export interface HermesMessage {
  session_id: string;
  role: string;
  content?: string | null;
  tool_call_id?: string | null;
  tool_calls?: string | null;
  tool_name?: string | null;
  timestamp: number;
  reasoning?: string | null;
  reasoning_content?: string | null;
}

const MESSAGE_DDL: Record<HermesSchema, string> = {
  v6: "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_details TEXT, codex_reasoning_items TEXT",
  v12: "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_details TEXT, codex_reasoning_items TEXT, reasoning_content TEXT, codex_message_items TEXT, platform_message_id TEXT",
  v20: "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, timestamp REAL NOT NULL, role TEXT NOT NULL, reasoning_content TEXT, content TEXT, tool_name TEXT, tool_call_id TEXT, tool_calls TEXT, token_count INTEGER, finish_reason TEXT, reasoning TEXT, observed INTEGER DEFAULT 0, active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0, effect_disposition TEXT",
  v30: "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT, codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0, _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT",
};

const SESSION_DDL: Record<HermesSchema, string> = {
  v6: "id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL",
  v12: "id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, started_at REAL NOT NULL, handoff_state TEXT",
  v20: "id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, cwd TEXT, rewind_count INTEGER, git_branch TEXT",
  v30: "id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, started_at REAL NOT NULL, cwd TEXT, git_branch TEXT, title TEXT",
};

/** Creates a database at `path` in WAL mode with these sessions and messages (inserted in order). */
export function writeHermesDb(
  path: string,
  schema: HermesSchema,
  sessions: { id: string; cwd?: string }[],
  messages: HermesMessage[],
): void {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(
    `CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (${schema.slice(1)});`,
  );
  db.exec(`CREATE TABLE sessions (${SESSION_DDL[schema]})`);
  db.exec(`CREATE TABLE messages (${MESSAGE_DDL[schema]})`);
  const hasCwd = SESSION_DDL[schema].includes("cwd TEXT");
  for (const s of sessions)
    if (hasCwd)
      db.prepare("INSERT INTO sessions (id, source, started_at, cwd) VALUES (?, 'cli', 0, ?)").run(
        s.id,
        s.cwd ?? null,
      );
    else db.prepare("INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', 0)").run(s.id);
  appendHermesMessages(db, schema, messages);
  db.close();
}

/** Appends messages to an open database. */
export function appendHermesMessages(
  db: Database.Database,
  schema: HermesSchema,
  messages: HermesMessage[],
): void {
  const withRc = schema !== "v6";
  const cols = [
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "reasoning",
  ];
  if (withRc) cols.push("reasoning_content");
  const ins = db.prepare(
    `INSERT INTO messages (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
  );
  for (const m of messages) {
    const row = [
      m.session_id,
      m.role,
      m.content ?? null,
      m.tool_call_id ?? null,
      m.tool_calls ?? null,
      m.tool_name ?? null,
      m.timestamp,
      m.reasoning ?? null,
    ];
    if (withRc) row.push(m.reasoning_content ?? null);
    ins.run(...row);
  }
}
