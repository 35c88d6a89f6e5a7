/**
 * Forgetting rows of a Hub memory, through the same compare-and-swap as publishing
 * (docs/publish-protocol.md#forgetting-on-the-hub): stage a copy of the remote at its head S, delete the
 * selected rows there (Lance writes deletion files, a transaction and a manifest: new files only), add the
 * ids to the forgotten-ids file beside the table, refresh the card's stats, and commit with `parentCommit =
 * S`. A 412 means someone published meanwhile: refresh, select again on the new head, retry.
 *
 * With `purgeHistory`, the rows also leave the repo's history: the fragments that held them are written
 * again without them, the text index is rebuilt, every older version's files are deleted in the same commit,
 * and then the branch is squashed into that one commit (old commit ids stop resolving).
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adoptAsView, pruneCache, removeStaleStages, stageEtags, stageFrom } from "../cache/index.js";
import {
  cardCountsIn,
  deleteIdsIn,
  type ForgetCandidate,
  forgetCandidateRows,
  LocalStore,
  purgeForgottenIn,
} from "../local/index.js";
import { reachStep, remoteForgottenPath, renderRemoteForgotten, viewsRoot } from "../memory/index.js";
import {
  commitFiles,
  fetchRepoHead,
  type HubClient,
  lancePath,
  listTree,
  superSquash,
} from "../remote/index.js";
import { type CasOptions, cardFile, compareAndSwap, listedAfter, stageUploads } from "./publish.js";
import { remoteForgottenIds } from "./remote-forgotten.js";

/** The forget was committed but squashing the history failed: the head is clean, older commits are not. */
export class HistoryNotSquashedError extends Error {
  constructor(
    readonly commit: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a Hub forget is about to do, for the preview. */
export interface HubForgetPlan {
  /** The head it was computed on. */
  sha: string;
  selected: ForgetCandidate[];
  /** Rows the memory keeps. */
  remaining: number;
  /** Files the commit adds and deletes, and the bytes it uploads. */
  adds: number;
  deletes: number;
  bytes: number;
  /** Purge only: rows written again because they shared a data file with a forgotten row. */
  rewritten: number;
}

/** What a Hub forget did. */
export interface HubForgetResult {
  plan: HubForgetPlan | null;
  /** False when the confirmation was declined (nothing changed). */
  done: boolean;
  commit: string | null;
  /** The squashed head (purge only). */
  squashed: string | null;
  attempts: number;
  card: "created" | "refreshed" | "unchanged" | "hand-written" | "unreadable" | "none";
}

/** Options of a Hub forget. */
export interface HubForgetOptions extends CasOptions {
  /** Picks the ids to forget among the head's rows (run again on each new head). */
  select: (rows: ForgetCandidate[]) => ForgetCandidate[];
  purgeHistory: boolean;
  /** Asked once, with the first plan; false cancels. */
  confirm: (plan: HubForgetPlan) => Promise<boolean>;
}

/** Forgets the selected rows of a Hub memory in one commit (see the file header). */
export async function forgetRemoteRows(o: HubForgetOptions): Promise<HubForgetResult> {
  // Stages of forgets and pushes that were killed hold copies of rows (the forgotten ones too): gone first.
  removeStaleStages(join(o.funesHome, "staging"));
  let confirmed = false;
  return compareAndSwap(o, async ({ attempt, sha: head, view }) => {
    const none = { done: true, commit: null, squashed: null, attempts: attempt, card: "none" as const };
    if (view === null) return { plan: null, ...none };
    const store = await LocalStore.open(view.dir);
    const rows = store === null ? [] : await forgetCandidateRows(store);
    store?.close();
    const selected = o.select(rows);
    const forgotten = await remoteForgottenIds(o.client, o.loc, head);
    const plan: HubForgetPlan = {
      sha: head,
      selected,
      remaining: rows.length - selected.length,
      adds: 0,
      deletes: 0,
      bytes: 0,
      rewritten: 0,
    };
    // A purge also rewrites what earlier forgets only hid; a plain forget of nothing has nothing to do.
    if (selected.length === 0 && (!o.purgeHistory || forgotten.size === 0)) return { plan, ...none };
    const ids = new Set(selected.map((r) => r.id));
    const stage = stageFrom(
      view.dir,
      join(o.funesHome, "staging", `${process.pid}-forget-${attempt}-${head.slice(0, 8)}`),
    );
    try {
      if (o.purgeHistory) plan.rewritten = (await purgeForgottenIn(stage.dir, ids, o.now)).rewritten;
      else await deleteIdsIn(stage.dir, [...ids]);
      const files = await stageUploads(stage, o.loc);
      // Against the repo's listing, not the cached copy: a pruned cache may lack files the repo still has.
      const base = lancePath(o.loc);
      const deletions = o.purgeHistory
        ? (await listTree({ client: o.client, repo: o.loc.repo, sha: head, folder: base }))
            .map((f) => f.path)
            .filter((p) => !existsSync(join(stage.dir, "chunks.lance", p.slice(base.length + 1))))
        : [];
      for (const id of ids) forgotten.add(id);
      files.push({ path: remoteForgottenPath(o.loc), content: new Blob([renderRemoteForgotten(forgotten)]) });
      const card = await cardFile(o, head, await cardCountsIn(stage.dir));
      if (card.file !== undefined) files.push(card.file);
      plan.adds = files.length;
      plan.deletes = deletions.length;
      plan.bytes = files.reduce((n, f) => n + f.content.size, 0);
      reachStep("forget:hub-staged");
      if (!confirmed) {
        if (!(await o.confirm(plan))) return { plan, ...none, done: false };
        confirmed = true;
      }
      const commit = await commitFiles({
        client: o.client,
        repo: o.loc.repo,
        parentCommit: head,
        title: `funes forget: -${selected.length} chunks${o.purgeHistory ? " (history purged)" : ""}`,
        files,
        deletions,
      });
      let squashed: string | null = null;
      if (o.purgeHistory) {
        try {
          squashed =
            (await superSquash({
              client: o.client,
              repo: o.loc.repo,
              message: `funes forget --purge-history: -${selected.length} chunks`,
            })) ?? (await headSha(o.client, o.loc.repo));
        } catch (err) {
          throw new HistoryNotSquashedError(commit, err instanceof Error ? err.message : String(err));
        }
      }
      adoptAsView(stage.dir, viewsRoot(o.funesHome), o.loc, squashed ?? commit, {
        etags: stageEtags(stage, view.dir),
        listed: listedAfter(view.listed, files, deletions.length, o.loc),
      });
      // This machine's copies of the commits the squash erased go too (they hold the forgotten rows).
      if (o.purgeHistory) await pruneCache(viewsRoot(o.funesHome), o.hubCache, o.loc.repo);
      return { plan, done: true, commit, squashed, attempts: attempt, card: card.state };
    } finally {
      rmSync(stage.dir, { recursive: true, force: true });
    }
  });
}

async function headSha(client: HubClient, repo: string): Promise<string | null> {
  const h = await fetchRepoHead({ client, repo });
  return h.kind === "found" ? h.sha : null;
}
