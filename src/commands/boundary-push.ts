/**
 * The push an agent's hook makes at a session boundary (`funes push <memory> --hook`). It must publish the
 * session that just ended, which the agent's Stop hook is usually still indexing when it starts: so it
 * first indexes that agent's sessions itself, waiting (bounded) while another funes run (that index job)
 * holds the memory, and embeds rows still waiting for vectors (bounded; newest session first, so the one
 * that ended comes first); then it publishes. Rows still waiting after that are reported as "more", so
 * the hook runs another round, instead of a success that leaves the session behind. Nothing indexed yet,
 * or a Hub memory not created yet, is not an error at a boundary: there is simply nothing to publish.
 * Nobody watches a hook, so a push that refuses to publish (a memory not created, one that shares nothing
 * with this machine's, everything held back by the secret gate, no access…) is also recorded in the funes
 * home with the command that fixes it, for `status`, `doctor` and the next command run on a terminal; a
 * push that publishes clears it. A busy memory or an unreachable Hub is not recorded: the next round retries.
 */
import { storeExists } from "../local/index.js";
import type { ReadContext } from "../memory/index.js";
import { funesPaths } from "../memory/index.js";
import { hubLocation, recordHookRefusal } from "../sync/index.js";
import { type Harness, knownSources } from "../traces/index.js";
import { describeFailure, FunesError } from "./errors.js";
import { embedWaiting, indexSessions } from "./index-sessions.js";
import {
  DEFAULT_VECTOR_BUDGET_MS,
  type IndexEvent,
  type Isolation,
  type VectorSummary,
} from "./index-types.js";
import { MemoryMissingError, type PushSummary, pushMemory } from "./push.js";

/** How long a boundary push waits for another funes run holding the memory, ms. */
export const BOUNDARY_WAIT_MS = 120_000;

/** Options of a boundary push. */
export interface BoundaryPushOptions {
  spec: string;
  /** The agent whose session ended: its new turns are indexed first. Absent → only the backfill. */
  harness?: Harness | undefined;
  /** ms since the epoch. */
  now: () => number;
  /** Wait for a busy memory this long, ms (default BOUNDARY_WAIT_MS). */
  waitMs?: number | undefined;
  /** Time to embed waiting rows before publishing, ms (default: the index run's budget). */
  embedBudgetMs?: number | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** How a large memory's backfill runs in worker processes (absent: in this one). */
  isolate?: Isolation | undefined;
  /** As `PushOptions.compactAtFiles`: when the push compacts the memory after it (default: the push's). */
  compactAtFiles?: number | undefined;
}

/** Rows left without a vector after a boundary push. */
export type StillWaiting =
  | { kind: "none" }
  /** Another round can embed more (a backlog, rows that came meanwhile, a busy memory): push again. */
  | { kind: "more"; chunks: number }
  /** Nothing could embed them here; `reason` says why. */
  | { kind: "stalled"; chunks: number; reason: string };

/** What a boundary push did. */
export type BoundaryPushResult =
  | { kind: "nothing-indexed"; memory: string }
  | { kind: "remote-missing"; memory: string; message: string }
  | { kind: "pushed"; summary: PushSummary; embedded: number; waiting: StillWaiting };

/** The one command that fixes a hook push's refusal (by its meaning). */
function refusalFix(code: string, spec: string): string {
  switch (code) {
    case "declined":
      return `funes push ${spec} --yes`;
    case "held_back":
      return "funes scrub";
    case "no_memory":
      return `funes push ${spec} --create`;
    case "no_access":
      return "hf auth login (or set HF_TOKEN to a token that can write it)";
    default:
      return `funes push ${spec}`;
  }
}

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Indexes, embeds (bounded), then publishes; see the file header. */
export async function pushAtBoundary(o: BoundaryPushOptions, ctx: ReadContext): Promise<BoundaryPushResult> {
  const loc = hubLocation(o.spec, ctx);
  const sleep = o.sleep ?? pause;
  const waitMs = o.waitMs ?? BOUNDARY_WAIT_MS;
  // Why the backfill stayed keyword-only (no embedder here, or it failed), if it did.
  const seen: { keywordOnly: string | null } = { keywordOnly: null };
  const onEvent = (e: IndexEvent) => {
    if (e.kind === "keyword-only") seen.keywordOnly = e.reason;
  };
  const common = {
    funesHome: ctx.funesHome,
    models: ctx.models,
    vectorBudgetMs: o.embedBudgetMs ?? DEFAULT_VECTOR_BUDGET_MS,
    now: o.now,
    onEvent,
    isolate: o.isolate,
  };
  const prepare = async (): Promise<VectorSummary | null> => {
    if (o.harness !== undefined && knownSources(ctx.home, o.harness, ctx.agentEnv).length > 0)
      try {
        return (
          await indexSessions({
            ...common,
            home: ctx.home,
            agentEnv: ctx.agentEnv,
            harness: o.harness,
            thinking: true,
          })
        ).vectors;
      } catch (err) {
        // Transcripts that can't be read are the index hook's to report; what is indexed still goes out.
        if (!(err instanceof FunesError) || (err.code !== "unreadable_source" && err.code !== "no_sessions"))
          throw err;
      }
    return embedWaiting(common);
  };
  // Another run holding the memory is, at a boundary, most likely the index job of the turn that just
  // ended: wait for it rather than publish without that turn.
  let vectors: VectorSummary | null = null;
  for (const start = o.now(); ; ) {
    try {
      vectors = await prepare();
      break;
    } catch (err) {
      if (!(err instanceof FunesError) || err.code !== "busy") throw err;
      if (o.now() - start >= waitMs) break; // publish what is embedded; the next round goes on
      await sleep(1000);
    }
  }
  if (!storeExists(funesPaths(ctx.funesHome).memory)) return { kind: "nothing-indexed", memory: loc.uri };
  const refused = (code: string, message: string) =>
    recordHookRefusal(
      ctx.funesHome,
      loc,
      { memory: o.spec, code, message, fix: refusalFix(code, o.spec) },
      o.now(),
    );
  let summary: PushSummary;
  try {
    summary = await pushMemory(
      { spec: o.spec, create: false, yes: false, now: o.now, compactAtFiles: o.compactAtFiles },
      ctx,
    );
  } catch (err) {
    if (err instanceof MemoryMissingError) {
      refused("no_memory", err.message);
      return { kind: "remote-missing", memory: loc.uri, message: err.message };
    }
    const line = describeFailure(err, ctx.models.hubUrl);
    if (line.code !== "busy" && line.code !== "unreachable") refused(line.code, line.message);
    throw err;
  }
  const held = Object.values(summary.heldBack).reduce((a, b) => a + b, 0);
  if (held > 0 && summary.published === 0 && summary.commit === null)
    refused(
      "held_back",
      `nothing was published to ${loc.uri}: every new chunk (${held}) was held back by the secret gate — run \`funes scrub\` to redact them`,
    );
  const embedded = vectors?.embedded ?? 0;
  const chunks = summary.waitingForVectors;
  // Stalled only when the embedder itself could not run; otherwise rows that arrived meanwhile, or a
  // budget spent on a long backlog, are for the next round (the hook bounds the rounds).
  const stalled = embedded === 0 ? seen.keywordOnly : null;
  const waiting: StillWaiting =
    chunks === 0
      ? { kind: "none" }
      : stalled !== null
        ? { kind: "stalled", chunks, reason: stalled }
        : { kind: "more", chunks };
  return { kind: "pushed", summary, embedded, waiting };
}
