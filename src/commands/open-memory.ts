/**
 * A memory spec to something the read commands can open: a local memory, or a Hub memory's cached view at
 * the head of `main` (or, with the Hub unreachable, its newest cached view, else the local memory), plus the
 * note a reader should see first. Failures are FunesErrors with the reference's wording.
 */

import { DEFAULT_MAX_DOWNLOAD_BYTES, newestView } from "../cache/index.js";
import { IncompatibleMemoryError, LocalStore, storeExists } from "../local/index.js";
import {
  type LocalMemory,
  localMemory,
  type RemoteReadState,
  readRemote,
  resolveMemorySpec,
  viewsRoot,
} from "../memory/index.js";
import { HubUriError, isModelRepo, parseHubUri } from "../remote/index.js";
import { FunesError, meaningOf, notAuthorizedError } from "./errors.js";
import type { ModelsConfig } from "./models-config.js";

/** Where funes lives, for resolving specs. */
export interface HomeContext {
  funesHome: string;
  home: string;
}

/** Also how to reach the Hub (endpoint, token, cache), taken from the models settings. */
export interface ReadContext extends HomeContext {
  models: ModelsConfig;
  /**
   * A Hub memory that can't be read and has no cached copy falls back to the local memory (the reference's
   * behaviour, and what an agent's MCP server wants). Off, that is an error: the user asked for that memory.
   */
  fallbackLocal?: boolean | undefined;
}

/** A memory ready to open, and notes to print before the answer. */
export interface ReadTarget {
  memory: LocalMemory;
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
      `"${r.uri}" is a Hub memory; this command works on local memories only`,
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
  const client = { hubUrl: ctx.models.hubUrl, token: ctx.models.token };
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
    if (s.state.kind === "missing" && (await isModelRepo(client, loc.repo)))
      throw new FunesError("no_memory", modelRepoMessage(loc.repo));
    return remoteTarget(s.state, label, ctx);
  };
  // With a copy of this memory cached, read it while the head is checked: the usual case (nothing
  // published since) then costs no more than a local read; if the head moved, the caller reads again.
  const cached = newestView(viewsRoot(ctx.funesHome), loc);
  if (cached === null) return settle();
  return {
    memory: { ...localMemory(cached.dir, false), label },
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
  if (meaningOf(err) === "refused_memory" && err instanceof Error)
    return new FunesError("refused_memory", `${label}: ${err.message}`, err);
  return null;
}

/** What to say when a memory names a model repo. */
export function modelRepoMessage(repo: string): string {
  return `${repo} is a model repo, not a dataset — a funes memory lives in a dataset repo (create one at https://huggingface.co/new-dataset)`;
}

/** The read target for a remote's state, or the FunesError that explains it. */
function remoteTarget(state: RemoteReadState, label: string, ctx: ReadContext): ReadTarget {
  switch (state.kind) {
    case "ready":
      return { memory: { ...localMemory(state.view.dir, false), label }, notes: [] };
    case "stale":
      return {
        memory: { ...localMemory(state.view.dir, false), label },
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

/** Opens a memory's table; a memory from another embedding model is a FunesError saying so. */
export async function openStore(memory: LocalMemory): Promise<LocalStore | null> {
  try {
    return await LocalStore.open(memory.dir);
  } catch (err) {
    if (err instanceof IncompatibleMemoryError)
      throw new FunesError("incompatible_memory", `${memory.label}: ${err.message}`);
    throw err;
  }
}

/** The message for a memory with no index. */
export function noIndexMessage(memory: LocalMemory): string {
  return memory.isDefault
    ? "no index yet — run `funes index` to build one, then recall your own history"
    : `no index found at ${memory.dir}`;
}

/**
 * Values given as a repeated flag and/or comma lists (`--memory a --memory b,c`, a tool's "a,b"),
 * flattened and trimmed; blanks dropped.
 */
export function listValues(value: unknown): string[] {
  const given = Array.isArray(value)
    ? value
    : value === undefined || value === null || value === false
      ? []
      : [value];
  return given
    .map(String)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/**
 * Opens several memories for one federated read. A Hub memory with a cached copy is read from it at once,
 * its head checked meanwhile (the target's `verify`); others are settled first. A memory that cannot be
 * read (or that is unreachable and would fall back to the local memory) becomes a warning line; only when
 * none can be read is it an error.
 */
export async function openReadTargets(
  specs: string[],
  ctx: ReadContext,
): Promise<{ targets: ReadTarget[]; warnings: string[] }> {
  const tried = await Promise.all(
    specs.map(async (spec) => {
      try {
        const target = await openReadTarget(spec, ctx);
        const remote = resolveMemorySpec(spec, ctx).kind === "remote";
        if (remote && !target.memory.label.startsWith("hf://"))
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
    throw new FunesError("unreachable", `none of ${specs.join(", ")} could be read right now`);
  }
  return { targets, warnings };
}
