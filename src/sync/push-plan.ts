/**
 * What a push needs from the memories on both ends, so that `commands/push.ts` decides and this module reads:
 * the remote's head (read once: the publish's first try starts from it), the remote's chunks to compare with,
 * the local memory pinned at one version, the rows going (minus what the secret gate holds back), and the
 * publish itself with its failures said by meaning.
 */
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
  ForgottenFileError,
  FunesError,
  funesPaths,
  locallyForgottenIds,
  readOnlyError,
  viewsRoot,
} from "../memory/index.js";
import {
  fetchRepoHead,
  type HubClient,
  type HubLocation,
  HubReadOnlyError,
  type RepoHead,
} from "../remote/index.js";
import { forgetRemoteRows } from "./forget-publish.js";
import { openHubForWrite, openHubOrOffline } from "./hub-write.js";
import { type PublishResult, publishRows } from "./publish.js";
import { PublishConflictError, PublishUnreachableError } from "./publish-errors.js";
import { holdBack } from "./secret-blocks.js";

/** The remote a push writes to: where it is, its head, and whether this push just created it. */
export interface PushRemote {
  loc: HubLocation;
  client: HubClient;
  /** Offline only on a dry run. */
  head: Exclude<RepoHead, { kind: "unauthorized" }>;
  created: boolean;
}

/**
 * Reads the remote's head, the one head read of a push (unless it creates the repo, or a conflict makes
 * its publish try again): offline, unauthorized and a model repo are refusals; on a dry run an unreachable
 * Hub is returned, not thrown. A missing dataset is the caller's to create or refuse.
 */
export async function probePushRemote(
  loc: HubLocation,
  ctx: ReadContext,
  dryRun: boolean,
): Promise<PushRemote> {
  const { client, head } = dryRun
    ? await openHubOrOffline(loc, ctx)
    : await openHubForWrite(loc, "push", ctx);
  return { loc, client, head, created: false };
}

/** What the remote's chunks were compared with (see `PushDryRun.comparedWith`). */
export type ComparedWith = "head" | "older-copy" | "nothing" | "new-repo";

/** The remote's memory a push compares with and, on a real push, starts its publish from. */
export interface PushBase {
  view: SnapshotView | null;
  /** The ids it holds. */
  remoteIds: Set<string>;
  comparedWith: ComparedWith;
  /** The head the view is of (null on a dry run): the publish's first try commits on it. */
  sha: string | null;
}

/**
 * The remote's memory to compare with: on a dry run, what is cached here (no request beyond the head
 * probe); else the view at the head, fetched as needed.
 */
export async function pushBase(
  { loc, client, head }: PushRemote,
  ctx: ReadContext,
  dryRun: boolean,
): Promise<PushBase> {
  const root = viewsRoot(ctx.funesHome);
  if (dryRun) {
    const atHead = head.kind === "found" ? cachedView(root, loc, head.sha) : null;
    const known = head.kind === "found" || head.kind === "offline";
    const view = atHead ?? (known ? newestView(root, loc) : null);
    const comparedWith = !known
      ? "new-repo"
      : atHead !== null
        ? "head"
        : view !== null
          ? "older-copy"
          : "nothing";
    return { view, remoteIds: await idsOf(view), comparedWith, sha: null };
  }
  // Only a repo just created needs a second look at its head.
  const fresh = head.kind === "found" ? head : await fetchRepoHead({ client, repo: loc.repo });
  if (fresh.kind !== "found")
    throw new FunesError(
      "unreachable",
      `${loc.uri} could not be read right after creating it — run the push again`,
    );
  const view = await materializeView({
    client,
    hubCache: ctx.models.hubCache,
    viewsRoot: root,
    loc,
    sha: fresh.sha,
  });
  return { view, remoteIds: await idsOf(view), comparedWith: "head", sha: fresh.sha };
}

async function idsOf(view: SnapshotView | null): Promise<Set<string>> {
  return view === null ? new Set<string>() : idsIn(view.dir);
}

/**
 * Runs `read` on the local memory pinned at its current version, so that every read of a push sees one
 * version (the rows published are the rows the gate scanned). A read that failed because an index run
 * compacted the memory meanwhile, or a forget took rows out of it (either way the pinned version is gone,
 * and its files with it), is a busy memory, said as which it was.
 */
export async function withPinnedLocal<T>(
  funesHome: string,
  read: (store: LocalStore) => Promise<T>,
): Promise<T> {
  const store = await LocalStore.open(funesPaths(funesHome).memory);
  if (store === null)
    throw new FunesError("no_memory", "no local index yet — run `funes index` first, then push");
  let pinned: number | null = null;
  const forgotten = { before: new Set<string>(), now: () => locallyForgottenIds(funesHome) };
  try {
    forgotten.before = forgotten.now();
  } catch {
    // a damaged list is the push's own to refuse, when it reads it
  }
  try {
    pinned = await pinVersion(store);
    return await read(store);
  } catch (err) {
    throw (await compactedUnderPush(err, store, pinned, forgotten)) ?? err;
  } finally {
    store.close();
  }
}

async function compactedUnderPush(
  err: unknown,
  store: LocalStore,
  pinned: number | null,
  forgotten: { before: Set<string>; now: () => Set<string> },
): Promise<FunesError | null> {
  if (err instanceof FunesError || pinned === null) return null;
  const kept = await versionKept(store, pinned).catch(() => true);
  if (kept) return null;
  // A forget removes every older version's files too: which write it was is told by the forgotten ids.
  let now: Set<string>;
  try {
    now = forgotten.now();
  } catch {
    now = forgotten.before;
  }
  if ([...now].some((id) => !forgotten.before.has(id)))
    return new FunesError(
      "busy",
      "a forget took rows out of the local memory while this push was reading it, and nothing was committed — run `funes push` again (it leaves the forgotten rows out)",
      err,
    );
  return new FunesError(
    "busy",
    "an index run compacted the local memory while this push was reading it — run `funes push` again (it sends only what the Hub still lacks)",
    err,
  );
}

/** What a push sends, found from the rows' places; only the ids kept outlive it (not every row's place). */
export interface RowsGoing {
  /** The rows to publish: the kept ids, read from their places (`_rowid`, ascending) when published. */
  rows: LocalRows;
  /** Sessions the kept rows belong to. */
  sessions: number;
  present: number;
  waitingForVectors: number;
  heldBack: Record<string, number>;
  /** The remote shares no chunk with this memory (asked first, unless --yes). */
  unrelated: boolean;
  /** Uncompressed bytes of the kept rows; counted on a dry run only (null otherwise). */
  bytes: number | null;
}

/**
 * The embedded rows the remote lacks, within the publish scope (`allow`: sessions, or null for all), minus
 * what the secret gate holds back. A remote that shares no chunk is confirmed first (`confirmUnrelated`,
 * not on a dry run; it throws to refuse), unless `yes`.
 */
export async function rowsGoing(
  store: LocalStore,
  remoteIds: Set<string>,
  allow: Set<string> | null,
  o: { yes: boolean; dryRun: boolean; confirmUnrelated: (remote: number, going: number) => Promise<void> },
): Promise<RowsGoing> {
  const places = await rowPlaces(store);
  const { present, waitingForVectors, ...pending } = notYetPublished(places, remoteIds);
  const candidates =
    allow === null ? pending.candidates : pending.candidates.filter((c) => allow.has(c.sessionId));
  const unrelated = remoteIds.size > 0 && present === 0 && candidates.length > 0 && !o.yes;
  if (unrelated && !o.dryRun) await o.confirmUnrelated(remoteIds.size, candidates.length);
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
  const rows: LocalRows = { store, ids: keep, rowIds: Float64Array.from(at).sort() };
  return {
    rows,
    sessions: sessions.size,
    present,
    waitingForVectors,
    heldBack,
    unrelated,
    bytes: o.dryRun ? await rowBytes(rows) : null,
  };
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

/** Rows a push published that a local forget took out while its commit request was under way, taken back. */
export interface TookBack {
  rows: number;
  /** The forget's commit on the Hub; null when taking them back failed (`error` says why). */
  commit: string | null;
  error: string | null;
}

/**
 * A forget wins over a push in flight: rows the push's commit published that a local forget took out while
 * the request was under way (seen just after it) are forgotten on the Hub at once, in a commit of their own
 * (and listed in its forgotten ids, so no push brings them back). Null when there were none.
 */
async function takeBack(
  r: PublishResult,
  remote: Pick<PushRemote, "loc" | "client">,
  o: { ctx: ReadContext; now: () => number },
): Promise<TookBack | null> {
  const ids = new Set(r.forgottenMeanwhile ?? []);
  if (ids.size === 0) return null;
  try {
    const done = await forgetRemoteRows({
      loc: remote.loc,
      client: remote.client,
      hubCache: o.ctx.models.hubCache,
      funesHome: o.ctx.funesHome,
      now: o.now,
      select: (candidates) => candidates.filter((c) => ids.has(c.id)),
      purgeHistory: false,
      confirm: async () => true,
    });
    return { rows: ids.size, commit: done.commit, error: null };
  } catch (err) {
    return { rows: ids.size, commit: null, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Publishes the rows in one commit (compare-and-swap), its first try on the head `base` was read at; the
 * publish's failures said by meaning.
 */
export async function publishPush(
  rows: LocalRows,
  { loc, client }: PushRemote,
  base: PushBase,
  o: { ctx: ReadContext; now: () => number; onUpload?: ((sent: number, total: number) => void) | undefined },
): Promise<PublishResult & { tookBack: TookBack | null }> {
  try {
    const r = await publishRows({
      loc,
      client,
      hubCache: o.ctx.models.hubCache,
      funesHome: o.ctx.funesHome,
      rows,
      now: o.now,
      onProgress: o.onUpload,
      forgottenHere: () => locallyForgottenIds(o.ctx.funesHome),
      ...(base.sha === null ? {} : { start: { sha: base.sha, view: base.view } }),
    });
    return { ...r, tookBack: await takeBack(r, { loc, client }, o) };
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
}
