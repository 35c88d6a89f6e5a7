/**
 * `funes status`: what the local memory holds (chunks and sessions by agent, rows waiting for vectors,
 * last write) and how many sessions on this machine are not indexed yet.
 */
import type { HarnessCounts } from "../local/index.js";
import { funesPaths, isUnitCurrent, type LocalMemory, loadIndexState } from "../memory/index.js";
import { knownSources } from "../traces/index.js";
import { locateEmbedder, type ModelsConfig } from "./models-config.js";
import { openStore } from "./open-memory.js";
import { readReceipt } from "./push.js";

/** The status of one memory, as data (rendered by the CLI or MCP). */
export type StatusReport =
  | { kind: "no-index"; memory: string; isDefault: boolean }
  | {
      kind: "ready";
      memory: string;
      chunks: number;
      sessions: number;
      byHarness: HarnessCounts[];
      pendingVectors: number;
      /** The embedder backfill uses, and whether its files are here. */
      embedder: { repo: string; revision: string; ready: boolean } | null;
      /** ms since the epoch, UTC. */
      lastIndexed: number | null;
      /** This machine's last push to this Hub memory, if any. */
      lastPush: { commit: string | null; published: number; at: string } | null;
      /** Sessions on this machine not (or not fully) indexed; null when not checked. */
      pendingSessions: number | null;
    };

/** Reads a memory's status; `pendingSessions` is counted for the default memory only. */
export async function memoryStatus(
  memory: LocalMemory,
  ctx: { funesHome: string; home: string; models?: ModelsConfig | undefined },
): Promise<StatusReport> {
  const store = await openStore(memory);
  if (store === null) return { kind: "no-index", memory: memory.label, isDefault: memory.isDefault };
  try {
    const s = await store.stats();
    if (s.chunks === 0) return { kind: "no-index", memory: memory.label, isDefault: memory.isDefault };
    return {
      kind: "ready",
      memory: memory.label,
      chunks: s.chunks,
      sessions: s.sessions,
      byHarness: s.byHarness,
      pendingVectors: s.pendingVectors,
      embedder: embedderOf(ctx.models),
      lastPush: memory.label.startsWith("hf://") ? readReceipt(ctx.funesHome, memory.label) : null,
      lastIndexed: s.lastWrite,
      pendingSessions: memory.isDefault ? await countPendingSessions(ctx) : null,
    };
  } finally {
    store.close();
  }
}

function embedderOf(
  models: ModelsConfig | undefined,
): { repo: string; revision: string; ready: boolean } | null {
  if (models === undefined) return null;
  const loc = locateEmbedder(models);
  return loc.kind === "found"
    ? { repo: loc.spec.repo, revision: loc.revision, ready: true }
    : { repo: loc.spec.repo, revision: loc.spec.revision, ready: false };
}

/** Units under the known agent directories whose current signature is not recorded. */
async function countPendingSessions(ctx: { funesHome: string; home: string }): Promise<number> {
  const { units } = loadIndexState(funesPaths(ctx.funesHome).state);
  let pending = 0;
  for (const source of knownSources(ctx.home)) {
    try {
      for (const u of await source.listUnits()) if (!isUnitCurrent(units, u.key, u.signature)) pending++;
    } catch {
      // An unreadable source is reported by `funes index`; status only counts what it can see.
    }
  }
  return pending;
}
