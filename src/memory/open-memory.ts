/**
 * Opening a memory from its `--memory` spec: a local memory, a Hub memory at the head of `main` (its cached
 * view; with the Hub unreachable, its newest cached view, else the local memory), or several of them as one
 * federated memory, plus the notes a reader should see first. Failures are FunesErrors with the reference's
 * wording.
 */

import {
  DEFAULT_MAX_DOWNLOAD_BYTES,
  DownloadCapError,
  IntegrityError,
  newestView,
  UnsafeMemoryError,
} from "../cache/index.js";
import { storeExists } from "../local/index.js";
import type { ModelsConfig } from "../models/index.js";
import { HubUriError, hubClient, isModelRepo, parseHubUri, UnsafeHubAnswerError } from "../remote/index.js";
import type { AgentEnv } from "../traces/index.js";
import { FunesError, modelRepoError, notAuthorizedError } from "./errors.js";
import { hubMemory, type LocalMemory, type SingleMemory } from "./memory.js";
import { type RemoteReadState, readRemote, viewsRoot } from "./remote-memory.js";
import { resolveMemorySpec } from "./spec.js";

/** Where funes lives, for resolving specs. */
export interface HomeContext {
  funesHome: string;
  home: string;
  /** Agent folders their own variables moved (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …). */
  agentEnv?: AgentEnv | undefined;
}

/** Also how to reach the Hub (endpoint, token, cache, download cap), taken from the models settings. */
export interface ReadContext extends HomeContext {
  models: ModelsConfig;
  /**
   * A Hub memory that can't be read and has no cached copy falls back to the local memory (the reference's
   * behaviour, and what an agent's MCP server wants). Off, that is an error: the user asked for that memory.
   */
  fallbackLocal?: boolean | undefined;
}

/** A memory ready to read, and notes to print before the answer. */
export interface ReadTarget {
  memory: SingleMemory;
  notes: string[];
  /**
   * Set when `memory` is a cached copy read while the remote's head is still being checked: resolves to
   * null when that copy is current, else to the target to read instead.
   */
  verify?: () => Promise<ReadTarget | null>;
}

/** The target to read, once the remote's head is known (no speculation). */
export async function settledTarget(target: ReadTarget): Promise<ReadTarget> {
  return target.verify === undefined ? target : ((await target.verify()) ?? target);
}

/** Runs a read on a target, and again on the fresh one if the cached copy turned out to be stale. */
export async function readWith<T>(target: ReadTarget, run: (t: ReadTarget) => Promise<T>): Promise<T> {
  const result = await run(target);
  const fresh = target.verify === undefined ? null : await target.verify();
  return fresh === null ? result : run(fresh);
}

/** The local memory a spec names; a Hub spec is a FunesError (for commands that only work locally). */
export function localMemoryFor(spec: string | undefined | null, ctx: HomeContext): LocalMemory {
  const r = resolveMemorySpec(spec, ctx);
  if (r.kind === "remote")
    throw new FunesError(
      "bad_input",
      `"${r.uri}" is a Hub memory; this command works on local memories only — give a local memory directory, or drop --memory`,
    );
  return r.memory;
}

/** Resolves any spec for reading. */
export async function openReadTarget(spec: string | undefined | null, ctx: ReadContext): Promise<ReadTarget> {
  const r = resolveMemorySpec(spec, ctx);
  if (r.kind === "local") return { memory: r.memory, notes: [] };
  let loc: ReturnType<typeof parseHubUri>;
  try {
    loc = parseHubUri(r.uri);
  } catch (err) {
    if (err instanceof HubUriError) throw new FunesError("bad_input", err.message);
    throw err;
  }
  const client = hubClient(ctx.models);
  const label = r.uri;
  const rctx = {
    funesHome: ctx.funesHome,
    hubCache: ctx.models.hubCache,
    client,
    maxDownloadBytes: downloadCap(ctx),
  };
  // Start resolving the head now; errors are kept for whoever awaits the result.
  const settled = readRemote(loc, rctx).then(
    (state) => ({ state }),
    (error: unknown) => ({ error }),
  );
  const settle = async () => {
    const s = await settled;
    if ("error" in s) {
      throw refusedRemote(s.error, label) ?? s.error;
    }
    if (s.state.kind === "missing" && (await isModelRepo({ client, repo: loc.repo })))
      throw modelRepoError(loc.repo);
    return remoteTarget(s.state, label, ctx);
  };
  // With a copy of this memory cached, read it while the head is checked: the usual case (nothing
  // published since) then costs no more than a local read; if the head moved, the caller reads again.
  const cached = newestView(viewsRoot(ctx.funesHome), loc);
  if (cached === null) return settle();
  return {
    memory: hubMemory(label, cached),
    notes: [],
    verify: async () => {
      const s = await settled;
      if ("state" in s && s.state.kind === "ready" && s.state.view.sha === cached.sha) return null;
      return settle();
    },
  };
}

/** The download cap per Hub memory, bytes; a FunesError when `FUNES_MAX_DOWNLOAD_MB` is not a size. */
export function downloadCap(ctx: ReadContext): number {
  const cap = ctx.models.maxDownloadBytes;
  if (cap === undefined) return DEFAULT_MAX_DOWNLOAD_BYTES;
  if (!Number.isFinite(cap) || cap <= 0)
    throw new FunesError(
      "bad_input",
      "FUNES_MAX_DOWNLOAD_MB must be a positive number of MiB (e.g. 8192) — fix or unset it",
    );
  return cap;
}

/**
 * The FunesError for a Hub memory funes refuses to read (a hostile answer or manifest, a file that does
 * not match its listed hash, a memory over the download cap), or null for any other failure.
 */
export function refusedRemote(err: unknown, label: string): FunesError | null {
  if (
    err instanceof UnsafeHubAnswerError ||
    err instanceof UnsafeMemoryError ||
    err instanceof IntegrityError ||
    err instanceof DownloadCapError
  )
    return new FunesError("refused_memory", `${label}: ${err.message}`, err);
  return null;
}

/** The read target for a remote's state, or the FunesError that explains it. */
function remoteTarget(state: RemoteReadState, label: string, ctx: ReadContext): ReadTarget {
  switch (state.kind) {
    case "ready":
      return { memory: hubMemory(label, state.view), notes: [] };
    case "stale":
      return {
        memory: hubMemory(label, state.view),
        notes: [
          `note: remote ${label} unreachable — reading its cached copy at ${state.view.sha.slice(0, 8)}`,
        ],
      };
    case "offline": {
      if (ctx.fallbackLocal !== true)
        throw new FunesError(
          "unreachable",
          `can't read ${label} (${state.reason}) and no copy of it is cached here — try again once it is reachable, or pass --fallback-local to read your local memory instead`,
        );
      const local = localMemoryFor(undefined, ctx);
      if (!storeExists(local.dir))
        throw new FunesError(
          "unreachable",
          `remote ${label} unreachable and no local index yet — run \`funes index\` to build one, or try again once you're back online`,
        );
      return { memory: local, notes: [`remote ${label} unreachable — recalling from your local memory`] };
    }
    case "missing":
      throw new FunesError(
        "no_memory",
        `${label} doesn't exist on the Hub, and funes won't create it — create the dataset repo first (https://huggingface.co/new-dataset)`,
      );
    case "unauthorized":
      throw notAuthorizedError(label, "read");
    case "empty":
      throw new FunesError(
        "no_memory",
        `${label} exists on the Hub but holds no index yet — \`funes push ${label}\` to publish your local index there, or drop \`--memory\` to read your local memory`,
      );
  }
}

/**
 * Several memories read as one (a federated recall): each opened on its own, and the warnings for those that
 * could not be (the others answer).
 */
export interface FederatedMemory {
  kind: "federated";
  members: ReadTarget[];
  warnings: string[];
}

/**
 * Runs a read on a federated memory, and again if a member read from its cached copy turned out to be stale
 * (on the fresh copies; a member that can no longer be read becomes a warning). Returns the last result and
 * the warnings to show before it.
 */
export async function readFederatedWith<T>(
  federated: FederatedMemory,
  run: (f: FederatedMemory) => Promise<T>,
): Promise<{ result: T; warnings: string[] }> {
  const { members, warnings } = federated;
  const result = await run(federated);
  // Cached copies were read while their heads were checked: read again only if one of them moved.
  const fresh = await Promise.all(
    members.map((t) => (t.verify === undefined ? null : t.verify().catch((err: unknown) => ({ err })))),
  );
  if (fresh.every((f) => f === null)) return { result, warnings };
  const again: ReadTarget[] = [];
  const more = [...warnings];
  fresh.forEach((f, i) => {
    const t = members[i] as ReadTarget;
    if (f === null) again.push(t);
    else if ("err" in f)
      more.push(
        `warning: ${t.memory.label} could not be read (${f.err instanceof Error ? f.err.message : String(f.err)}) — answering from the others`,
      );
    else again.push(f);
  });
  return { result: await run({ kind: "federated", members: again, warnings: [] }), warnings: more };
}

/**
 * Opens several memories for one federated read. A Hub memory with a cached copy is read from it at once,
 * its head checked meanwhile (the target's `verify`); others are settled first. A memory that cannot be
 * read (or that is unreachable and would fall back to the local memory) becomes a warning line; only when
 * none can be read is it an error.
 */
export async function openFederated(specs: string[], ctx: ReadContext): Promise<FederatedMemory> {
  const tried = await Promise.all(
    specs.map(async (spec) => {
      try {
        const target = await openReadTarget(spec, ctx);
        // A Hub memory that fell back to the local memory is not the one asked for: the others answer.
        const remote = resolveMemorySpec(spec, ctx).kind === "remote";
        if (remote && target.memory.kind !== "hub")
          return { warning: `warning: ${spec} is unreachable right now — answering from the others` };
        return { target };
      } catch (err) {
        if (!(err instanceof FunesError)) throw err;
        return {
          warning: `warning: ${spec} could not be read (${err.message}) — answering from the others`,
          err,
        };
      }
    }),
  );
  const targets = tried.flatMap((t) => ("target" in t && t.target !== undefined ? [t.target] : []));
  const warnings = tried.flatMap((t) => ("warning" in t && t.warning !== undefined ? [t.warning] : []));
  if (targets.length === 0) {
    const first = tried.find((t) => "err" in t && t.err !== undefined);
    if (first !== undefined && "err" in first && first.err !== undefined) throw first.err;
    throw new FunesError(
      "unreachable",
      `none of ${specs.join(", ")} could be read right now — try again once they are reachable`,
    );
  }
  return { kind: "federated", members: targets, warnings };
}
