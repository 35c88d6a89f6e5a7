/**
 * `funes add <agent> [memory]` and `funes remove <agent>`: the one command a user runs. Resolves the memory
 * (a missing Hub memory is created only with consent, always private), offers the first index (text first:
 * it ends in seconds), installs the agent's hooks and MCP registration, and does the first push. Off a
 * terminal nothing is asked: what would need an answer fails with a message naming the flag that gives it.
 * Binding a Hub memory is consent to publish into it, kept in the funes home (`recordPublishConsent`):
 * joining a team's memory from a machine with no history leaves nothing for the first push, and the
 * hook pushes that follow would otherwise refuse a memory that shares nothing with this one.
 */
import {
  AGENT_NAMES,
  type AgentInfo,
  type AgentName,
  agentNamed,
  agentsLayer,
  type FunesCommand,
  onPath,
  type SetupReport,
  type ToolConsent,
} from "../agents/index.js";
import { storeExists } from "../local/index.js";
import type { ReadContext } from "../memory/index.js";
import { funesPaths, resolveMemorySpec } from "../memory/index.js";
import { type HubLocation, HubUriError, parseHubUri } from "../remote/index.js";
import {
  createDataset,
  openHubOrOffline,
  recordPublishConsent,
  requireToken,
  withdrawPublishConsent,
} from "../sync/index.js";
import { knownSources } from "../traces/index.js";
import { describeFailure, FunesError } from "./errors.js";
import { indexSessions } from "./index-sessions.js";
import { DEFAULT_VECTOR_BUDGET_MS, type IndexSummary } from "./index-types.js";
import { type PushSummary, pushMemory } from "./push.js";

/** Options of `funes add`. */
export interface AddOptions {
  agent: string;
  memory?: string | undefined;
  /** Take the defaults without asking (index, install, first push). */
  yes: boolean;
  /** Create a missing Hub memory (private). */
  create: boolean;
  funes: FunesCommand;
  /** The environment agent CLIs run in. */
  env: Record<string, string | undefined>;
  /** Asks a yes/no question on the terminal; absent where nothing may be asked (off a terminal, --quiet). */
  ask?: ((question: string, defaultYes: boolean) => Promise<boolean>) | undefined;
  /** What a long step is doing, for the user (shown until the next step, question or result). */
  say?: ((line: string) => void) | undefined;
  /** The first index's summary, as soon as it is done (before any question that follows it). */
  indexed?: ((s: IndexSummary) => void) | undefined;
  now: () => number;
}

/** What `funes add` did. */
export interface AddSummary {
  agent: AgentName;
  /** The Hub memory bound to the hooks and MCP server, or null for local only. */
  memory: string | null;
  created: boolean;
  indexed: IndexSummary | null;
  installed: SetupReport;
  pushed: PushSummary | null;
  notes: string[];
  /**
   * What stopped the run after the agent was set up (the first push failed): everything above was done,
   * and the caller says so before this line. Null when it ran to the end.
   */
  stopped: { code: FunesError["code"]; message: string } | null;
}

/** The agent named on the command line. */
function parseAgent(name: string) {
  const agent = agentNamed(name);
  if (agent !== null) return agent;
  throw new FunesError("bad_input", `unknown agent "${name}" (expected ${AGENT_NAMES.join(", ")})`);
}

/** What to throw for a failed agent setup: a FunesError for the agents' own failures. */
async function setupError(err: unknown): Promise<unknown> {
  const { AgentSetupError } = await agentsLayer();
  return err instanceof AgentSetupError ? new FunesError("unreadable_source", err.message, err) : err;
}

/** Resolves and checks the memory to bind; creates it when asked to. */
async function bindMemory(
  o: AddOptions,
  ctx: ReadContext,
  notes: string[],
): Promise<{ memory: string | null; uri: string | null; created: boolean }> {
  const spec = o.memory?.trim() ?? "";
  if (spec === "" || spec === "local") return { memory: null, uri: null, created: false };
  const r = resolveMemorySpec(spec, ctx);
  if (r.kind === "local")
    throw new FunesError(
      "bad_input",
      `"${spec}" is a local path — \`funes add\` binds a Hub memory (org/repo) to publish to, or none: \`funes add ${o.agent}\``,
    );
  let loc: HubLocation;
  try {
    loc = parseHubUri(r.uri);
  } catch (err) {
    if (err instanceof HubUriError) throw new FunesError("bad_input", err.message);
    throw err;
  }
  // No access and a model repo are refused as push refuses them; an unreachable Hub is not a refusal here.
  const { client, head } = await openHubOrOffline(loc, ctx);
  const repo = loc.repo;
  switch (head.kind) {
    case "found":
      return { memory: spec, uri: r.uri, created: false };
    case "offline":
      notes.push(`can't reach ${r.uri} right now — proceeding; it'll be used once it's back`);
      return { memory: spec, uri: r.uri, created: false };
    case "missing": {
      const consent =
        o.create ||
        (o.ask !== undefined &&
          (await o.ask(`${r.uri} doesn't exist on the Hub. Create it as a private dataset?`, false)));
      if (!consent)
        throw new FunesError(
          "no_memory",
          `${r.uri} doesn't exist on the Hub — pass --create to create it (private), or create the dataset repo first`,
        );
      requireToken(ctx.models.token, r.uri);
      await createDataset(client, repo, r.uri);
      notes.push(`created ${r.uri} as a private dataset`);
      return { memory: spec, uri: r.uri, created: true };
    }
  }
}

/** The first index, when there is no local memory yet; null when nothing was indexed. */
async function firstIndex(
  o: AddOptions,
  { name: agent, harness }: AgentInfo,
  ctx: ReadContext,
  notes: string[],
) {
  if (storeExists(funesPaths(ctx.funesHome).memory)) return null;
  if (knownSources(ctx.home, harness, ctx.agentEnv).length === 0) {
    notes.push(`no ${agent} sessions found yet — the hooks index them from your next turn on`);
    return null;
  }
  const question = `funes will index your recent ${agent} sessions so recall works right away (text first: seconds). Proceed?`;
  if (!o.yes) {
    if (o.ask === undefined)
      throw new FunesError(
        "declined",
        `funes add would index your ${agent} sessions first and can't ask with --quiet or off a terminal — pass --yes to accept (or run \`funes index\` first)`,
      );
    if (!(await o.ask(question, true)))
      throw new FunesError(
        "declined",
        `skipped — nothing installed. Run \`funes add ${agent}\` again when you're ready`,
      );
  }
  o.say?.(`indexing your recent ${agent} sessions…`);
  return indexSessions({
    funesHome: ctx.funesHome,
    home: ctx.home,
    agentEnv: ctx.agentEnv,
    harness,
    thinking: true,
    models: ctx.models,
    vectorBudgetMs: DEFAULT_VECTOR_BUDGET_MS,
  });
}

/**
 * Joining a Hub memory from a machine with nothing indexed yet: there is no first push to ask its
 * question, so `add` asks it (on a terminal, without `--yes`): the sessions to come are published there
 * as they end. Off a terminal, naming the memory in `funes add` is the consent. A no installs nothing.
 */
async function joinConsent(o: AddOptions, agent: string, uri: string): Promise<void> {
  if (o.yes || o.ask === undefined) return;
  const question = `no ${agent} sessions are indexed here yet: joining ${uri} publishes your ${agent} sessions there as they end, beside what it holds. Join it?`;
  if (!(await o.ask(question, true)))
    throw new FunesError(
      "declined",
      `skipped — nothing installed. Run \`funes add ${agent} ${o.memory ?? uri}\` again when you're ready to publish there`,
    );
}

/**
 * Whether the agent may run funes's read-only tools without asking (its `toolConsent`): `--yes` takes it, a
 * terminal asks, and off a terminal without `--yes` nothing is allowed and a note says how to.
 */
async function allowToolsConsent(
  o: AddOptions,
  consent: ToolConsent,
  home: string,
  notes: string[],
): Promise<boolean> {
  if (o.yes || consent.allowed({ home, env: o.env })) return true;
  if (o.ask !== undefined) return o.ask(consent.question, true);
  notes.push(consent.unasked);
  return false;
}

/** Runs `funes add`. */
export async function addAgent(o: AddOptions, ctx: ReadContext): Promise<AddSummary> {
  const info = parseAgent(o.agent);
  const agent = info.name;
  // What it needs first, before a question is asked or anything indexed: the agent's own CLI on PATH (each
  // agent's CLI has its name; its installer checks again, and says how to install it). Looked up, not run:
  // some agents write files of their own on every start (Gemini CLI a projects.json temporary file).
  if (!onPath(agent, o.env.PATH))
    throw new FunesError(
      "unreadable_source",
      `\`${agent}\` isn't on PATH, so funes can't be set up in it — install ${agent}, then run \`funes add ${agent}\` again (nothing was changed)`,
    );
  const notes: string[] = [];
  const { memory, uri, created } = await bindMemory(o, ctx, notes);
  const indexed = info.firstRun ? await firstIndex(o, info, ctx, notes) : null;
  if (indexed !== null) o.indexed?.(indexed);
  const joining = uri !== null && !storeExists(funesPaths(ctx.funesHome).memory);
  if (joining) await joinConsent(o, agent, uri);
  const setup = await info.load();
  const allowTools =
    setup.toolConsent === undefined
      ? undefined
      : await allowToolsConsent(o, setup.toolConsent, ctx.home, notes);
  let installed: SetupReport;
  o.say?.(`setting funes up in ${agent}…`);
  try {
    installed = await setup.install({
      home: ctx.home,
      memory,
      funes: o.funes,
      env: o.env,
      allowTools,
    });
  } catch (err) {
    throw await setupError(err);
  }
  notes.push(...(setup.installNotes?.({ memory, env: o.env }) ?? []));
  let pushed: PushSummary | null = null;
  let stopped: AddSummary["stopped"] = null;
  // Consent to publish there: joining from an empty machine, or a first push the user said yes to.
  let consented = joining || o.yes || created;
  if (memory !== null && info.firstRun) {
    if (!storeExists(funesPaths(ctx.funesHome).memory))
      notes.push(
        `nothing indexed yet, so nothing to publish to ${memory} yet — your sessions are published there as they end (\`funes remove ${agent}\` stops it)`,
      );
    else {
      o.say?.(`publishing to ${memory}…`);
      const ask = o.ask;
      try {
        pushed = await pushMemory(
          {
            spec: memory,
            create: false,
            yes: o.yes || created,
            now: o.now,
            confirm:
              ask === undefined
                ? undefined
                : async (q) => {
                    consented = await ask(q, false);
                    return consented;
                  },
          },
          ctx,
        );
      } catch (err) {
        // The agent is set up by now: that is said first, then why the first push did not happen.
        const line = describeFailure(err, ctx.models.hubUrl);
        const code = line.code === "unexpected" ? "unreadable_source" : line.code;
        stopped = { code, message: `the first push to ${memory} failed: ${line.message}` };
      }
    }
  }
  if (uri !== null && consented && (stopped === null || stopped.code !== "declined"))
    recordPublishConsent(ctx.funesHome, parseHubUri(uri), agent, o.now());
  return { agent, memory, created, indexed, installed, pushed, notes, stopped };
}

/**
 * What `remove` of `agent` says of the consents to publish it gave: those no agent holds any more are
 * dropped (a later push there asks again).
 */
function withdrawConsent(funesHome: string, agent: string): SetupReport {
  return withdrawPublishConsent(funesHome, agent).map(
    (uri) => `dropped the consent to publish into ${uri} (no agent is bound to it now)`,
  );
}

/** Runs `funes remove`. */
export async function removeAgent(
  o: { agent: string; env: Record<string, string | undefined> },
  ctx: { home: string; funesHome: string },
): Promise<SetupReport> {
  const agent = parseAgent(o.agent);
  let report: SetupReport;
  try {
    report = await (await agent.load()).remove({ home: ctx.home, env: o.env });
  } catch (err) {
    throw await setupError(err);
  }
  return [...report, ...withdrawConsent(ctx.funesHome, agent.name)];
}

/** What `funes remove --all` did for one agent. */
export interface RemovedAgent {
  agent: AgentName;
  report: SetupReport;
  /** Why it could not be taken out completely, or null. */
  error: string | null;
}

/**
 * Runs `funes remove --all`: takes funes out of every agent it is found in (its files, or its MCP entry),
 * going on past an agent that fails so one broken agent does not keep funes in the others.
 */
export async function removeAllAgents(
  o: { env: Record<string, string | undefined> },
  ctx: { home: string; funesHome: string },
): Promise<RemovedAgent[]> {
  const out: RemovedAgent[] = [];
  const { AgentSetupError, inspectAgents } = await agentsLayer();
  for (const w of await inspectAgents(ctx.home, o.env)) {
    if (!w.installed) continue;
    try {
      out.push({
        agent: w.agent,
        report: [
          ...(await (await parseAgent(w.agent).load()).remove({ home: ctx.home, env: o.env })),
          ...withdrawConsent(ctx.funesHome, w.agent),
        ],
        error: null,
      });
    } catch (err) {
      if (!(err instanceof AgentSetupError)) throw err;
      out.push({ agent: w.agent, report: [], error: err.message });
    }
  }
  return out;
}
