/**
 * `funes forget`: take rows back. Always a preview first (the caller confirms it or not).
 * - Local (default): under the writer lock the rows leave `chunks.lance` and every older version's files are
 *   removed, so their bytes leave the disk; their ids are remembered in `$FUNES_HOME/forgotten.json` so the
 *   next `funes index` does not bring them back (`--allow-reindex` skips that, and releases ids forgotten
 *   earlier for the sessions or turns named).
 * - Hub (`--memory org/repo`): one compare-and-swap commit of deletion files, a manifest and the remote's
 *   forgotten-ids file that every funes push honours; `--purge-history` also rewrites the data files that held
 *   the rows and squashes the branch's history (sync/forget-publish.ts).
 */
import { type ForgetCandidate, forgetCandidateRows, LocalStore } from "../local/index.js";
import {
  compileSelectors,
  copiesAndMentions,
  type ForgetPreview,
  type ForgetSelectors,
  type ForgottenEntry,
  ForgottenFileError,
  finishForget,
  funesPaths,
  loadIndexState,
  markForget,
  type PreviewExtras,
  previewOf,
  type ReadContext,
  reachStep,
  readForgotten,
  resolveMemorySpec,
  saveIndexState,
  withWriterLock,
  writeForgotten,
} from "../memory/index.js";
import { HubReadOnlyError } from "../remote/index.js";
import {
  forgetRemoteRows,
  HistoryNotSquashedError,
  type HubForgetPlan,
  hubLocation,
  openHubForWrite,
  PublishConflictError,
  PublishUnreachableError,
  waitForPushCommits,
} from "../sync/index.js";
import { FunesError, readOnlyError } from "./errors.js";

/** What the caller is asked to confirm. */
export interface ForgetProposal {
  /** The memory: `local`, a folder, or the Hub URI. */
  memory: string;
  preview: ForgetPreview;
  /** Hub only: the commit about to be made. */
  hub: { adds: number; deletes: number; bytes: number; rewritten: number; purgeHistory: boolean } | null;
  /** Local only: forgotten ids released for re-indexing (`--allow-reindex`). */
  released: number;
}

/** Options of a forget. */
export interface ForgetOptions {
  selectors: ForgetSelectors;
  /** A memory spec; absent or `local` → this machine's memory. */
  memory?: string | undefined;
  purgeHistory: boolean;
  allowReindex: boolean;
  /** Also take the mentions: rows that carry what is forgotten without a recall tying them to it. */
  withMentions?: boolean | undefined;
  now: () => number;
  /** Shown the proposal; true goes ahead. Not called when nothing matched. */
  confirm: (p: ForgetProposal) => Promise<boolean>;
}

/** What a forget did. */
export interface ForgetSummary extends ForgetProposal {
  /** False when the proposal was declined or nothing matched. */
  done: boolean;
  forgotten: number;
  /** Rows written again because they shared a data file with a forgotten row. */
  rewritten: number;
  /** Local: bytes of old files removed from disk. */
  bytesRemoved: number;
  /** Local: whether the ids were remembered against re-indexing. */
  remembered: boolean;
  commit: string | null;
  squashed: string | null;
  attempts: number;
  card: string;
  /**
   * Local: the Hub memory a push was committing to when this forget began, which it waited for (that push
   * left the rows out, or took back any it had sent); null when no push was committing.
   */
  waitedForPush: string | null;
}

/** Forgets the selected rows of a memory (see the file header). */
export async function forgetRows(opts: ForgetOptions, ctx: ReadContext): Promise<ForgetSummary> {
  const select = compileSelectors(opts.selectors, opts.now());
  const r = resolveMemorySpec(opts.memory, ctx);
  if (r.kind === "remote") {
    if (opts.allowReindex)
      throw new FunesError(
        "bad_input",
        "--allow-reindex is about this machine's memory; a Hub memory's forgotten ids stay (every push leaves them out) — drop --allow-reindex",
      );
    return forgetOnHub(opts, ctx, select);
  }
  if (opts.purgeHistory)
    throw new FunesError(
      "bad_input",
      "--purge-history rewrites a Hub memory's history — add --memory <org/repo> to purge one, or drop --purge-history (a local forget already removes old versions' files)",
    );
  const isHome = r.memory.isDefault || r.memory.dir === funesPaths(ctx.funesHome).memory;
  const where = {
    dir: r.memory.dir,
    label: isHome ? "local" : r.memory.dir,
    home: isHome ? ctx.funesHome : null,
    funesHome: ctx.funesHome,
  };
  return withWriterLock(ctx.funesHome, () => forgetLocal(opts, where, select));
}

/**
 * The rows the selectors take, the copies of them that recalls left, and the mentions: rows that carry
 * their content untied (memory/forget-copies.ts), among the rows only with `withMentions`.
 */
function withCopies(
  all: ForgetCandidate[],
  select: (r: ForgetCandidate) => boolean,
  withMentions: boolean,
): { rows: ForgetCandidate[]; extras: PreviewExtras } {
  const picked = all.filter(select);
  const { copies, mentions } = copiesAndMentions(all, picked);
  return {
    rows: [...picked, ...copies, ...(withMentions ? mentions : [])],
    extras: { copies: copies.length, mentions, mentionsTaken: withMentions },
  };
}

function blank(memory: string, preview: ForgetPreview): ForgetSummary {
  return {
    memory,
    preview,
    hub: null,
    released: 0,
    done: false,
    forgotten: 0,
    rewritten: 0,
    bytesRemoved: 0,
    remembered: false,
    commit: null,
    squashed: null,
    attempts: 0,
    card: "none",
    waitedForPush: null,
  };
}

async function forgetLocal(
  opts: ForgetOptions,
  where: { dir: string; label: string; home: string | null; funesHome: string },
  select: (r: ForgetCandidate) => boolean,
): Promise<ForgetSummary> {
  const store = await LocalStore.open(where.dir);
  if (store === null)
    throw new FunesError(
      "no_memory",
      `no memory at ${where.label === "local" ? where.dir : where.label} — nothing to forget there; check the path or run \`funes index\` first`,
    );
  // Closed before the forget is finished: the finishing step opens the memory itself.
  let closed = false;
  try {
    const { rows: selected, extras } = withCopies(
      await forgetCandidateRows(store),
      select,
      opts.withMentions === true,
    );
    const summary = blank(where.label, previewOf(selected, opts.selectors, extras));
    const known: Map<string, ForgottenEntry> = where.home === null ? new Map() : readForgotten(where.home);
    const released = opts.allowReindex ? releasable(known, opts.selectors) : [];
    summary.released = released.length;
    if (selected.length === 0 && released.length === 0) {
      summary.done = true;
      return summary;
    }
    if (!(await opts.confirm(summary))) return summary;
    if (where.home !== null && opts.allowReindex) {
      // Releasing makes the list shorter only: no marker needed (a kill leaves the rows in, nothing claimed).
      const sources = new Set<string>();
      for (const id of released) {
        sources.add(known.get(id)?.source ?? "");
        known.delete(id);
      }
      for (const r of selected) {
        known.delete(r.id);
        sources.add(r.sourcePath);
      }
      await writeForgotten(where.home, known);
      // Released transcripts are read again by the next `funes index`, even unchanged.
      await forgetUnits(where.home, sources);
    }
    if (selected.length > 0) {
      // The marker first: from here a kill at any step is finished by the next write (forget-pending.ts),
      // and every push leaves these ids out.
      const at = new Date(opts.now()).toISOString();
      const remember =
        where.home === null || opts.allowReindex
          ? {}
          : Object.fromEntries(
              selected.map((r) => [
                r.id,
                { session: r.sessionId, turn: r.turnUuid, source: r.sourcePath, at },
              ]),
            );
      closed = true;
      store.close();
      await markForget(where.funesHome, { dir: where.dir, ids: selected.map((r) => r.id), remember });
      reachStep("forget:marked");
      // From the marker on, every push leaves these rows out; one committing right now is waited for.
      summary.waitedForPush = await waitForPushCommits(where.funesHome);
      const done = await finishForget(where.funesHome);
      summary.rewritten = done?.rewritten ?? 0;
      summary.bytesRemoved = done?.bytesRemoved ?? 0;
    }
    summary.remembered = where.home !== null && !opts.allowReindex;
    summary.forgotten = selected.length;
    summary.done = true;
    return summary;
  } finally {
    if (!closed) store.close();
  }
}

async function forgetUnits(funesHome: string, sources: Set<string>): Promise<void> {
  const path = funesPaths(funesHome).state;
  const { units } = loadIndexState(path);
  let changed = false;
  for (const s of sources) changed = units.delete(s) || changed;
  if (changed) await saveIndexState(path, units);
}

/** Ids forgotten earlier that `--allow-reindex` releases: those of the sessions or turns named. */
function releasable(known: Map<string, ForgottenEntry>, s: ForgetSelectors): string[] {
  if (s.sessions.length === 0 && s.turns.length === 0) return [];
  const sessions = new Set(s.sessions);
  const turns = new Set(s.turns.map((t) => `${t.session}\u0000${t.turn}`));
  return [...known.entries()]
    .filter(
      ([, e]) =>
        (sessions.size === 0 || sessions.has(e.session)) &&
        (turns.size === 0 || turns.has(`${e.session}\u0000${e.turn}`)),
    )
    .map(([id]) => id);
}

async function forgetOnHub(
  opts: ForgetOptions,
  ctx: ReadContext,
  select: (r: ForgetCandidate) => boolean,
): Promise<ForgetSummary> {
  const loc = hubLocation(opts.memory ?? "", ctx, "forget");
  const { client, head } = await openHubForWrite(loc, "forget", ctx);
  if (head.kind === "missing")
    throw new FunesError(
      "no_memory",
      `${loc.uri} doesn't exist on the Hub, so nothing is published there to forget — check the name`,
    );
  // What the last selection (on the head the plan was made on) found beside the selected rows.
  let extras: PreviewExtras = {};
  const proposal = (plan: HubForgetPlan): ForgetProposal => ({
    memory: loc.uri,
    preview: previewOf(plan.selected, opts.selectors, extras),
    hub: {
      adds: plan.adds,
      deletes: plan.deletes,
      bytes: plan.bytes,
      rewritten: plan.rewritten,
      purgeHistory: opts.purgeHistory,
    },
    released: 0,
  });
  try {
    const r = await forgetRemoteRows({
      loc,
      client,
      hubCache: ctx.models.hubCache,
      funesHome: ctx.funesHome,
      select: (rows) => {
        const w = withCopies(rows, select, opts.withMentions === true);
        extras = w.extras;
        return w.rows;
      },
      purgeHistory: opts.purgeHistory,
      confirm: (plan) => opts.confirm(proposal(plan)),
      now: opts.now,
    });
    const summary = blank(loc.uri, previewOf([], opts.selectors));
    if (r.plan !== null) Object.assign(summary, proposal(r.plan));
    return Object.assign(summary, {
      done: r.done,
      forgotten: r.done && r.commit !== null ? (r.plan?.selected.length ?? 0) : 0,
      rewritten: r.plan?.rewritten ?? 0,
      commit: r.commit,
      squashed: r.squashed,
      attempts: r.attempts,
      card: r.card,
    });
  } catch (err) {
    if (err instanceof HubReadOnlyError) throw readOnlyError(loc.uri, "forgetting");
    if (err instanceof PublishUnreachableError)
      throw new FunesError(
        "unreachable",
        `${loc.uri} could not be reached (${err.message}) — nothing was forgotten there; run the forget again once you're back online`,
      );
    if (err instanceof PublishConflictError)
      throw new FunesError(
        "busy",
        `${loc.uri}: ${err.message} (others are publishing) — nothing was forgotten; run it again in a moment`,
      );
    if (err instanceof ForgottenFileError) throw new FunesError("bad_input", err.message);
    if (err instanceof HistoryNotSquashedError)
      throw new FunesError(
        "unreachable",
        `the rows are gone from ${loc.uri} (commit ${err.commit.slice(0, 8)}) but its history still holds them: squashing failed (${err.message}) — run the same forget again, or squash on the Hub (dataset Settings)`,
      );
    throw err;
  }
}
