/**
 * Compacting a Hub memory (docs/publish-protocol.md, "Compaction"): every push adds a data file, a manifest
 * and a transaction file, so a memory a team publishes to each turn grows by thousands of files a month. A
 * compaction is a commit of its own through the same compare-and-swap as a push: stage the head, fold its
 * newest small fragments into one (local/fold.ts: a size-tiered rule, never Lance's `optimize()`, which
 * would write the whole table again), bring the text index up to date, and commit the new files with the
 * deletion of every file the new version does not need, with `parentCommit` = that head. A push or forget
 * that lands first makes it a 412: it is done again on the new head. Nothing forgotten comes back: the
 * stage is the head, which lacks the forgotten rows, and any row the head still holds whose id its
 * forgotten list names is deleted too. The repo's history keeps every older commit (no squash), so a
 * reader at an old commit keeps reading it until it moves.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adoptAsView, cachedView, removeStaleStages, stageEtags, stageFrom } from "../cache/index.js";
import { cardCountsIn, type FoldResult, foldFragmentsIn, TABLE_FOLDERS } from "../local/index.js";
import { reachStep, viewsRoot } from "../memory/index.js";
import { commitFiles, type HubClient, type HubLocation, lancePath, listTree } from "../remote/index.js";
import { type CasOptions, cardFile, compareAndSwap, stageUploads } from "./publish.js";
import { PublishConflictError } from "./publish-errors.js";
import { remoteForgottenIds } from "./remote-forgotten.js";

/**
 * Files under a memory's folder past which a push compacts it. The Hub advises fewer than 10,000 entries
 * per folder and 100,000 files per repo (docs/publish-protocol.md); a push adds three files (one each to
 * `data/`, `_versions/`, `_transactions/`), so a memory compacted at 1,000 stays far below both, and a
 * compaction comes every ~300 pushes.
 */
export const COMPACT_AT_FILES = 1_000;

/** Compaction options. */
export interface CompactOptions extends CasOptions {
  /** Fold and count, commit nothing. */
  dryRun?: boolean | undefined;
  /**
   * Leave a head listing at most this many files under the memory's folder as it is (another machine
   * compacted it meanwhile).
   */
  onlyAbove?: number | undefined;
  /** Rows from which a fragment is full (tests fold small memories). */
  fullRows?: number | undefined;
}

/** What a compaction did (or, on a dry run, would do). */
export interface CompactResult {
  /** The head it compacted (or would). */
  sha: string;
  /** The compaction's commit; null on a dry run or when there was nothing to do. */
  commit: string | null;
  dryRun: boolean;
  /** Files under the memory's folder before and after. */
  filesBefore: number;
  filesAfter: number;
  uploads: number;
  deletions: number;
  /** Bytes uploaded. */
  bytes: number;
  fold: FoldResult;
  attempts: number;
}

/** Compacts the Hub memory at `o.loc` (see the file header); null when the remote holds no memory. */
export async function compactRemote(o: CompactOptions): Promise<CompactResult | null> {
  removeStaleStages(join(o.funesHome, "staging"));
  return compareAndSwap(o, async ({ attempt, sha: head, view }) => {
    if (view === null) return null;
    const base = lancePath(o.loc);
    const listing = await listTree({ client: o.client, repo: o.loc.repo, sha: head, folder: base });
    if (o.onlyAbove !== undefined && listing.length <= o.onlyAbove) return null;
    const forgotten = await remoteForgottenIds(o.client, o.loc, head);
    const stage = stageFrom(
      view.dir,
      join(o.funesHome, "staging", `${process.pid}-compact-${attempt}-${head.slice(0, 8)}`),
    );
    try {
      const fold = await foldFragmentsIn(stage.dir, { forgotten, fullRows: o.fullRows });
      const files = await stageUploads(stage, o.loc);
      // Against the repo's listing (a slim view never held older versions' files, which go too), and only
      // in Lance's own folders: a file someone put beside them is not the compaction's to remove.
      const deletions = listing
        .map((f) => f.path.slice(base.length + 1))
        .filter((rel) => TABLE_FOLDERS.some((d) => rel.startsWith(`${d}/`)))
        .filter((rel) => !existsSync(join(stage.dir, "chunks.lance", rel)))
        .map((rel) => `${base}/${rel}`);
      const r: CompactResult = {
        sha: head,
        commit: null,
        dryRun: o.dryRun === true,
        filesBefore: listing.length,
        filesAfter: listing.length - deletions.length + files.length,
        uploads: files.length,
        deletions: deletions.length,
        bytes: files.reduce((n, f) => n + f.content.size, 0),
        fold,
        attempts: attempt,
      };
      if ((files.length === 0 && deletions.length === 0) || o.dryRun === true) return r;
      // Rows it found forgotten but still there change what the card counts.
      if (fold.forgottenRemoved > 0) {
        const card = await cardFile(o, head, await cardCountsIn(stage.dir));
        if (card.file !== undefined) files.push(card.file);
      }
      reachStep("compact:staged");
      r.commit = await commitFiles({
        client: o.client,
        repo: o.loc.repo,
        parentCommit: head,
        title: `funes compact: ${r.filesBefore} → ${r.filesAfter} files, ${fold.fragmentsBefore} → ${fold.fragmentsAfter} fragments`,
        files,
        deletions,
      });
      adoptAsView(stage.dir, viewsRoot(o.funesHome), o.loc, r.commit, {
        etags: stageEtags(stage, view.dir),
        listed: r.filesAfter,
        hubCache: o.hubCache,
      });
      return r;
    } finally {
      rmSync(stage.dir, { recursive: true, force: true });
    }
  });
}

/** What a push's compaction came to, for its summary. */
export type CompactNote =
  | { kind: "compacted"; commit: string; filesBefore: number; filesAfter: number }
  | { kind: "not-compacted"; reason: string };

/**
 * After a push landed as `sha`: compacts the memory when its head lists more than `atFiles` files under the
 * memory's folder (`headFiles`, or a listing when unknown). Best-effort: a failure or a race lost to other
 * publishers is a note, never a failed push (the next push tries again). Null when no compaction was due
 * (or another machine did it first).
 */
export async function compactAfterPush(o: {
  loc: HubLocation;
  client: HubClient;
  hubCache: string;
  funesHome: string;
  now: () => number;
  sha: string;
  headFiles: number | null;
  atFiles: number;
}): Promise<CompactNote | null> {
  if (o.atFiles <= 0) return null;
  try {
    const files =
      o.headFiles ??
      (await listTree({ client: o.client, repo: o.loc.repo, sha: o.sha, folder: lancePath(o.loc) })).length;
    if (files <= o.atFiles) return null;
    // The push kept its stage as the view of its commit: the compaction starts there, nothing downloaded.
    const view = cachedView(viewsRoot(o.funesHome), o.loc, o.sha);
    const r = await compactRemote({
      loc: o.loc,
      client: o.client,
      hubCache: o.hubCache,
      funesHome: o.funesHome,
      now: o.now,
      maxAttempts: 3,
      onlyAbove: o.atFiles,
      ...(view === null ? {} : { start: { sha: o.sha, view } }),
    });
    if (r === null || r.commit === null) return null;
    return { kind: "compacted", commit: r.commit, filesBefore: r.filesBefore, filesAfter: r.filesAfter };
  } catch (err) {
    if (err instanceof PublishConflictError)
      return { kind: "not-compacted", reason: "others kept publishing meanwhile" };
    return { kind: "not-compacted", reason: err instanceof Error ? err.message : String(err) };
  }
}
