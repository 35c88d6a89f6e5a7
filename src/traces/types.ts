/**
 * The Turn/Block model every trace parser maps its wire format into
 * (docs/transcript-formats.md#turns-and-blocks).
 */

/** Stored `harness` facet values. Parquet rows carry whatever their own column says. */
export type Harness = "claude_code" | "codex" | "pi" | "hermes" | "gemini" | "qwen" | "opencode" | "copilot";

/** Block kinds parsers produce; the chunker folds any other string into the text tier. */
export type BlockType = "text" | "thinking" | "tool_use" | "tool_result";

/** One typed piece of a turn's content. */
export interface Block {
  blockType: BlockType;
  /** Raw content: serialized arguments for tool_use, flattened output for tool_result. */
  text: string;
  toolName: string | null;
  /** Used only to back-fill tool_result names; never stored. */
  toolUseId: string | null;
  /**
   * Set when the agent, not the user or the model, wrote this text (Codex's developer instructions and
   * `<environment_context>`, Claude's `<system-reminder>` injections…): the block keeps its place, so
   * block and turn numbering (and so chunk ids) stay the reference's, but it is not indexed. The value
   * names what it is, for the run's summary.
   */
  injected?: string;
}

/** One record of a session that yielded at least one block. */
export interface Turn {
  sessionId: string;
  workdir: string;
  turnUuid: string;
  parentUuid: string | null;
  /** 0-based index among retained turns of the session, in file order. */
  seq: number;
  /** Source timestamp, verbatim (hermes: RFC 3339 made from epoch seconds). */
  ts: string;
  role: string;
  blocks: Block[];
  sourcePath: string;
  harness: string;
}

/** Why lines or records were passed over, with counts: parsers never drop data silently. */
export type SkipCounts = Record<string, number>;

/** One session read from a unit. */
export interface Session {
  sessionId: string;
  workdir: string;
  /** The recorded working directory, unmunged, when the transcript names one (for the repo facet). */
  cwd: string | null;
  turns: Turn[];
  isSubagent: boolean;
}

/** A record passed over because it could not be read (JSON nested too deep…), named for the run's summary. */
export interface UnreadableRecord {
  /**
   * Where it sits in its unit: `line 2` of a file, or the record by its id or position where a unit is not
   * lines (`message id 17` of a Hermes database, `part "prt_…"` of OpenCode's, `message 3` of a session file).
   */
  at: string;
  reason: string;
}

/** What reading one unit gave: its sessions and what was passed over. */
export interface UnitRead {
  sessions: Session[];
  skipped: SkipCounts;
  /** Lines (or rows, or messages) looked at. */
  records: number;
  /** The first few records passed over as unreadable (all are counted in `skipped`). */
  unreadable?: UnreadableRecord[];
}

/** A session whose turns are read one at a time (a second pass over its file), its facts known first. */
export interface StreamedSession extends Omit<Session, "turns"> {
  /** The turns in order, each complete (working folder, tool names); iterated once. */
  turns: Iterable<Turn>;
}

/**
 * A unit read as a stream, so that memory is bounded by its largest record, not its size: what was
 * passed over (`read`) is complete once every session's turns have been iterated.
 */
export interface StreamedUnit {
  sessions: StreamedSession[];
  read: Omit<UnitRead, "sessions">;
}

/** An independently indexable piece of a source: a transcript file, a hermes session, a parquet file. */
export interface Unit {
  /** Identity in state.json (the walked path, the hermes session id, …). */
  key: string;
  /** Change stamp (`size:mtimeSecs`, hermes watermark); null means always re-read, never recorded. */
  signature: string | null;
  isSubagent: boolean;
  /** Size in bytes when known (files), for progress by bytes. */
  bytes?: number;
}

/** A place sessions come from: one implementation per transcript format. */
export interface TraceSource {
  /**
   * Facet name used in messages (`claude_code`, `codex`, `pi`, `hermes`, `gemini`, `qwen`, `opencode`,
   * `copilot`, `parquet`).
   */
  readonly kind: Harness | "parquet";
  /** One line saying what is scanned, for progress output. */
  readonly description: string;
  /**
   * Version of the parser behind this source, recorded per unit in state.json: a unit read by an older
   * parser is read again. Absent → 1.
   */
  readonly parserVersion?: number;
  /** Units in index order (newest first, sub-agents last); `limit` keeps the newest N. */
  listUnits(limit?: number): Promise<Unit[]>;
  /** Reads one unit; a unit that cannot be read throws. */
  readUnit(unit: Unit): Promise<UnitRead>;
  /**
   * Reads one unit a turn at a time, when this source can (null: read it with `readUnit`). Indexing uses
   * it, so a large transcript is never held whole; what it gives equals `readUnit`'s.
   */
  streamUnit?(unit: Unit): Promise<StreamedUnit | null>;
  /** Releases what listing and reading held (a database's private copy); the source may be listed again. */
  close?(): void;
}

/** Adds `n` to a skip reason's count. */
export function countSkip(skips: SkipCounts, reason: string, n = 1): void {
  skips[reason] = (skips[reason] ?? 0) + n;
}

/** Merges skip counts from `from` into `into`. */
export function mergeSkips(into: SkipCounts, from: SkipCounts): void {
  for (const [reason, n] of Object.entries(from)) countSkip(into, reason, n);
}
