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
import { askYesNo } from "./prompt.js";
import { runModels } from "./run-models.js";

/** Flags of `funes add`. */
export interface AddFlags {
  yes?: boolean;
  create?: boolean;
  json?: boolean;
}

/** Sets funes up in an agent and prints what changed. */
export async function runAdd(
  agent: unknown,
  memory: unknown,
  flags: AddFlags,
  cfg: CliConfig,
): Promise<void> {
  const interactive = cfg.stdinTty && cfg.stderrTty;
  const s = await addAgent(
    {
      agent: String(agent),
      memory: memory === undefined ? undefined : String(memory),
      yes: flags.yes === true,
      create: flags.create === true,
      funes: cfg.funesCommand,
      env: cfg.env,
      ask: interactive ? askYesNo : undefined,
      say: flags.json === true ? undefined : (line) => process.stderr.write(`funes: ${line}\n`),
      now: cfg.now,
    },
    cfg,
  );
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    if (s.stopped !== null) throw new FunesError(s.stopped.code, s.stopped.message);
    return;
  }
  const lines = [...s.notes];
  const missing = modelsStatus(cfg.models).filter((m) => m.dir === null);
  const embedderMissing = missing.some((m) => m.role === "embedder");
  if (s.indexed !== null)
    lines.push(
      `indexed ${s.indexed.sessions} sessions (${s.indexed.chunksAdded} chunks) — recall works now${embedderMissing ? "" : "; vectors fill in as you work"}`,
    );
  lines.push(...s.installed);
  if (s.pushed !== null)
    lines.push(
      s.pushed.commit === null
        ? `${s.pushed.memory} is up to date`
        : `published ${s.pushed.published} chunks to ${s.pushed.memory}`,
    );
  // What was done is on the screen before anything else is asked, or fails.
  process.stdout.write(`${lines.join("\n")}\n`);
  if (s.stopped !== null)
    throw new FunesError(s.stopped.code, `funes is set up in ${s.agent} (above), but ${s.stopped.message}`);
  if (missing.length === 0) return;
  const what = missing.map((m) => m.repo).join(" and ");
  const meanwhile = embedderMissing
    ? "recall finds passages by keyword only, and new chunks wait for their vectors"
    : "recall is not reranked";
  const pull = interactive && (await askYesNo(`The models (${what}) are not here: download them now?`, true));
  if (!pull) {
    process.stdout.write(`the models are not here (${what}): until \`funes models pull\`, ${meanwhile}\n`);
    return;
  }
  try {
    await runModels("pull", {}, cfg);
  } catch (err) {
    const line = describeFailure(err, cfg.models.hubUrl);
    const code = line.code === "unexpected" ? "unreadable_source" : line.code;
    throw new FunesError(
      code,
      `funes is set up in ${s.agent} (above), but the models were not downloaded: ${line.message}`,
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
