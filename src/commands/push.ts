/**
 * `funes push <memory>`: publish the local memory's embedded rows that a Hub dataset lacks. Rows waiting for
 * a vector are never published. A fail-closed secret gate rebuilds every block about to leave the machine
 * from its chunks, scans it whole, and holds back every chunk of a block with a finding. Repos are created
 * only when asked (`--create`), always private. A first push to a remote that shares no chunk with this
 * memory is refused without `--yes` (a wrong memory is the likely cause), unless `funes add` recorded
 * consent to publish into that memory (joining a team's memory from a machine with nothing in it yet).
 */
import { finishForgetIfFree, type ReadContext, refusedRemote } from "../memory/index.js";
import {
  COMPACT_AT_FILES,
  type CompactNote,
  type ComparedWith,
  clearHookRefusal,
  compactAfterPush,
  createDataset,
  curationPath,
  hubLocation,
  type PushRemote,
  probePushRemote,
  publishPush,
  publishScope,
  pushBase,
  readPublishConsent,
  requireToken,
  rowsGoing,
  type TookBack,
  withPinnedLocal,
  writeReceipt,
} from "../sync/index.js";
import { FunesError } from "./errors.js";

/** Push options. */
export interface PushOptions {
  spec: string;
  /** Create the repo (private) if it does not exist. */
  create: boolean;
  /** Skip the wrong-memory guard. */
  yes: boolean;
  now: () => number;
  /** Asks the user (on a terminal) whether to publish to a remote that shares no chunk; absent → refuse. */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Bytes uploaded by the commit being sent. */
  onUpload?: ((sent: number, total: number) => void) | undefined;
  /** Publish only these sessions (release notes). */
  sessions?: string[] | undefined;
  /**
   * Say what would be published and held back, changing nothing: the head probe is the only request (the
   * remote's chunks are compared from the copy cached here, if any).
   */
  dryRun?: boolean | undefined;
  /**
   * Compact the memory after the push once its head lists more than this many files under the memory's
   * folder (default `COMPACT_AT_FILES`; 0: never).
   */
  compactAtFiles?: number | undefined;
}

/** What a dry run found (`PushSummary.dryRun`). */
export interface PushDryRun {
  /** Sessions and chunks that would be published, and their size as uncompressed rows (bytes). */
  sessions: number;
  chunks: number;
  bytes: number;
  /**
   * What the remote's chunks were compared with: its head as cached here, an older cached copy (the remote
   * has moved since), nothing (no copy here: counted as if it held none of yours), or a repo to create.
   */
  comparedWith: ComparedWith;
  /** The repo does not exist and `--create` would create it (private). */
  wouldCreate: boolean;
  /** The remote shares no chunk with this memory: a real push asks first (or needs --yes). */
  wouldAsk: boolean;
  /**
   * The Hub was not reached (why: the host and cause, or offline mode), so the remote was compared with
   * what is cached here (`older-copy`) or with nothing; null when it answered.
   */
  offline: { reason: string; offlineMode: boolean } | null;
}

/** What a push did. */
export interface PushSummary {
  memory: string;
  commit: string | null;
  published: number;
  /** Already on the remote. */
  present: number;
  /** Held back by the secret gate, by rule (chunks). */
  heldBack: Record<string, number>;
  /** Local rows still without a vector (published once embedded). */
  waitingForVectors: number;
  files: number;
  bytes: number;
  attempts: number;
  created: boolean;
  /** What happened to the dataset card. */
  card: string;
  /** The project the remote is the memory of, or null (personal). */
  project: string | null;
  /** Project sessions on this machine waiting for a review (`funes curate`). */
  pendingReview: number;
  /** Set by a dry run: what would happen (nothing was changed, `published` stays 0). */
  dryRun?: PushDryRun;
  /** Rows a local forget took out while the commit request was under way, taken back out of the Hub. */
  tookBack?: TookBack;
  /** The compaction that followed the push (the memory had grown past the threshold), or why it did not. */
  compaction?: CompactNote;
}

/** The Hub memory to push to does not exist (and was not to be created). */
export class MemoryMissingError extends FunesError {}

/** Publishes the local memory to a Hub memory. */
export async function pushMemory(opts: PushOptions, ctx: ReadContext): Promise<PushSummary> {
  try {
    return await pushChecked(opts, ctx);
  } catch (err) {
    // A hostile or damaged remote is a clear refusal, not a stack trace.
    throw refusedRemote(err, opts.spec) ?? err;
  }
}

async function pushChecked(opts: PushOptions, ctx: ReadContext): Promise<PushSummary> {
  // An empty selection is a mistake in the caller's list, never a request for the whole memory.
  if (opts.sessions !== undefined && opts.sessions.length === 0)
    throw new FunesError("bad_input", "--sessions names no session — give one or more session ids");
  const dryRun = opts.dryRun === true;
  const remote = await probeRemote(opts, ctx);
  // A local forget cut short is finished first (when no other write holds the memory).
  if (!dryRun) await finishForgetIfFree(ctx.funesHome);
  return withPinnedLocal(ctx.funesHome, async (store) => {
    const base = await pushBase(remote, ctx, dryRun);
    const scope = await publishScope({
      local: store,
      remoteDir: base.view?.dir ?? null,
      remoteIds: base.remoteIds,
      decisionsPath: curationPath(ctx.funesHome, remote.loc),
      sessions: opts.sessions,
    });
    const going = await rowsGoing(store, base.remoteIds, scope.allow, {
      // `funes add <agent> <memory>` joining that memory was a yes to publishing there (publish-consent.ts).
      yes: opts.yes || readPublishConsent(ctx.funesHome, remote.loc.uri) !== null,
      dryRun,
      confirmUnrelated: (held, count) => confirmUnrelated(opts, remote.loc.uri, held, count),
    });
    const summary: PushSummary = {
      memory: remote.loc.uri,
      commit: null,
      published: 0,
      present: going.present,
      heldBack: going.heldBack,
      waitingForVectors: going.waitingForVectors,
      files: 0,
      bytes: 0,
      attempts: 0,
      created: remote.created,
      card: "none",
      project: scope.project,
      pendingReview: scope.pendingReview,
    };
    if (dryRun) {
      summary.dryRun = {
        sessions: going.sessions,
        chunks: going.rows.ids.size,
        bytes: going.bytes ?? 0,
        comparedWith: base.comparedWith,
        wouldCreate: remote.head.kind === "missing",
        wouldAsk: going.unrelated,
        offline:
          remote.head.kind === "offline"
            ? { reason: remote.head.reason, offlineMode: remote.head.offlineMode === true }
            : null,
      };
      return summary;
    }
    if (going.rows.ids.size === 0) {
      // Nothing new, held back or waiting for a vector: whatever a hook push refused here is settled.
      if (Object.keys(going.heldBack).length === 0 && going.waitingForVectors === 0)
        clearHookRefusal(ctx.funesHome, remote.loc);
      return summary;
    }
    requireToken(ctx.models.token, remote.loc.uri);
    const r = await publishPush(going.rows, remote, base, { ctx, now: opts.now, onUpload: opts.onUpload });
    Object.assign(summary, {
      commit: r.commit,
      published: r.added,
      files: r.files,
      bytes: r.bytes,
      attempts: r.attempts,
      card: r.card,
      ...(r.tookBack === null ? {} : { tookBack: r.tookBack }),
    });
    writeReceipt(ctx.funesHome, remote.loc, summary, opts.now());
    clearHookRefusal(ctx.funesHome, remote.loc);
    // Best-effort: a compaction that fails or loses a race is a note; the push has landed.
    const compaction =
      r.commit === null
        ? null
        : await compactAfterPush({
            loc: remote.loc,
            client: remote.client,
            hubCache: ctx.models.hubCache,
            funesHome: ctx.funesHome,
            now: opts.now,
            sha: r.commit,
            headFiles: r.headFiles,
            atFiles: opts.compactAtFiles ?? COMPACT_AT_FILES,
          });
    if (compaction !== null) summary.compaction = compaction;
    return summary;
  });
}

/**
 * Probes the remote's head: offline, unauthorized and a model repo are refusals; a missing dataset is
 * created with --create (not on a dry run), else a refusal that says how.
 */
async function probeRemote(opts: PushOptions, ctx: ReadContext): Promise<PushRemote> {
  const remote = await probePushRemote(hubLocation(opts.spec, ctx), ctx, opts.dryRun === true);
  const { loc, client, head } = remote;
  if (head.kind === "missing") {
    if (!opts.create)
      throw new MemoryMissingError(
        "no_memory",
        `${loc.uri} doesn't exist on the Hub — run \`funes push ${opts.spec} --create\` to create it (private), or create the dataset repo first`,
      );
    if (opts.dryRun !== true) {
      requireToken(ctx.models.token, loc.uri);
      remote.created = await createDataset(client, loc.repo, loc.uri);
    }
  }
  return remote;
}

/** A remote that shares no chunk with this memory (a new machine, or the wrong memory?) needs a yes. */
async function confirmUnrelated(
  opts: PushOptions,
  uri: string,
  remote: number,
  going: number,
): Promise<void> {
  const question = `${uri} holds ${remote} chunks and shares none with your memory (a new machine, or the wrong memory?)`;
  if (
    opts.confirm === undefined ||
    !(await opts.confirm(`${question} — publish ${going} chunks there anyway?`))
  )
    throw new FunesError(
      "declined",
      `${question} — nothing was published; re-run with --yes to publish anyway`,
    );
}
