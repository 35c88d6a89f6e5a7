/**
 * `funes doctor`: one pass over everything funes depends on, each check with what it found and the command
 * that fixes it: Node, the models (present and loadable), the Hub (endpoint reachable, token accepted), each
 * agent's wiring (the funes command it runs still exists, hooks trusted), the hook workers' locks (one
 * whose worker is gone stops that agent's indexing or pushing until a hook takes it over), the hook pushes
 * that refused to publish (recorded in the funes home: a hook's log is read by nobody), the local memory (rows, vectors
 * waiting, sessions not indexed, the writer lock) and the cache. Reads only: it changes nothing.
 */
import { type AgentWiring, agentsLayer, type HookLock } from "../agents/index.js";
import { listCachedMemories } from "../cache/index.js";
import {
  acquireWriterLock,
  funesPaths,
  localMemoryFor,
  viewsRoot,
  WriterBusyError,
} from "../memory/index.js";
import { ModelSession, type ModelsConfig } from "../models/index.js";
import { fetchIdentity, hubClient } from "../remote/index.js";
import { type HookRefusal, readHookRefusals } from "../sync/index.js";
import { modelsStatus } from "./models.js";
import { memoryStatus } from "./status.js";

/** One check's outcome. */
export interface DoctorCheck {
  /** What was checked ("node", "embedder", "hub", "agent claude", …). */
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  /** What was found, one line. */
  detail: string;
  /** The command (or step) that fixes it; null when nothing needs fixing. */
  fix: string | null;
}

/** What the checks need. */
export interface DoctorContext {
  home: string;
  funesHome: string;
  models: ModelsConfig;
  env: Record<string, string | undefined>;
  /** `process.versions.node`. */
  nodeVersion: string;
  /** True with `HF_HUB_OFFLINE=1`: the Hub is not asked. */
  offline: boolean;
  /** ms since the epoch (how old a hook worker's lock is). */
  now: () => number;
}

/** The Node version funes needs (package.json `engines`). */
const NODE_MIN = [20, 19] as const;

function nodeCheck(version: string): DoctorCheck {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = major > NODE_MIN[0] || (major === NODE_MIN[0] && minor >= NODE_MIN[1]);
  return {
    name: "node",
    status: ok ? "ok" : "fail",
    detail: `Node ${version}${ok ? "" : ` (funes needs ${NODE_MIN.join(".")} or newer)`}`,
    fix: ok ? null : `install Node ${NODE_MIN.join(".")} or newer`,
  };
}

async function modelChecks(models: ModelsConfig): Promise<DoctorCheck[]> {
  const session = new ModelSession(models);
  try {
    const out: DoctorCheck[] = [];
    for (const m of modelsStatus(models)) {
      if (m.dir === null) {
        // The note says which case it is (not downloaded, another revision, files missing, a folder
        // variable naming no model) and, after " — ", its fix.
        const [what = "", fix = "funes models pull"] = (m.note ?? "").split(" — ");
        out.push({
          name: m.role,
          status: "warn",
          detail: `${what}; recall ${m.role === "embedder" ? "finds by keyword only, and new rows wait for vectors" : "is not reranked"} meanwhile`,
          fix,
        });
        continue;
      }
      const loaded = m.role === "embedder" ? await session.embedder() : await session.reranker();
      out.push(
        loaded.kind === "ready"
          ? { name: m.role, status: "ok", detail: `${m.repo} loads`, fix: null }
          : {
              name: m.role,
              status: "fail",
              detail: `${m.repo} is here but does not load: ${loaded.reason}`,
              fix: "funes models pull (after deleting the damaged folder)",
            },
      );
    }
    return out;
  } finally {
    await session.close();
  }
}

/**
 * The Hub check, a failure only for someone who uses the Hub (`usesHub`: a Hub memory read or published
 * from this machine); for a local-only user an unreachable Hub or a stale token is a warning.
 */
async function hubCheck(ctx: DoctorContext, usesHub: boolean): Promise<DoctorCheck> {
  const c = await hubFinding(ctx);
  if (c.status !== "fail" || usesHub) return c;
  return { ...c, status: "warn", detail: `${c.detail} — needed only to read or publish a Hub memory` };
}

async function hubFinding(ctx: DoctorContext): Promise<DoctorCheck> {
  const host = ctx.models.hubUrl;
  if (ctx.offline)
    return { name: "hub", status: "skip", detail: `HF_HUB_OFFLINE is set: ${host} not asked`, fix: null };
  const who = await fetchIdentity(hubClient(ctx.models));
  switch (who.kind) {
    case "user":
      return { name: "hub", status: "ok", detail: `${host} reachable; token of ${who.name}`, fix: null };
    case "anonymous":
      return {
        name: "hub",
        status: "warn",
        detail: `${host} reachable; no token — public memories read fine, publishing needs one`,
        fix: "hf auth login (or set HF_TOKEN)",
      };
    case "rejected":
      return {
        name: "hub",
        status: "fail",
        detail: `${host} rejects the token (expired or revoked?)`,
        fix: "hf auth login again (or set HF_TOKEN to a valid token)",
      };
    case "offline":
      return {
        name: "hub",
        status: "fail",
        detail: `can't reach the Hub (${who.reason})`,
        fix: "check the connection, HTTPS_PROXY/NO_PROXY, or HF_ENDPOINT",
      };
  }
}

/** One check per agent funes is set up in, and one line for all the others. */
function agentChecks(wirings: AgentWiring[]): DoctorCheck[] {
  const out = wirings.filter((w) => w.installed).map(agentCheck);
  const others = wirings.filter((w) => !w.installed).map((w) => w.agent);
  if (others.length > 0)
    out.push({
      name: "agents",
      status: "skip",
      detail: `not set up in ${others.join(", ")} (\`funes add <agent>\` sets one up)`,
      fix: null,
    });
  return out;
}

/**
 * One warning per hook worker lock whose worker is gone (killed, or the machine restarted, its pid since
 * given to another process): until the next hook takes it over, that agent's indexing or pushing waits.
 */
function hookLockChecks(locks: HookLock[]): DoctorCheck[] {
  return locks
    .filter((l) => l.state === "stale")
    .map((l) => ({
      name: "hook lock",
      status: "warn" as const,
      detail: `${l.path} names a ${l.job} worker that is gone (pid ${l.pid ?? "none"}${l.pid === null ? "" : " is not running or is another process now"}); that job waits until a hook takes it over`,
      fix: `rm -r '${l.path}' (the agent's next hook also takes it over)`,
    }));
}

/**
 * One problem per Hub memory a hook push refused to publish to (until a push there publishes): what the
 * hook's log said, and the one command that fixes it.
 */
function refusalChecks(refusals: HookRefusal[]): DoctorCheck[] {
  return refusals.map((r) => ({
    name: "hook push",
    status: "fail" as const,
    detail: `the hooks' push to ${r.memory} refused to publish (last at ${r.at}): ${r.message}`,
    fix: r.fix,
  }));
}

function agentCheck(w: AgentWiring): DoctorCheck {
  const name = `agent ${w.agent}`;
  return w.problems.length === 0
    ? { name, status: "ok", detail: "wired: its funes command exists", fix: null }
    : { name, status: "fail", detail: w.problems.join("; "), fix: `funes add ${w.agent}` };
}

async function memoryChecks(ctx: DoctorContext): Promise<DoctorCheck[]> {
  const report = await memoryStatus(localMemoryFor(undefined, ctx), ctx);
  const out: DoctorCheck[] = [];
  if (report.kind === "no-index")
    out.push({
      name: "memory",
      status: "warn",
      detail: `no index yet at ${report.memory}`,
      fix: "funes index",
    });
  else {
    out.push({
      name: "memory",
      status: "ok",
      detail: `${report.chunks} chunks from ${report.sessions} sessions at ${report.memory}`,
      fix: null,
    });
    if (report.pendingVectors > 0)
      out.push({
        name: "vectors",
        status: "warn",
        detail: `${report.pendingVectors} chunks wait for vectors (found by keyword until then)`,
        // Without the embedder an index run embeds nothing: the models come first.
        fix: modelsStatus(ctx.models).some((m) => m.role === "embedder" && m.dir === null)
          ? "funes models pull"
          : "funes index --yes",
      });
    if (report.pendingSessions !== null && report.pendingSessions > 0)
      out.push({
        name: "sessions",
        status: "warn",
        detail: `${report.pendingSessions} sessions on this machine are not indexed yet`,
        fix: "funes index",
      });
  }
  try {
    const lock = await acquireWriterLock(funesPaths(ctx.funesHome).lock);
    await lock.release();
    out.push({ name: "lock", status: "ok", detail: "no index or push is running", fix: null });
  } catch (err) {
    if (!(err instanceof WriterBusyError)) throw err;
    out.push({
      name: "lock",
      status: "warn",
      detail: `another funes run holds the memory (${err.message})`,
      fix: "wait for it to finish",
    });
  }
  return out;
}

function cacheCheck(ctx: DoctorContext): DoctorCheck {
  const cached = listCachedMemories(viewsRoot(ctx.funesHome));
  const older = cached.reduce((n, m) => n + Math.max(0, m.views.length - 1), 0);
  const bytes = cached.reduce((n, m) => n + m.bytes, 0);
  return {
    name: "cache",
    status: "ok",
    detail: `${cached.length} Hub memories cached (${(bytes / 1048576).toFixed(1)} MiB newest copies${older > 0 ? `, ${older} older copies` : ""}) in ${ctx.models.hubCache}`,
    fix: older > 0 ? "funes cache prune" : null,
  };
}

/** Runs every check, in the order they are shown. */
export async function runDoctor(ctx: DoctorContext): Promise<DoctorCheck[]> {
  const agents = await agentsLayer();
  const refusals = readHookRefusals(ctx.funesHome);
  const usesHub =
    refusals.length > 0 ||
    listCachedMemories(viewsRoot(ctx.funesHome)).length > 0 ||
    (await agents.readHookPushes({ home: ctx.home, env: ctx.env })).length > 0;
  return [
    nodeCheck(ctx.nodeVersion),
    ...(await modelChecks(ctx.models)),
    await hubCheck(ctx, usesHub),
    ...agentChecks(await agents.inspectAgents(ctx.home, ctx.env)),
    ...hookLockChecks(await agents.readHookLocks({ home: ctx.home, env: ctx.env, now: ctx.now() })),
    ...refusalChecks(refusals),
    ...(await memoryChecks(ctx)),
    cacheCheck(ctx),
  ];
}
