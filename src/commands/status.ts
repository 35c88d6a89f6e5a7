/**
 * `funes status`: what the local memory holds (chunks and sessions by agent, rows waiting for vectors,
 * last write) and how many sessions on this machine are not indexed yet. For a Hub memory, what of this
 * machine is not published there yet, and why: waiting for vectors, held back by the secret gate, or the
 * agents' hooks failed to push (the last outcome in their logs). A hook push's refusal to publish (recorded
 * in the funes home, with its fix) shows under every memory it concerns, and under the local memory.
 */
import { agentsLayer, type HookPushOutcome } from "../agents/index.js";
import {
  type HarnessCounts,
  LocalStore,
  pinVersion,
  type RowPlace,
  rowPlaces,
  unindexedTextRows,
} from "../local/index.js";
import {
  funesPaths,
  type HomeContext,
  type HubMemory,
  isUnitCurrent,
  loadIndexState,
  openStore,
  readForgotten,
  readPendingForget,
  resolveMemorySpec,
  type SingleMemory,
} from "../memory/index.js";
import { type EmbedPrecision, locateEmbedder, type ModelsConfig } from "../models/index.js";
import { hubClient, parseHubUri } from "../remote/index.js";
import {
  curationPath,
  gateProject,
  type HookRefusal,
  holdBack,
  localSessions,
  readDecisions,
  readHookRefusals,
  readReceipt,
  remoteForgottenIds,
} from "../sync/index.js";
import { knownSources } from "../traces/index.js";

/** The status of one memory, as data (rendered by the CLI or MCP). */
export type StatusReport =
  | {
      kind: "no-index";
      memory: string;
      isDefault: boolean;
      /** The memory exists but holds no chunk: an index ran and stored nothing. */
      empty?: boolean;
      /** Hook pushes that refused to publish (see the "ready" case). */
      hookRefusals?: HookRefusal[];
    }
  | {
      kind: "ready";
      memory: string;
      /** Where the memory is: this machine, or the Hub (read at one commit). */
      memoryKind: "local" | "hub";
      chunks: number;
      sessions: number;
      byHarness: HarnessCounts[];
      pendingVectors: number;
      /** The embedder backfill uses, and whether its files are here. */
      embedder: { repo: string; revision: string; ready: boolean; precision: EmbedPrecision } | null;
      /** ms since the epoch, UTC. */
      lastIndexed: number | null;
      /** This machine's last push to this Hub memory, if any. */
      lastPush: { commit: string | null; published: number; at: string } | null;
      /** Sessions on this machine not (or not fully) indexed; null when not checked. */
      pendingSessions: number | null;
      /** Hub memories: rows outside the text index (found by a scan until a push rebuilds it). */
      unindexed: number | null;
      /** Hub memories: what this machine's local memory has that the remote lacks. */
      localPush: LocalPushStatus | null;
      /** Hub project memories: whose, and how many local sessions wait for a review. */
      project: { name: string; pendingReview: number } | null;
      /** Hub memories: the last push an agent's hook made to it from this machine (from the hook logs). */
      hookPush: HookPushOutcome | null;
      /** Chunks `funes forget` took out (kept out of re-indexing here, of every push there); null when unknown. */
      forgotten: number | null;
      /** Local: chunks of a forget begun and not finished (still in the memory until the next write). */
      forgetUnfinished?: number;
      /**
       * Hook pushes from this machine that refused to publish, each with the command that fixes it: every
       * one for the local memory, this memory's for a Hub memory. Cleared by a push that publishes.
       */
      hookRefusals?: HookRefusal[];
    };

/** This machine's embedded rows missing from a Hub memory, and what the secret gate would hold back. */
export interface LocalPushStatus {
  pendingChunks: number;
  pendingSessions: number;
  /** Sessions of the local memory that have embedded rows. */
  sessions: number;
  /** Chunks the gate would hold back, by rule. */
  held: Record<string, number>;
  /** Local rows still without a vector (never published until embedded), and their sessions. */
  waitingForVectors: number;
  waitingSessions: number;
}

/** What status reads: the homes, the models, and the environment (where Codex keeps its hooks). */
export interface StatusContext {
  funesHome: string;
  home: string;
  models?: ModelsConfig | undefined;
  env?: Record<string, string | undefined> | undefined;
}

/** Reads a memory's status; `pendingSessions` is counted for the default memory only. */
export async function memoryStatus(memory: SingleMemory, ctx: StatusContext): Promise<StatusReport> {
  const hookRefusals = refusalsFor(memory, ctx.funesHome);
  const store = await openStore(memory);
  if (store === null)
    return { kind: "no-index", memory: memory.label, isDefault: memory.isDefault, hookRefusals };
  try {
    const s = await store.stats();
    if (s.chunks === 0)
      return {
        kind: "no-index",
        memory: memory.label,
        isDefault: memory.isDefault,
        empty: true,
        hookRefusals,
      };
    const remote = memory.kind === "hub";
    // A project memory publishes curated sessions only: its status says what waits for a review instead.
    const project = remote ? await projectStatus(store, memory.label, ctx.funesHome) : null;
    const forgotten =
      memory.kind === "hub"
        ? await remoteForgotten(memory, ctx.models)
        : localForgotten(memory, ctx.funesHome);
    return {
      kind: "ready",
      memory: memory.label,
      memoryKind: memory.kind,
      chunks: s.chunks,
      sessions: s.sessions,
      byHarness: s.byHarness,
      pendingVectors: s.pendingVectors,
      embedder: embedderOf(ctx.models),
      lastPush: remote ? readReceipt(ctx.funesHome, memory.label) : null,
      lastIndexed: s.lastWrite,
      pendingSessions: memory.isDefault ? await countPendingSessions(ctx) : null,
      unindexed: remote ? await unindexedTextRows(store) : null,
      localPush:
        remote && project === null
          ? await localPushStatus(store, ctx.funesHome, forgotten ?? new Set())
          : null,
      project,
      hookPush: remote ? await lastHookPush(memory.label, ctx) : null,
      forgotten: forgotten?.size ?? null,
      forgetUnfinished: forgetUnfinished(memory, ctx.funesHome),
      hookRefusals,
    };
  } finally {
    store.close();
  }
}

/** The hook refusals to show with a memory: all of them with the local one, a Hub memory's own with it. */
function refusalsFor(memory: SingleMemory, funesHome: string): HookRefusal[] {
  const all = readHookRefusals(funesHome);
  if (memory.kind !== "hub") return memory.isDefault ? all : [];
  const want = memory.label.replace(/\/+$/, "");
  return all.filter((r) => r.uri.replace(/\/+$/, "") === want);
}

function embedderOf(
  models: ModelsConfig | undefined,
): { repo: string; revision: string; ready: boolean; precision: EmbedPrecision } | null {
  if (models === undefined) return null;
  const loc = locateEmbedder(models);
  const precision = models.embedPrecision ?? "fp32";
  return loc.kind === "found"
    ? { repo: loc.spec.repo, revision: loc.revision, ready: true, precision }
    : { repo: loc.spec.repo, revision: loc.spec.revision, ready: false, precision };
}

/** For a project memory: its project and this machine's sessions pending review; else null. */
async function projectStatus(
  remote: LocalStore,
  label: string,
  funesHome: string,
): Promise<{ name: string; pendingReview: number } | null> {
  const name = await remote.project();
  if (name === null) return null;
  const local = await LocalStore.open(funesPaths(funesHome).memory);
  if (local === null) return { name, pendingReview: 0 };
  try {
    const sessions = await localSessions(local, await remote.ids());
    const decisions = readDecisions(curationPath(funesHome, parseHubUri(label)));
    return { name, pendingReview: gateProject(sessions, decisions, name).pending.length };
  } finally {
    local.close();
  }
}

/** The ids a Hub memory has forgotten, at the commit read; null when unreadable. */
async function remoteForgotten(
  memory: HubMemory,
  models: ModelsConfig | undefined,
): Promise<Set<string> | null> {
  if (models === undefined) return null;
  try {
    const client = hubClient(models);
    return await remoteForgottenIds(client, parseHubUri(memory.label), memory.sha);
  } catch {
    return null;
  }
}

/**
 * The local memory's forgotten ids, without those of a forget begun and not finished (their rows may still
 * be there: {@link forgetUnfinished} counts them); null when unknown.
 */
function localForgotten(memory: SingleMemory, funesHome: string): Set<string> | null {
  if (!memory.isDefault) return null;
  try {
    const ids = new Set(readForgotten(funesHome).keys());
    for (const id of readPendingForget(funesHome)?.ids ?? []) ids.delete(id);
    return ids;
  } catch {
    return null;
  }
}

/** Chunks of a local forget begun and not finished (a kill, a full disk): the next write finishes it. */
function forgetUnfinished(memory: SingleMemory, funesHome: string): number {
  if (memory.kind === "hub") return 0;
  try {
    return readPendingForget(funesHome)?.ids.length ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Compares this machine's embedded rows with the remote's ids (rows the remote forgot are not pending: no
 * push sends them); null without a local memory.
 */
async function localPushStatus(
  remote: LocalStore,
  funesHome: string,
  forgotten: Set<string>,
): Promise<LocalPushStatus | null> {
  const local = await LocalStore.open(funesPaths(funesHome).memory);
  if (local === null) return null;
  try {
    const remoteIds = await remote.ids();
    // One version for every read (an index run may commit meanwhile), and one listing of the rows' places
    // (small columns; the gate reads texts a group at a time from it), as a push does.
    await pinVersion(local);
    const places = await rowPlaces(local);
    const waitingSessions = new Set<string>();
    const sessions = new Set<string>();
    const pendingSessions = new Set<string>();
    const pending: RowPlace[] = [];
    let waitingForVectors = 0;
    for (const r of places) {
      if (!r.embedded) {
        waitingForVectors++;
        waitingSessions.add(r.sessionId);
        continue;
      }
      sessions.add(r.sessionId);
      if (remoteIds.has(r.id) || forgotten.has(r.id)) continue;
      pendingSessions.add(r.sessionId);
      pending.push(r);
    }
    const { byRule: held } = await holdBack(local, pending, { places });
    return {
      pendingChunks: pending.length,
      pendingSessions: pendingSessions.size,
      sessions: sessions.size,
      held,
      waitingForVectors,
      waitingSessions: waitingSessions.size,
    };
  } finally {
    local.close();
  }
}

/** The newest hook push outcome naming this Hub memory (hooks name it as it was given to `funes add`). */
async function lastHookPush(label: string, ctx: StatusContext): Promise<HookPushOutcome | null> {
  const uriOf = (spec: string) => {
    const r = resolveMemorySpec(spec, ctx);
    return r.kind === "remote" ? r.uri.replace(/\/+$/, "") : null;
  };
  const want = label.replace(/\/+$/, "");
  const pushes = await (await agentsLayer()).readHookPushes({ home: ctx.home, env: ctx.env ?? {} });
  return pushes.find((p) => uriOf(p.memory) === want) ?? null;
}

/** Units under the known agent directories whose current signature is not recorded. */
async function countPendingSessions(ctx: HomeContext): Promise<number> {
  const { units } = loadIndexState(funesPaths(ctx.funesHome).state);
  let pending = 0;
  for (const source of knownSources(ctx.home, undefined, ctx.agentEnv)) {
    try {
      const reader = { harness: source.kind, parser: source.parserVersion ?? 1 };
      for (const u of await source.listUnits())
        if (!isUnitCurrent(units, u.key, u.signature, reader)) pending++;
    } catch {
      // An unreadable source is reported by `funes index`; status only counts what it can see.
    } finally {
      source.close?.();
    }
  }
  return pending;
}

/** An agent funes is set up in, and whether its wiring would run (`funes doctor` says why not). */
export interface WiredAgent {
  agent: string;
  ok: boolean;
}

/** The agents funes is set up in on this machine (files only; no agent is run). */
export async function wiredAgents(ctx: {
  home: string;
  env?: Record<string, string | undefined> | undefined;
}): Promise<WiredAgent[]> {
  return (await (await agentsLayer()).inspectAgents(ctx.home, ctx.env ?? {}))
    .filter((w) => w.installed)
    .map((w) => ({ agent: w.agent, ok: w.problems.length === 0 }));
}
