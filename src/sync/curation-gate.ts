/**
 * Which sessions may go to a project memory (docs/commands.md#funes-curate-memory-ownername): sub-agent
 * sessions never; an `include` ships the whole session while it has not grown past the chunk count that was
 * reviewed (then it is pending again); an `exclude` never ships; an undecided session with chunks the remote
 * lacks is pending. Pending sessions are reported only when their checkout's git remotes name the project.
 */
import { LocalStore, sessionFacts, sessionIds, userPrompts } from "../local/index.js";
import { FunesError } from "../memory/index.js";
import { type Decisions, readDecisions } from "./curation.js";

/** A session of the local memory, as curation sees it. */
export interface LocalSession {
  sessionId: string;
  /** Chunks stored locally. */
  chunks: number;
  /** Of those, chunks the remote lacks. */
  unpublished: number;
  /** `owner/name` of the session checkout's git remotes. */
  repos: string[];
  /** Latest turn time. */
  lastTs: string;
  /** The first prompt the user typed (whitespace collapsed, at most 200 characters). */
  firstPrompt: string;
}

/** What the decisions allow. */
export interface ProjectGate {
  /** Sessions whose chunks may ship. */
  ship: Set<string>;
  /** Sessions waiting for a review (attributed to the project, or once included and grown since). */
  pending: LocalSession[];
}

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** Every session of the local memory, with counts against the remote's ids. */
export async function localSessions(store: LocalStore, remoteIds: Set<string>): Promise<LocalSession[]> {
  const rows = await sessionFacts(store);
  const by = new Map<string, LocalSession>();
  for (const r of rows) {
    const sessionId = r.sessionId;
    let s = by.get(sessionId);
    if (s === undefined) {
      s = { sessionId, chunks: 0, unpublished: 0, repos: [], lastTs: "", firstPrompt: "" };
      by.set(sessionId, s);
    }
    s.chunks++;
    if (!remoteIds.has(r.id)) s.unpublished++;
    for (const repo of r.repo.split(/\s+/)) if (repo !== "" && !s.repos.includes(repo)) s.repos.push(repo);
    if (r.ts > s.lastTs) s.lastTs = r.ts;
  }
  // The first thing the user typed: the earliest user text block that is not tool scaffolding.
  const prompts = await userPrompts(store);
  const first = new Map<string, { seq: number; text: string }>();
  for (const p of prompts) {
    const text = collapse(p.text);
    if (text === "" || text.startsWith("<")) continue;
    const sid = p.sessionId;
    const seq = p.seq;
    const cur = first.get(sid);
    if (cur === undefined || seq < cur.seq) first.set(sid, { seq, text });
  }
  for (const s of by.values())
    s.firstPrompt = Array.from(first.get(s.sessionId)?.text ?? "")
      .slice(0, 200)
      .join("");
  return [...by.values()].sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
}

/** Applies the decisions to the local sessions for project `project`. */
export function gateProject(sessions: LocalSession[], decisions: Decisions, project: string): ProjectGate {
  const ship = new Set<string>();
  const pending: LocalSession[] = [];
  for (const s of sessions) {
    if (s.sessionId.startsWith("agent-")) continue;
    const d = decisions.bySession.get(s.sessionId);
    if (d?.kind === "exclude") continue;
    if (d?.kind === "include") {
      if (d.reviewed === null || s.chunks <= d.reviewed) ship.add(s.sessionId);
      else pending.push(s);
      continue;
    }
    if (s.unpublished > 0 && s.repos.includes(project)) pending.push(s);
  }
  return { ship, pending };
}

/** The comment funes writes after a decision: the session's date and first prompt. */
export function decisionComment(s: LocalSession): string {
  return collapse(`${s.lastTs.slice(0, 10)} ${s.firstPrompt}`);
}

/** Which sessions a push may publish: all (null), a project memory's curated ones, or the named ones. */
export interface PublishScope {
  /** The project the remote is the memory of, or null (personal). */
  project: string | null;
  /** Sessions allowed, or null for every session. */
  allow: Set<string> | null;
  /** Project sessions on this machine waiting for a review. */
  pendingReview: number;
}

/** The scope of a push to a remote whose memory (if any) is opened at `remoteDir`. */
export async function publishScope(o: {
  local: LocalStore;
  remoteDir: string | null;
  remoteIds: Set<string>;
  decisionsPath: string;
  sessions?: string[] | undefined;
}): Promise<PublishScope> {
  let project: string | null = null;
  if (o.remoteDir !== null) {
    const remote = await LocalStore.open(o.remoteDir);
    try {
      project = (await remote?.project()) ?? null;
    } finally {
      remote?.close();
    }
  }
  if (o.sessions !== undefined && o.sessions.length > 0) {
    const known = await sessionIds(o.local);
    const unknown = o.sessions.filter((s) => !known.has(s));
    if (unknown.length > 0)
      throw new FunesError(
        "bad_input",
        `not in your local memory: ${unknown.map((u) => `"${u}"`).join(", ")} — \`funes recall\` shows session ids`,
      );
    return { project, allow: new Set(o.sessions), pendingReview: 0 };
  }
  if (project === null) return { project, allow: null, pendingReview: 0 };
  const gate = gateProject(
    await localSessions(o.local, o.remoteIds),
    readDecisions(o.decisionsPath),
    project,
  );
  return { project, allow: gate.ship, pendingReview: gate.pending.length };
}
