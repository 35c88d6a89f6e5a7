/**
 * `funes curate <memory> [owner/name]`: a project memory holds the sessions behind a repo that its
 * maintainer chose to publish. Naming a memory makes it the project memory of `owner/name`: an empty remote
 * is created as one; a personal memory is named only with consent, because Node's Lance cannot edit a
 * table's schema metadata in place and its rows are written again. Decisions are recorded per session,
 * from flags or an interactive review; `funes push` then publishes only fresh includes.
 */
import { materializeView } from "../cache/index.js";
import { arrow, chunkSchema, countRows, LocalStore, userPrompts } from "../local/index.js";
import type { ReadContext } from "../memory/index.js";
import { funesPaths, refusedRemote, viewsRoot } from "../memory/index.js";
import { fetchRepoHead, type HubLocation, type RepoHead } from "../remote/index.js";
import {
  createDataset,
  curationPath,
  type Decision,
  decisionComment,
  gateProject,
  hubLocation,
  type LocalSession,
  localSessions,
  openHubForWrite,
  publishRows,
  readDecisions,
  recordDecisions,
  requireToken,
  type WritableHub,
} from "../sync/index.js";
import { FunesError } from "./errors.js";

/** An answer of the interactive review. */
export type ReviewAnswer = "include" | "exclude" | "skip" | "quit";

/** Options of `funes curate`. */
export interface CurateOptions {
  spec: string;
  /** `owner/name` to name the memory the project memory of. */
  project?: string | undefined;
  include: string[];
  exclude: string[];
  /** Create a missing dataset (private). */
  create: boolean;
  /** Name a personal memory that already holds chunks (its rows are written again). */
  yes: boolean;
  /** On a terminal: asks a yes/no question. */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** On a terminal: asks about one pending session (with a preview of its prompts). */
  review?: ((s: LocalSession, prompts: string[], n: number, of: number) => Promise<ReviewAnswer>) | undefined;
  now: () => number;
}

/** What curate did. */
export interface CurateSummary {
  memory: string;
  project: string;
  named: "named" | "unchanged";
  recorded: { include: number; exclude: number };
  pending: LocalSession[];
  /** Lines of the decisions file funes did not understand (those sessions stay pending). */
  unrecognized: string[];
}

const PROJECT = /^[\w.-]+\/[\w.-]+$/;

/** A Hub memory opened for writing: where it is and the one client every step of a curate uses. */
type HubWrite = Pick<WritableHub, "loc" | "client">;

/** The project memory a remote is, or null (personal); "empty" when it holds no memory yet. */
async function remoteProject({ loc, client }: HubWrite, ctx: ReadContext, sha: string) {
  const view = await materializeView({
    client,
    hubCache: ctx.models.hubCache,
    viewsRoot: viewsRoot(ctx.funesHome),
    loc,
    sha,
  });
  if (view === null) return { kind: "empty" as const, ids: new Set<string>() };
  const store = await LocalStore.open(view.dir);
  if (store === null) return { kind: "empty" as const, ids: new Set<string>() };
  try {
    return {
      kind: "memory" as const,
      project: await store.project(),
      rows: await countRows(store),
      ids: await store.ids(),
    };
  } finally {
    store.close();
  }
}

function checkProject(project: string, sessions: LocalSession[]): void {
  if (PROJECT.test(project)) return;
  const guesses = [...new Set(sessions.flatMap((s) => s.repos))].filter((r) => r.endsWith(`/${project}`));
  throw new FunesError(
    "bad_input",
    `"${project}" is not a repo identity (owner/name)${guesses.length > 0 ? ` — did you mean ${guesses.map((g) => `"${g}"`).join(" or ")}?` : ""}`,
  );
}

/** Runs `funes curate`. */
export async function curate(o: CurateOptions, ctx: ReadContext): Promise<CurateSummary> {
  try {
    return await curateChecked(o, ctx);
  } catch (err) {
    throw refusedRemote(err, o.spec) ?? err;
  }
}

async function curateChecked(o: CurateOptions, ctx: ReadContext): Promise<CurateSummary> {
  const loc = hubLocation(o.spec, ctx);
  const local = await LocalStore.open(funesPaths(ctx.funesHome).memory);
  if (local === null)
    throw new FunesError("no_memory", "no local index yet — run `funes index` first, then curate");
  try {
    const { hub, sha } = await remoteHead(loc, o, ctx);
    const before = await remoteProject(hub, ctx, sha);
    const sessions = await localSessions(local, before.ids);
    const { project, named } = await nameProject(hub, before, sessions, o, ctx);
    const path = curationPath(ctx.funesHome, loc);
    const recorded = await recordReview(local, sessions, project, path, o);
    const decisions = readDecisions(path);
    return {
      memory: loc.uri,
      project,
      named,
      recorded,
      pending: gateProject(sessions, decisions, project).pending,
      unrecognized: decisions.unrecognized,
    };
  } finally {
    local.close();
  }
}

/** The remote's head commit; a missing dataset is created (with a project and --create), else a refusal. */
async function remoteHead(
  loc: HubLocation,
  o: CurateOptions,
  ctx: ReadContext,
): Promise<{ hub: HubWrite; sha: string }> {
  const opened = await openHubForWrite(loc, "curate it", ctx);
  const { client } = opened;
  let head: RepoHead = opened.head;
  if (head.kind === "missing") {
    if (o.project === undefined || !o.create)
      throw new FunesError(
        "no_memory",
        `${loc.uri} doesn't exist on the Hub — run \`funes curate ${o.spec} <owner/name> --create\` to create it as a project memory (private)`,
      );
    requireToken(ctx.models.token, loc.uri);
    await createDataset(client, loc.repo, loc.uri);
    head = await fetchRepoHead({ client, repo: loc.repo });
    if (head.kind !== "found")
      throw new FunesError(
        "unreachable",
        `${loc.uri} could not be read right after creating it — run curate again`,
      );
  }
  return { hub: opened, sha: head.sha };
}

/**
 * The project the memory belongs to: the one given (naming the memory when it has none yet, with consent
 * when that writes its rows again), else the one it already has; a personal memory without a project given
 * is a refusal.
 */
async function nameProject(
  { loc, client }: HubWrite,
  before: Awaited<ReturnType<typeof remoteProject>>,
  sessions: LocalSession[],
  o: CurateOptions,
  ctx: ReadContext,
): Promise<{ project: string; named: CurateSummary["named"] }> {
  if (o.project === undefined) {
    if (before.kind === "memory" && before.project !== null)
      return { project: before.project, named: "unchanged" };
    throw new FunesError(
      "bad_input",
      `${loc.uri} isn't a project memory — name it first: \`funes curate ${o.spec} <owner/name>\``,
    );
  }
  checkProject(o.project, sessions);
  if (before.kind === "memory" && before.project !== null && before.project !== o.project)
    throw new FunesError(
      "bad_input",
      `${loc.uri} is already the project memory of ${before.project} — refusing to rename it to ${o.project}; drop the project to curate it as it is, or name a new dataset`,
    );
  if (before.kind === "memory" && before.project === null) {
    // Node's Lance cannot edit a table's schema metadata: naming writes the rows again (new files only).
    const question = `${loc.uri} is a personal memory with ${before.rows} chunks: naming it the project memory of ${o.project} uploads all of them again (nothing is deleted, and everything in it stays published)`;
    const consent = o.yes || (o.confirm !== undefined && (await o.confirm(`${question}. Proceed?`)));
    if (!consent)
      throw new FunesError(
        "declined",
        `${question} — re-run with --yes to do it, or name a new dataset: \`funes curate <org/new-repo> ${o.project} --create\``,
      );
  }
  if (before.kind === "memory" && before.project !== null) return { project: o.project, named: "unchanged" };
  await publishRows({
    loc,
    client,
    hubCache: ctx.models.hubCache,
    funesHome: ctx.funesHome,
    rows: new arrow.Table(chunkSchema()),
    now: o.now,
    project: o.project,
  });
  return { project: o.project, named: "named" };
}

/**
 * Records the decisions: the sessions given by --include/--exclude, else (on a terminal) each pending
 * session as the user reviews it. Returns how many of each were recorded.
 */
async function recordReview(
  local: LocalStore,
  sessions: LocalSession[],
  project: string,
  path: string,
  o: CurateOptions,
): Promise<{ include: number; exclude: number }> {
  const byId = new Map(sessions.map((s) => [s.sessionId, s]));
  const recorded = { include: 0, exclude: 0 };
  const decide = (kind: "include" | "exclude", sid: string): { decision: Decision; comment: string } => {
    const s = byId.get(sid);
    if (s === undefined)
      throw new FunesError(
        "bad_input",
        `session "${sid}" is not in your local memory — \`funes recall\` shows session ids`,
      );
    if (sid.startsWith("agent-"))
      throw new FunesError(
        "bad_input",
        `"${sid}" is a sub-agent session, never published to a project memory — drop it from the list`,
      );
    recorded[kind]++;
    return {
      decision: kind === "include" ? { kind, sessionId: sid, reviewed: s.chunks } : { kind, sessionId: sid },
      comment: decisionComment(s),
    };
  };
  const flagged = [
    ...o.include.map((s) => decide("include", s)),
    ...o.exclude.map((s) => decide("exclude", s)),
  ];
  if (flagged.length > 0) recordDecisions(path, flagged);
  else if (o.review !== undefined) {
    const pending = gateProject(sessions, readDecisions(path), project).pending;
    for (const [i, s] of pending.entries()) {
      const answer = await o.review(s, await sessionPrompts(local, s.sessionId), i + 1, pending.length);
      if (answer === "quit") break;
      if (answer === "skip") continue;
      recordDecisions(path, [decide(answer, s.sessionId)]);
    }
  }
  return recorded;
}

/** The first few things the user typed in a session, for the review. */
async function sessionPrompts(store: LocalStore, sessionId: string, n = 3): Promise<string[]> {
  const rows = await userPrompts(store, sessionId);
  return rows
    .sort((a, b) => a.seq - b.seq)
    .map((r) => r.text.replace(/\s+/g, " ").trim())
    .filter((t) => t !== "" && !t.startsWith("<"))
    .slice(0, n)
    .map((t) => Array.from(t).slice(0, 160).join(""));
}
