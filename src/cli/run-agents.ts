/**
 * `funes add <agent> [memory]` and `funes remove <agent>`.
 */
import { addAgent, removeAgent } from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { askYesNo } from "./prompt.js";

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
    return;
  }
  const lines = [...s.notes];
  if (s.indexed !== null)
    lines.push(
      `indexed ${s.indexed.sessions} sessions (${s.indexed.chunksAdded} chunks) — recall works now; vectors fill in as you work`,
    );
  lines.push(...s.installed);
  if (s.pushed !== null)
    lines.push(
      s.pushed.commit === null
        ? `${s.pushed.memory} is up to date`
        : `published ${s.pushed.published} chunks to ${s.pushed.memory}`,
    );
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Removes funes from an agent and prints what changed. */
export async function runRemove(agent: unknown, cfg: CliConfig): Promise<void> {
  const report = await removeAgent({ agent: String(agent), env: cfg.env }, cfg);
  process.stdout.write(`${report.join("\n")}\n`);
}
