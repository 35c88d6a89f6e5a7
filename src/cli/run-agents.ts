/**
 * `funes add <agent> [memory]` and `funes remove <agent>`.
 */
import { AGENT_NAMES, orList } from "../agents/index.js";
import {
  addAgent,
  describeFailure,
  FunesError,
  modelsStatus,
  removeAgent,
  removeAllAgents,
} from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { ActivityLine } from "./progress.js";
import { askYesNo } from "./prompt.js";
import { runModels } from "./run-models.js";
import { fitText, layoutWidth } from "./terminal-text.js";

/** `n` and its unit, singular for one: `1 session`, `7 chunks`. */
function count(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** Flags of `funes add`. */
export interface AddFlags {
  yes?: boolean;
  create?: boolean;
  json?: boolean;
}

/**
 * Sets funes up in an agent and prints what changed: each long step says what it is doing while it runs
 * (stderr), the first index's result as soon as it is known, and what is left to do (the models) as a
 * warning of a set-up that completed (exit 0).
 */
export async function runAdd(
  agent: unknown,
  memory: unknown,
  flags: AddFlags,
  cfg: CliConfig,
): Promise<void> {
  const interactive = cfg.stdinTty && cfg.stderrTty;
  const json = flags.json === true;
  const out = (text: string) =>
    process.stdout.write(fitText(text, cfg.stdoutTty ? layoutWidth(cfg.columns) : null));
  const warn = (text: string) =>
    process.stderr.write(fitText(`warning: ${text}\n`, cfg.stderrTty ? layoutWidth(cfg.columns) : null));
  const activity = new ActivityLine(process.stderr, cfg.stderrTty, cfg.now);
  const missing = modelsStatus(cfg.models).filter((m) => m.dir === null);
  const embedderMissing = missing.some((m) => m.role === "embedder");
  let s: Awaited<ReturnType<typeof addAgent>>;
  try {
    s = await addAgent(
      {
        agent: String(agent),
        memory: memory === undefined ? undefined : String(memory),
        yes: flags.yes === true,
        create: flags.create === true,
        funes: cfg.funesCommand,
        env: cfg.env,
        ask: interactive
          ? (q, yes) => {
              activity.clear();
              return askYesNo(q, yes);
            }
          : undefined,
        // --quiet: no progress, as for every command.
        say: json || cfg.quiet ? undefined : (line) => activity.start(line),
        indexed: json
          ? undefined
          : (x) => {
              activity.clear();
              out(
                `indexed ${count(x.sessions, "session")} (${count(x.chunksAdded, "chunk")}) — recall works now${embedderMissing ? "" : "; vectors fill in as you work"}\n`,
              );
            },
        now: cfg.now,
      },
      cfg,
    );
  } finally {
    activity.clear();
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    if (s.stopped !== null) throw new FunesError(s.stopped.code, s.stopped.message);
    return;
  }
  const lines = [...s.notes, ...s.installed];
  if (s.pushed !== null)
    lines.push(
      s.pushed.commit === null
        ? `${s.pushed.memory} is up to date`
        : `published ${count(s.pushed.published, "chunk")} to ${s.pushed.memory}`,
    );
  // What was done is on the screen before anything else is asked, or fails.
  if (lines.length > 0) out(`${lines.join("\n")}\n`);
  if (s.stopped !== null)
    throw new FunesError(s.stopped.code, `funes is set up in ${s.agent} (above), but ${s.stopped.message}`);
  if (missing.length === 0) return;
  const what = missing.map((m) => m.repo).join(" and ");
  const meanwhile = embedderMissing
    ? "recall finds passages by keyword only, and new chunks wait for their vectors"
    : "recall is not reranked";
  // The question's default is yes (set-up wants the models): --yes takes it without asking, on a
  // terminal or off one; off a terminal without --yes nothing is downloaded unasked.
  let pull: boolean;
  if (flags.yes === true) {
    if (!cfg.quiet)
      process.stderr.write(
        fitText(
          `downloading the models (${what}), which are not here yet (--yes)\n`,
          cfg.stderrTty ? layoutWidth(cfg.columns) : null,
        ),
      );
    pull = true;
  } else
    pull = interactive && (await askYesNo(`The models (${what}) are not here: download them now?`, true));
  if (!pull) {
    warn(`the models are not here (${what}): until \`funes models pull\`, ${meanwhile}`);
    return;
  }
  try {
    await runModels("pull", {}, cfg);
  } catch (err) {
    // The set-up itself is complete: what is left is a warning, and the run exits 0.
    const line = describeFailure(err, cfg.models.hubUrl);
    warn(
      `funes is set up in ${s.agent}, but the models were not downloaded (${line.message}) — until \`funes models pull\` succeeds, ${meanwhile}`,
    );
  }
}

/** Removes funes from an agent (or, with --all, from every agent it is in) and prints what changed. */
export async function runRemove(agent: unknown, flags: { all?: boolean }, cfg: CliConfig): Promise<void> {
  if (flags.all !== true) {
    if (agent === undefined)
      throw new FunesError("bad_input", `remove needs an agent (${orList(AGENT_NAMES)}), or --all`);
    const report = await removeAgent({ agent: String(agent), env: cfg.env }, cfg);
    process.stdout.write(`${report.join("\n")}\n`);
    return;
  }
  if (agent !== undefined)
    throw new FunesError(
      "bad_input",
      `remove takes an agent or --all, not both ("${String(agent)}" and --all)`,
    );
  const done = await removeAllAgents({ env: cfg.env }, cfg);
  if (done.length === 0) {
    process.stdout.write("funes is not set up in any agent — nothing to remove\n");
    return;
  }
  const lines = done.flatMap((d) => (d.error === null ? d.report : [`${d.agent}: ${d.error}`]));
  process.stdout.write(`${lines.join("\n")}\n`);
  const failed = done.filter((d) => d.error !== null).map((d) => d.agent);
  if (failed.length > 0)
    throw new FunesError(
      "unreadable_source",
      `funes could not be taken out of ${failed.join(", ")} completely — see above; the others are done`,
    );
}
