/**
 * Append-only, compare-and-swap publishing (docs/publish-protocol.md): stage a copy of the remote at
 * its head S, add only the rows it lacks, and commit exactly the files that adds with `parentCommit = S`. If
 * anyone published in between, the Hub refuses (412): refresh to the new head, recompute, retry after a
 * jittered wait. No commit ever rewrites an existing path, so every commit leaves a readable memory and two
 * publishers end with the union of their rows.
 */
import { openAsBlob, rmSync } from "node:fs";
import { join } from "node:path";
import {
  addedFiles,
  adoptAsView,
  materializeView,
  removeStaleStages,
  type SnapshotView,
  type Stage,
  stageEtags,
  stageFrom,
} from "../cache/index.js";
import { mergeCard } from "../card/index.js";
import {
  type ArrowTable,
  appendMissing,
  cardCountsIn,
  EMBEDDING_MODEL,
  type LocalRows,
  nameProject,
  refreshTextIndex,
  refreshVectorIndex,
} from "../local/index.js";
import { reachStep, viewsRoot } from "../memory/index.js";
import {
  commitFiles,
  fetchRepoHead,
  type HubClient,
  HubCommitUnreachableError,
  HubConflictError,
  type HubLocation,
  lancePath,
  readRepoText,
  type UploadProgress,
} from "../remote/index.js";
import { PublishConflictError, PublishUnreachableError } from "./publish-errors.js";
import { type PublishTurn, takePublishTurn } from "./publish-turn.js";
import { idsOf, withoutIds, withoutRemoteForgotten } from "./remote-forgotten.js";

/** What a publish did. */
export interface PublishResult {
  /** The new commit, or null when the remote already had every row. */
  commit: string | null;
  /** Files the head now lists under the memory's folder (what compaction goes by), when known. */
  headFiles: number | null;
  added: number;
  files: number;
  bytes: number;
  attempts: number;
  /** What happened to the dataset card (root memories only). */
  card: "created" | "refreshed" | "unchanged" | "hand-written" | "unreadable" | "none";
  /**
   * Ids the commit published that a local forget took out while its request was under way (the caller
   * takes them back out of the Hub).
   */
  forgottenMeanwhile?: string[];
}

/** What every compare-and-swap commit needs: the remote, this machine's cache, and how to retry. */
export interface CasOptions {
  loc: HubLocation;
  client: HubClient;
  hubCache: string;
  funesHome: string;
  /** Tries before giving up on a remote that keeps moving (≥ concurrent writers + 2). */
  maxAttempts?: number;
  /** Waits between tries, ms (injected by tests). */
  sleep?: (ms: number) => Promise<void>;
  /** ms since the epoch (the card's date). */
  now: () => number;
  /**
   * The head the caller read already and its view: the first try starts from it instead of reading the
   * head again (a conflict's retry reads the new head).
   */
  start?: { sha: string; view: SnapshotView | null } | undefined;
}

/** One try of a compare-and-swap commit: the head it starts from and this machine's view of it. */
export interface CasAttempt {
  attempt: number;
  sha: string;
  /** Null when the remote holds no memory yet. */
  view: SnapshotView | null;
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The compare-and-swap every publishing commit goes through (push, curate, forget): resolve the head (or
 * take the one the caller read, `start`), read it, run `attempt` against it (which commits with `parentCommit` = that head). A 412 means someone
 * published in between: wait (jittered, capped exponential backoff, so concurrent publishers spread out)
 * and run it again on the new head, up to `maxAttempts` times.
 */
export async function compareAndSwap<T>(o: CasOptions, attempt: (a: CasAttempt) => Promise<T>): Promise<T> {
  const max = o.maxAttempts ?? 12;
  const sleep = o.sleep ?? wait;
  for (let n = 1; ; n++) {
    const { sha, view } = n === 1 && o.start !== undefined ? o.start : await headView(o);
    try {
      return await attempt({ attempt: n, sha, view });
    } catch (err) {
      if (err instanceof HubCommitUnreachableError)
        throw new PublishUnreachableError(err.message, { cause: err });
      if (!(err instanceof HubConflictError)) throw err;
      if (n >= max) throw new PublishConflictError(max);
      await sleep(Math.random() * Math.min(4000, 100 * 2 ** n));
    }
  }
}

/** The remote's head now and this machine's view of it; an unreachable or vanished remote fails the publish. */
async function headView(o: CasOptions): Promise<{ sha: string; view: SnapshotView | null }> {
  const head = await fetchRepoHead({ client: o.client, repo: o.loc.repo });
  if (head.kind !== "found")
    throw new PublishUnreachableError(head.kind === "offline" ? head.reason : head.kind);
  const view = await materializeView({
    client: o.client,
    hubCache: o.hubCache,
    viewsRoot: viewsRoot(o.funesHome),
    loc: o.loc,
    sha: head.sha,
  });
  return { sha: head.sha, view };
}

/**
 * The files a stage added, as uploads to the memory's folder in the repo. Each is a Blob backed by its file
 * (read when sent, not now): a first push of a large memory adds gigabytes of files, which read into memory
 * at once took more than the rows did.
 */
export async function stageUploads(
  stage: Stage,
  loc: HubLocation,
): Promise<{ path: string; content: Blob }[]> {
  const base = lancePath(loc);
  return Promise.all(
    addedFiles(stage).map(async (rel) => ({
      path: `${base}/${rel.slice("chunks.lance/".length)}`,
      content: await openAsBlob(join(stage.dir, rel)),
    })),
  );
}

/**
 * Files a commit leaves under the memory's folder: `before` (what its parent listed there; unknown stays
 * unknown), plus the `files` it adds there, less the `deletions`.
 */
export function listedAfter(
  before: number | undefined,
  files: readonly { path: string }[],
  deletions: number,
  loc: HubLocation,
): number | null {
  if (before === undefined) return null;
  const base = `${lancePath(loc)}/`;
  return before + files.filter((f) => f.path.startsWith(base)).length - deletions;
}

/** Publishing options. */
export interface PublishOptions extends CasOptions {
  /** The rows: a table, or rows of the local memory read as they are written (a push's, however many). */
  rows: ArrowTable | LocalRows;
  /** Upload progress of each attempt's commit. */
  onProgress?: UploadProgress | undefined;
  /** For a remote with no memory yet: create it as the project memory of this `owner/name`. */
  project?: string | undefined;
  /**
   * The ids forgotten on this machine (`locallyForgottenIds`), read as each try begins and again just
   * before its commit: rows a local forget took out are never published, even by a push already under way.
   */
  forgottenHere?: (() => Set<string>) | undefined;
}

/**
 * The most of a dataset card read (funes writes ~1 KB; a hand-written one is a page or two): a larger one is
 * left alone, as an unreadable one is.
 */
const MAX_CARD_BYTES = 1024 * 1024;

/**
 * The card to commit with the data (a push's, a forget's): created, its stats refreshed, or none (a memory
 * under a prefix has no card of its own; a hand-written or unreadable card is left alone).
 */
export async function cardFile(
  o: Pick<CasOptions, "client" | "loc" | "now">,
  sha: string,
  counts: { chunks: number; byHarness: { harness: string; sessions: number }[] },
): Promise<{ state: PublishResult["card"]; file?: { path: string; content: Blob } }> {
  if (o.loc.prefix !== "") return { state: "none" };
  let current: string | null;
  try {
    current = await readRepoText({
      client: o.client,
      repo: o.loc.repo,
      sha,
      path: "README.md",
      maxBytes: MAX_CARD_BYTES,
    });
  } catch {
    // An unreadable card cannot be told from a hand-written one: leave it alone.
    return { state: "unreadable" };
  }
  const merged = mergeCard(current, {
    repo: o.loc.repo,
    chunks: counts.chunks,
    agents: counts.byHarness,
    embeddingModel: EMBEDDING_MODEL,
    date: new Date(o.now()).toISOString().slice(0, 10),
  });
  if (merged.text === null) return { state: merged.action };
  return { state: merged.action, file: { path: "README.md", content: new Blob([merged.text]) } };
}

/** Publishes `rows` (those the remote lacks) in one commit, retrying on conflicts. */
export async function publishRows(o: PublishOptions): Promise<PublishResult> {
  // Stages of pushes that were killed mid-way are removed here, by the next push.
  removeStaleStages(join(o.funesHome, "staging"));
  return compareAndSwap(o, async (a) => {
    for (;;) {
      const r = await publishOnce(o, a);
      if (r !== "restage") return r;
    }
  });
}

/**
 * One try against the head of `a`; "restage" when a local forget finished while it staged (its rows were
 * in the stage: it is built again without them).
 */
async function publishOnce(o: PublishOptions, { attempt, sha: head, view }: CasAttempt) {
  const stage = stageFrom(
    view?.dir ?? null,
    join(o.funesHome, "staging", `${process.pid}-${attempt}-${head.slice(0, 8)}`),
  );
  try {
    // Rows a `funes forget` took out of this remote never come back, whoever pushes them; nor do rows
    // forgotten here.
    const here = o.forgottenHere?.() ?? new Set<string>();
    const rows = withoutIds(await withoutRemoteForgotten(o.client, o.loc, head, o.rows), here);
    const { added, created } = await appendMissing(stage.dir, rows, o.project);
    const renamed = o.project !== undefined && !created ? await nameProject(stage.dir, o.project) : false;
    if (added === 0 && !created && !renamed) {
      rmSync(stage.dir, { recursive: true, force: true });
      return {
        commit: null,
        headFiles: view?.listed ?? null,
        added: 0,
        files: 0,
        bytes: 0,
        attempts: attempt,
        card: "none" as const,
      };
    }
    await refreshTextIndex(stage.dir);
    await refreshVectorIndex(stage.dir);
    const files = await stageUploads(stage, o.loc);
    const card = await cardFile(o, head, await cardCountsIn(stage.dir));
    if (card.file !== undefined) files.push(card.file);
    reachStep("push:staged");
    // A forget that finished while this staged: staged again without its rows, before anything is sent.
    if (o.forgottenHere !== undefined && forgottenSince(o.forgottenHere(), here, rows).length > 0) {
      rmSync(stage.dir, { recursive: true, force: true });
      return "restage" as const;
    }
    // The ids forgotten here are read again once the uploads are done, just before the commit request
    // (a forget that finished meanwhile: staged again without its rows), and once more right after it (a
    // forget that began while the request was under way: its rows are taken back), holding the publish
    // turn from one look to the other so a forget knows a push was committing (publish-turn.ts).
    let turn: PublishTurn | null = null;
    let sha: string;
    let late: string[] = [];
    try {
      sha = await commitFiles({
        client: o.client,
        repo: o.loc.repo,
        parentCommit: head,
        title:
          (created || renamed) && added === 0 && o.project !== undefined
            ? `funes curate: project memory of ${o.project}`
            : `funes push: +${added} chunks`,
        files,
        onProgress: o.onProgress,
        beforeCommit:
          o.forgottenHere === undefined
            ? undefined
            : async () => {
                reachStep("push:uploaded");
                turn = await takePublishTurn(o.funesHome, o.loc.uri);
                if (forgottenSince(o.forgottenHere?.() ?? here, here, rows).length > 0) throw RESTAGE;
                reachStep("push:committing");
              },
      });
      if (o.forgottenHere !== undefined) late = forgottenSince(o.forgottenHere(), here, rows);
    } catch (err) {
      if (err !== RESTAGE) throw err;
      rmSync(stage.dir, { recursive: true, force: true });
      return "restage" as const;
    } finally {
      await (turn as PublishTurn | null)?.release();
    }
    // The stage is now that commit's newest version: keep it as its view, so nothing is downloaded to read it.
    const headFiles = listedAfter(view === null ? 0 : view.listed, files, 0, o.loc);
    adoptAsView(stage.dir, viewsRoot(o.funesHome), o.loc, sha, {
      etags: stageEtags(stage, view?.dir ?? null),
      listed: headFiles,
      hubCache: o.hubCache,
    });
    return {
      commit: sha,
      headFiles,
      added,
      files: files.length,
      bytes: files.reduce((n, f) => n + f.content.size, 0),
      attempts: attempt,
      card: card.state,
      forgottenMeanwhile: late,
    };
  } catch (err) {
    rmSync(stage.dir, { recursive: true, force: true });
    throw err;
  }
}

/** Thrown out of a commit abandoned because a local forget took out rows it held. */
const RESTAGE = Symbol("restage");

/** The ids of `rows` that `now` forgets and `before` did not. */
function forgottenSince(now: Set<string>, before: Set<string>, rows: ArrowTable | LocalRows): string[] {
  if (now.size === before.size && [...now].every((id) => before.has(id))) return [];
  const ids = idsOf(rows);
  return [...now].filter((id) => !before.has(id) && ids.has(id));
}
