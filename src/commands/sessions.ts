/**
 * `funes sessions`: the sessions a memory holds (when, which agent, which repo, how many turns, the id and
 * the prompt it opened with), newest first, a page at a time — how a person or an agent finds a session
 * without a query. One scan of the short columns finds and orders the sessions; only the page's sessions
 * have their user texts read.
 */
import type { SessionSummary, UserText } from "../local/index.js";
import {
  type FederatedMemory,
  type MemoryReader,
  openFederated,
  openReaders,
  openReadTarget,
  type ReadContext,
  type ReadTarget,
  readFederatedWith,
  readWith,
} from "../memory/index.js";
import { BadArgumentError, FunesError } from "./errors.js";
import { buildFilters, recallOptions } from "./recall-options.js";

/** Sessions listed when no limit is given, and the most one page lists (as the reference's). */
export const DEFAULT_SESSIONS_LIMIT = 50;
export const MAX_SESSIONS_LIMIT = 200;

/** What to list. */
export interface SessionsOptions {
  /** Only sessions whose checkout resolved to this `owner/name` (case-insensitive). */
  repo?: string | undefined;
  /** Only sessions that started at or after / at or before: recall's dates, timestamps or spans (`7d`). */
  since?: string | undefined;
  until?: string | undefined;
  /** Sessions on the page (1 or more; past {@link MAX_SESSIONS_LIMIT} capped, with a note). */
  limit: number;
  /** Newest matches to skip (to walk back in time). */
  offset: number;
  /** ms since the epoch: what a span back counts from. */
  now: number;
}

/** One listed session. */
export interface SessionEntry extends SessionSummary {
  /** The memory holding it (its label). */
  memory: string;
  /** The first thing its user typed (a user text's first piece, scaffolding such as `<command-name>` passed over); "" when none. */
  prompt: string;
  /** The turn that prompt is in ("" when none): with the session id, what `get` reads the session from. */
  promptTurn: string;
}

/** A page of sessions. */
export interface SessionsResult {
  /** The memories read, by label, comma-separated. */
  memory: string;
  /** Notes and warnings to show first. */
  notes: string[];
  /** Sessions matching the filters, in all pages. */
  total: number;
  offset: number;
  limit: number;
  /** This page, newest first. */
  sessions: SessionEntry[];
}

/** Options with the defaults (50 sessions, from the newest). */
export function sessionsOptions(now: number, more: Partial<SessionsOptions> = {}): SessionsOptions {
  return { limit: DEFAULT_SESSIONS_LIMIT, offset: 0, now, ...more };
}

/** The bounds (ms, UTC; null: none) of `opts`, checked as recall checks its own. */
function checkOptions(opts: SessionsOptions): { since: number | null; until: number | null } {
  if (!Number.isInteger(opts.limit) || opts.limit < 1)
    throw new BadArgumentError({
      arg: "limit",
      flag: "--limit",
      value: String(opts.limit),
      problem: `is not a number of sessions to list (a whole number from 1, at most ${MAX_SESSIONS_LIMIT} a page) — give e.g. 20, or leave it out for ${DEFAULT_SESSIONS_LIMIT}`,
    });
  if (!Number.isInteger(opts.offset) || opts.offset < 0)
    throw new BadArgumentError({
      arg: "offset",
      flag: "--offset",
      value: String(opts.offset),
      problem: "is not a number of sessions to skip (a whole number from 0) — give e.g. 50, or leave it out",
    });
  if (opts.repo !== undefined && opts.repo.trim() === "")
    throw new BadArgumentError({
      arg: "repo",
      flag: "--repo",
      value: opts.repo,
      problem: "is empty — give an owner/name such as huggingface/funes, or leave it out",
    });
  // The same dates, timestamps and spans as recall's --since and --until, with the same messages.
  const { since, until } = buildFilters(
    recallOptions("", opts.now, { since: opts.since, until: opts.until }),
    null,
  );
  return { since, until };
}

/** True when a session's repo (one, or several space-separated) names `repo`. */
function inRepo(s: SessionSummary, repo: string): boolean {
  const want = repo.trim().toLowerCase();
  return s.repo
    .toLowerCase()
    .split(/\s+/)
    .some((r) => r === want);
}

/** Runs of blanks as one space, trimmed. */
const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * The opening prompt of each session (by agent and id): its earliest user text that says something and is
 * not markup an agent injected (`<command-name>`, `<environment_context>`, …; as the curation gate picks a
 * session's first prompt).
 */
function openingPrompts(texts: UserText[]): Map<string, { text: string; turnUuid: string }> {
  const first = new Map<string, { seq: number; blockIdx: number; text: string; turnUuid: string }>();
  for (const t of texts) {
    const plain = collapse(t.text);
    if (plain === "" || plain.startsWith("<")) continue;
    const key = `${t.harness}\u0000${t.sessionId}`;
    const cur = first.get(key);
    if (cur === undefined || t.seq < cur.seq || (t.seq === cur.seq && t.blockIdx < cur.blockIdx))
      first.set(key, { seq: t.seq, blockIdx: t.blockIdx, text: t.text.trim(), turnUuid: t.turnUuid });
  }
  return new Map([...first].map(([k, v]) => [k, { text: v.text, turnUuid: v.turnUuid }]));
}

/** Newest start first; sessions without a time last; then by id, so pages never overlap. */
function newestFirst(a: SessionEntry, b: SessionEntry): number {
  if (a.started !== b.started) return a.started < b.started ? 1 : -1;
  const ka = `${a.sessionId}\u0000${a.harness}\u0000${a.memory}`;
  const kb = `${b.sessionId}\u0000${b.harness}\u0000${b.memory}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Readers on every target: one memory's failure is the read's; with several, a memory that cannot be read
 * or holds nothing is a warning (none readable is a failure). Unlike a recall's, such a read builds no side
 * vector index: it reads no vector. `say`: how the warning goes on (`listing the others`) and what the
 * failure suggests (`list them one at a time`).
 */
export async function openEach(
  targets: ReadTarget[],
  say: { others: string; each: string } = { others: "listing the others", each: "list them one at a time" },
): Promise<{ open: MemoryReader[]; warnings: string[] }> {
  const now = () => performance.now();
  if (targets.length === 1) return openReaders(targets, now);
  const open: MemoryReader[] = [];
  const warnings: string[] = [];
  for (const t of targets) {
    try {
      const r = await openReaders([t], now);
      open.push(...r.open);
      warnings.push(...r.warnings);
    } catch (err) {
      warnings.push(
        `warning: ${t.memory.label} could not be read (${err instanceof Error ? err.message : String(err)}) — ${say.others}`,
      );
    }
  }
  if (open.length === 0)
    throw new FunesError(
      "no_memory",
      `none of the memories could be read: ${warnings.join("; ")} — check each name, or ${say.each}`,
    );
  return { open, warnings };
}

/** The sessions of one memory or of several (each entry naming its memory), a page of them, newest first. */
export async function listSessions(
  target: ReadTarget | FederatedMemory,
  opts: SessionsOptions,
): Promise<SessionsResult> {
  const { since, until } = checkOptions(opts);
  const targets = "kind" in target && target.kind === "federated" ? target.members : [target as ReadTarget];
  const { open, warnings } = await openEach(targets);
  try {
    const notes = [...targets.flatMap((t) => t.notes), ...warnings];
    const limit = Math.min(opts.limit, MAX_SESSIONS_LIMIT);
    if (opts.limit > MAX_SESSIONS_LIMIT)
      notes.push(`note: --limit is capped at ${MAX_SESSIONS_LIMIT} a page — walk on with --offset`);
    const all: { entry: SessionEntry; reader: MemoryReader }[] = [];
    for (const reader of open)
      for (const s of await reader.sessionList()) {
        if (opts.repo !== undefined && !inRepo(s, opts.repo)) continue;
        const t = Date.parse(s.started);
        if ((since !== null || until !== null) && Number.isNaN(t)) continue;
        if (since !== null && t < since) continue;
        if (until !== null && t > until) continue;
        all.push({ entry: { ...s, memory: reader.memory.label, prompt: "", promptTurn: "" }, reader });
      }
    all.sort((a, b) => newestFirst(a.entry, b.entry));
    const page = all.slice(opts.offset, opts.offset + limit);
    for (const reader of open) {
      const mine = page.filter((p) => p.reader === reader).map((p) => p.entry);
      if (mine.length === 0) continue;
      const prompts = openingPrompts(await reader.userTexts(mine.map((e) => e.sessionId)));
      for (const e of mine) {
        const p = prompts.get(`${e.harness}\u0000${e.sessionId}`);
        e.prompt = p?.text ?? "";
        e.promptTurn = p?.turnUuid ?? "";
      }
    }
    return {
      memory: open.map((m) => m.memory.label).join(", "),
      notes,
      total: all.length,
      offset: opts.offset,
      limit,
      sessions: page.map((p) => p.entry),
    };
  } finally {
    for (const m of open) m.close();
  }
}

/**
 * Lists the sessions of the memories `--memory` names (none: the local memory; several: all of them as one
 * list). A Hub memory is read from its cached copy while its head is checked, and again if it moved.
 */
export async function sessionsOfMemories(
  specs: string[],
  opts: SessionsOptions,
  ctx: ReadContext,
): Promise<SessionsResult> {
  checkOptions(opts);
  if (specs.length <= 1) return readWith(await openReadTarget(specs[0], ctx), (t) => listSessions(t, opts));
  const federated = await openFederated(specs, ctx);
  const { result, warnings } = await readFederatedWith(federated, (f) => listSessions(f, opts));
  return { ...result, notes: [...warnings, ...result.notes] };
}
