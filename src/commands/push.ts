/**
 * `funes push <memory>`: publish the local memory's embedded rows that a Hub dataset lacks. Rows waiting for
 * a vector are never published. A fail-closed secret gate rebuilds every block about to leave the machine
 * from its chunks, scans it whole, and holds back every chunk of a block with a finding. Repos are created
 * only when asked (`--create`), always private. A first push to a remote that shares no chunk with this
 * memory is refused without `--yes` (a wrong memory is the likely cause).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cachedView, materializeView, newestView, type SnapshotView } from "../cache/index.js";
import {
  idsIn,
  type LocalRows,
  LocalStore,
  pinVersion,
  type RowPlace,
  rowBytes,
  rowPlaces,
  versionKept,
} from "../local/index.js";
import type { ReadContext } from "../memory/index.js";
import {
  createDataset,
  curationPath,
  ForgottenFileError,
  finishForgetIfFree,
  funesPaths,
  holdBack,
  hubLocation,
  locallyForgottenIds,
  openHubForWrite,
  openHubOrOffline,
  PublishConflictError,
  PublishUnreachableError,
  publishRows,
  publishScope,
  refusedRemote,
  remoteFileName,
  requireToken,
  viewsRoot,
} from "../memory/index.js";
import {
  fetchRepoHead,
  type HubClient,
  type HubLocation,
  HubReadOnlyError,
  parseHubUri,
  type RepoHead,
} from "../remote/index.js";
import { FunesError, readOnlyError } from "./errors.js";

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
  comparedWith: "head" | "older-copy" | "nothing" | "new-repo";
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
  const remote = await probeRemote(opts, ctx);
  // A local forget cut short is finished first (when no other write holds the memory).
  if (opts.dryRun !== true) await finishForgetIfFree(ctx.funesHome);
  const store = await LocalStore.open(funesPaths(ctx.funesHome).memory);
  if (store === null)
    throw new FunesError("no_memory", "no local index yet — run `funes index` first, then push");
  let pinned: number | null = null;
  try {
    // Every read below sees one version: the rows published are the rows the gate scanned.
    pinned = await pinVersion(store);
    const { view, comparedWith } = await remoteToCompare(opts, ctx, remote);
    const remoteIds = view === null ? new Set<string>() : await idsIn(view.dir);
    const scope = await publishScope({
      local: store,
      remoteDir: view?.dir ?? null,
      remoteIds,
      decisionsPath: curationPath(ctx.funesHome, remote.loc),
      sessions: opts.sessions,
    });
    const going = await rowsGoing(store, remoteIds, scope.allow, opts, remote.loc);
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
    const rows: LocalRows = { store, ids: going.keep, rowIds: going.rowIds };
    if (opts.dryRun === true) {
      summary.dryRun = {
        sessions: going.sessions,
        chunks: going.keep.size,
        bytes: await rowBytes(rows),
        comparedWith,
        wouldCreate: remote.head.kind === "missing",
        wouldAsk: going.unrelated,
        offline:
          remote.head.kind === "offline"
            ? { reason: remote.head.reason, offlineMode: remote.head.offlineMode === true }
            : null,
      };
      return summary;
    }
    if (going.keep.size === 0) return summary;
    Object.assign(summary, await publish(rows, remote, opts, ctx));
    writeReceipt(ctx.funesHome, remote.loc, summary, opts.now());
    return summary;
  } catch (err) {
    throw (await compactedUnderPush(err, store, pinned)) ?? err;
  } finally {
    store.close();
  }
}

/**
 * A read that failed because an index run compacted the memory while this push read it (the version it
 * pinned is gone, and its files with it): a busy memory, to push again, not an unexpected error.
 */
async function compactedUnderPush(
  err: unknown,
  store: LocalStore,
  pinned: number | null,
): Promise<FunesError | null> {
  if (err instanceof FunesError || pinned === null) return null;
  const kept = await versionKept(store, pinned).catch(() => true);
  if (kept) return null;
  return new FunesError(
    "busy",
    "an index run compacted the local memory while this push was reading it — run `funes push` again (it sends only what the Hub still lacks)",
    err,
  );
}

/** What a push sends, found from the rows' places; only the ids kept outlive it (not every row's place). */
interface RowsGoing {
  keep: Set<string>;
  /** Where the kept rows are (`_rowid`, ascending): they are read from there when published. */
  rowIds: Float64Array;
  /** Sessions the kept rows belong to. */
  sessions: number;
  present: number;
  waitingForVectors: number;
  heldBack: Record<string, number>;
  /** The remote shares no chunk with this memory (asked first, unless --yes). */
  unrelated: boolean;
}

/**
 * The embedded rows the remote lacks, within the publish scope (`allow`: sessions, or null for all), minus
 * what the secret gate holds back. A remote that shares no chunk is confirmed first (not on a dry run).
 */
async function rowsGoing(
  store: LocalStore,
  remoteIds: Set<string>,
  allow: Set<string> | null,
  opts: PushOptions,
  loc: HubLocation,
): Promise<RowsGoing> {
  const places = await rowPlaces(store);
  const { present, waitingForVectors, ...pending } = notYetPublished(places, remoteIds);
  const candidates =
    allow === null ? pending.candidates : pending.candidates.filter((c) => allow.has(c.sessionId));
  const unrelated = remoteIds.size > 0 && present === 0 && candidates.length > 0 && !opts.yes;
  if (unrelated && opts.dryRun !== true) await confirmUnrelated(opts, loc, remoteIds.size, candidates.length);
  const { held, byRule: heldBack } = await holdBack(store, candidates, { places });
  const keep = new Set<string>();
  const sessions = new Set<string>();
  const at: number[] = [];
  for (const c of candidates)
    if (!held.has(c.id)) {
      keep.add(c.id);
      sessions.add(c.sessionId);
      at.push(c.rowId);
    }
  const rowIds = Float64Array.from(at).sort();
  return { keep, rowIds, sessions: sessions.size, present, waitingForVectors, heldBack, unrelated };
}

/** The remote a push writes to: where it is, its head, and whether this push just created it. */
interface PushRemote {
  loc: HubLocation;
  client: HubClient;
  /** Offline only on a dry run. */
  head: RepoHead;
  created: boolean;
}

/**
 * Probes the remote's head: offline, unauthorized and a model repo are refusals; a missing dataset is
 * created with --create (not on a dry run), else a refusal that says how.
 */
async function probeRemote(opts: PushOptions, ctx: ReadContext): Promise<PushRemote> {
  const loc = hubLocation(opts.spec, ctx);
  const { client, head } =
    opts.dryRun === true ? await openHubOrOffline(loc, ctx) : await openHubForWrite(loc, "push", ctx);
  let created = false;
  if (head.kind === "missing") {
    if (!opts.create)
      throw new MemoryMissingError(
        "no_memory",
        `${loc.uri} doesn't exist on the Hub — run \`funes push ${opts.spec} --create\` to create it (private), or create the dataset repo first`,
      );
    if (opts.dryRun !== true) {
      requireToken(ctx.models.token, loc.uri);
      created = await createDataset(client, loc.repo, loc.uri);
    }
  }
  return { loc, client, head, created };
}

/**
 * The remote's memory to compare with: on a dry run, what is cached here (no request beyond the head
 * probe); else the view at the head, fetched as needed.
 */
async function remoteToCompare(
  opts: PushOptions,
  ctx: ReadContext,
  { loc, client, head }: PushRemote,
): Promise<{ view: SnapshotView | null; comparedWith: PushDryRun["comparedWith"] }> {
  if (opts.dryRun === true) {
    const atHead = head.kind === "found" ? cachedView(viewsRoot(ctx.funesHome), loc, head.sha) : null;
    const known = head.kind === "found" || head.kind === "offline";
    const view = atHead ?? (known ? newestView(viewsRoot(ctx.funesHome), loc) : null);
    const comparedWith = !known
      ? "new-repo"
      : atHead !== null
        ? "head"
        : view !== null
          ? "older-copy"
          : "nothing";
    return { view, comparedWith };
  }
  // Only a repo just created needs a second look at its head.
  const fresh = head.kind === "found" ? head : await fetchRepoHead(client, loc.repo);
  if (fresh.kind !== "found")
    throw new FunesError(
      "unreachable",
      `${loc.uri} could not be read right after creating it — run the push again`,
    );
  const view = await materializeView({
    client,
    hubCache: ctx.models.hubCache,
    viewsRoot: viewsRoot(ctx.funesHome),
    loc,
    sha: fresh.sha,
  });
  return { view, comparedWith: "head" };
}

/**
 * The embedded rows the remote lacks (their places), how many it already has, and how many rows still wait
 * for a vector (never published).
 */
function notYetPublished(
  places: RowPlace[],
  remoteIds: Set<string>,
): { candidates: RowPlace[]; present: number; waitingForVectors: number } {
  const candidates: RowPlace[] = [];
  let present = 0;
  let waitingForVectors = 0;
  for (const p of places) {
    if (!p.embedded) waitingForVectors++;
    else if (remoteIds.has(p.id)) present++;
    else candidates.push(p);
  }
  return { candidates, present, waitingForVectors };
}

/** A remote that shares no chunk with this memory (a new machine, or the wrong memory?) needs a yes. */
async function confirmUnrelated(
  opts: PushOptions,
  loc: HubLocation,
  remote: number,
  going: number,
): Promise<void> {
  const question = `${loc.uri} holds ${remote} chunks and shares none with your memory (a new machine, or the wrong memory?)`;
  if (
    opts.confirm === undefined ||
    !(await opts.confirm(`${question} — publish ${going} chunks there anyway?`))
  )
    throw new FunesError(
      "declined",
      `${question} — nothing was published; re-run with --yes to publish anyway`,
    );
}

/** Publishes the rows in one commit (compare-and-swap); the publish's failures said by meaning. */
async function publish(
  rows: LocalRows,
  { loc, client }: PushRemote,
  opts: PushOptions,
  ctx: ReadContext,
): Promise<Pick<PushSummary, "commit" | "published" | "files" | "bytes" | "attempts" | "card">> {
  requireToken(ctx.models.token, loc.uri);
  let result: Awaited<ReturnType<typeof publishRows>>;
  try {
    result = await publishRows({
      loc,
      client,
      hubCache: ctx.models.hubCache,
      funesHome: ctx.funesHome,
      rows,
      now: opts.now,
      onProgress: opts.onUpload,
      forgottenHere: () => locallyForgottenIds(ctx.funesHome),
    });
  } catch (err) {
    if (err instanceof HubReadOnlyError) throw readOnlyError(loc.uri, "publishing");
    if (err instanceof PublishUnreachableError)
      throw new FunesError(
        "unreachable",
        `${loc.uri} became unreachable while pushing (${err.message}) — nothing was committed and the remote is unchanged; run the push again once you're back online`,
        err,
      );
    if (err instanceof ForgottenFileError) throw new FunesError("bad_input", err.message);
    if (err instanceof PublishConflictError)
      throw new FunesError(
        "busy",
        `${loc.uri}: ${err.message} (others are publishing) — nothing was committed; run the push again in a moment`,
      );
    throw err;
  }
  return {
    commit: result.commit,
    published: result.added,
    files: result.files,
    bytes: result.bytes,
    attempts: result.attempts,
    card: result.card,
  };
}

/** `$FUNES_HOME/pushed/<owner>--<name>[--prefix].json`: the last push of this memory to that remote. */
function receiptPath(funesHome: string, loc: HubLocation): string {
  return join(funesHome, "pushed", `${remoteFileName(loc)}.json`);
}

/** The last push from this machine to a Hub memory (by its URI), or null. */
export function readReceipt(
  funesHome: string,
  uri: string,
): { commit: string | null; published: number; at: string } | null {
  try {
    const r = JSON.parse(readFileSync(receiptPath(funesHome, parseHubUri(uri)), "utf8")) as {
      commit?: unknown;
      published?: unknown;
      at?: unknown;
    };
    if (typeof r.at !== "string") return null;
    return {
      commit: typeof r.commit === "string" ? r.commit : null,
      published: Number(r.published ?? 0),
      at: r.at,
    };
  } catch {
    return null;
  }
}

function writeReceipt(funesHome: string, loc: HubLocation, s: PushSummary, now: number): void {
  mkdirSync(join(funesHome, "pushed"), { recursive: true });
  writeFileSync(
    receiptPath(funesHome, loc),
    `${JSON.stringify({ uri: loc.uri, commit: s.commit, published: s.published, at: new Date(now).toISOString() }, null, 2)}\n`,
  );
}
