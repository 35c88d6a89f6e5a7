/**
 * What an index run is given, what it reports as it goes, and what it returns; the steps a large memory's
 * run hands to worker processes (index-sessions.ts runs them).
 */
import type { VectorIndexRules } from "../local/index.js";
import type { ModelsConfig } from "../models/index.js";
import type { AgentEnv, Harness, SkipCounts } from "../traces/index.js";

/** What to index and how. */
export interface IndexOptions {
  /** `$FUNES_HOME`. */
  funesHome: string;
  /** The user's home, for the known agent directories. */
  home: string;
  /** Agent folders their own variables moved (`CODEX_HOME`, …). */
  agentEnv?: AgentEnv | undefined;
  /**
   * A transcript file, directory, `state.db` or `.parquet`, or a Hub agent-traces dataset (`owner/name`);
   * absent → every known agent directory.
   */
  path?: string | undefined;
  harness?: Harness | undefined;
  /** Re-read every unit whatever state.json says (stored ids keep the memory free of duplicates). */
  force?: boolean | undefined;
  /** Newest N units per source. */
  limit?: number | undefined;
  /** False drops thinking blocks. */
  thinking: boolean;
  onEvent?: ((e: IndexEvent) => void) | undefined;
  /** Where the embedder is; absent → text only. */
  models?: ModelsConfig | undefined;
  /** Time for the vector backfill, ms; null finishes it (`--yes`). */
  vectorBudgetMs?: number | null | undefined;
  now?: (() => number) | undefined;
  /** Runs the backfill of a large memory in fresh processes (absent: in this one). */
  isolate?: Isolation | undefined;
}

/**
 * A step of an index run on a large memory, in a fresh process: the text pass, an embedding run, a vector
 * index step, the closing indexes. Lance's index upkeep on a large memory (training, folding, compacting
 * with index remaps) takes ≈ 0.7 KB of transient memory per indexed row, and the allocator keeps what it
 * freed for the process's life: in one process a 1M-chunk backfill ratchets past 2 GB. Each step here runs
 * in its own short-lived process, which gives it all back on exit.
 */
export type IsolatedStep =
  | { kind: "text"; funesHome: string; text: TextPassOptions }
  | {
      kind: "embed";
      funesHome: string;
      models: ModelsConfig;
      /** ms; null: until done or a step of index upkeep is due. */
      budgetMs: number | null;
      indexRules?: IndexRules | undefined;
    }
  | {
      kind: "maintain";
      funesHome: string;
      /** After the last embedding: compaction and the text index too. */
      final: boolean;
      indexRules?: IndexRules | undefined;
    };

/** The vector index's rules at another scale (tests); absent, the product's. */
export type IndexRules = Partial<VectorIndexRules> & { minRows?: number };

/** What an isolated step did. */
export type IsolatedResult =
  | { kind: "text"; summary: IndexSummary; finish: boolean; waiting: number }
  | { kind: "embedded"; model: string; embedded: number; due: boolean }
  | { kind: "keyword-only"; reason: string }
  | { kind: "maintained" };

/** How the caller runs isolated steps (cli/index-worker.ts), and from what size. */
export interface Isolation {
  /** Rows of the table from which the backfill is isolated. */
  fromRows: number;
  run: (step: IsolatedStep, emit: (e: IndexEvent) => void) => Promise<IsolatedResult>;
}

/** Progress, as it happens. */
export type IndexEvent =
  | { kind: "source"; description: string; units: number; owed: number }
  | { kind: "source-failed"; description: string; reason: string }
  | {
      kind: "unit";
      done: number;
      total: number;
      /** Bytes of the units read so far and of all owed units (files; 0 when a source has no sizes). */
      bytesDone: number;
      bytesTotal: number;
      label: string;
      added: number;
      present: number;
    }
  | { kind: "note"; text: string }
  | { kind: "unit-failed"; done: number; total: number; key: string; reason: string }
  | { kind: "redacted"; sessionId: string; counts: Record<string, number> }
  | { kind: "state-discarded"; path: string }
  | { kind: "text-index"; action: "built" | "rebuilt" }
  | { kind: "vector-index"; action: "built" | "rebuilt" | "folded"; seconds: number }
  | { kind: "keyword-only"; reason: string }
  | { kind: "embedding"; done: number; total: number; rate: number };

/** What a run did. */
export interface IndexSummary {
  memory: string;
  /** Units read this run and units skipped as unchanged. */
  unitsRead: number;
  unitsUnchanged: number;
  /** Distinct sessions (agent and id) that yielded at least one chunk. */
  sessions: number;
  /** Sessions by agent (`claude_code`, `codex`, …). */
  sessionsByHarness: Record<string, number>;
  turns: number;
  chunksAdded: number;
  /** Chunks already in the memory before this run. */
  chunksPresent: number;
  /** Chunks whose id came up again within this run (a transcript repeating itself), stored once. */
  chunksRepeated: number;
  /** Rows of agent-injected text an older run stored, removed now that it is recognised. */
  boilerplateRemoved: number;
  /** Bytes of transcript read. */
  bytesRead: number;
  /** Things a person should know that are not failures (an empty file given). */
  notes: string[];
  /** Lines or records passed over, by reason. */
  skipped: SkipCounts;
  failed: { key: string; reason: string }[];
  redacted: Record<string, number>;
  vectors: VectorSummary;
}

/** What the backfill did. */
export interface VectorSummary {
  /** `repo@revision` of the embedder used, or null when none was available. */
  model: string | null;
  embedded: number;
  /** Rows still without a vector. */
  remaining: number;
  seconds: number;
}

/** Default time for the vector backfill (the reference's budget), ms. */
export const DEFAULT_VECTOR_BUDGET_MS = 60_000;

/** What a text pass in a worker is given (IndexOptions as plain data). */
export type TextPassOptions = Pick<
  IndexOptions,
  "home" | "agentEnv" | "path" | "harness" | "force" | "limit" | "thinking" | "models"
>;

/** A summary of a run that has done nothing yet. */
export function emptySummary(memory: string): IndexSummary {
  return {
    memory,
    unitsRead: 0,
    unitsUnchanged: 0,
    sessions: 0,
    sessionsByHarness: {},
    turns: 0,
    chunksAdded: 0,
    chunksPresent: 0,
    chunksRepeated: 0,
    boilerplateRemoved: 0,
    bytesRead: 0,
    skipped: {},
    failed: [],
    redacted: {},
    notes: [],
    vectors: { model: null, embedded: 0, remaining: 0, seconds: 0 },
  };
}

/** A run with nothing to read (an empty file): a note, no lock, no memory touched. */
export function noteOnly(memory: string, text: string, onEvent: IndexOptions["onEvent"]): IndexSummary {
  onEvent?.({ kind: "note", text });
  const summary = emptySummary(memory);
  summary.notes.push(text);
  return summary;
}
