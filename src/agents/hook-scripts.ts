/**
 * The hook scripts agents run: `funes-index.sh <harness> [memory]` and `funes-push.sh <memory> [harness]`.
 * The foreground part drains the hook payload, starts a detached worker and exits at once without printing
 * anything (nothing reaches the agent's context). The worker runs `funes index --harness <h>` or
 * `funes push <memory> --hook --harness <h>` (a boundary push: it indexes that agent's newest turns, waiting
 * for a running index job, embeds what still waits, then publishes), one at a time per job: a run that finds
 * another running leaves a note, and the running one goes again when it is done, so no turn is missed. A
 * push that leaves rows waiting for vectors exits 75 and goes again (bounded). An index hook given a memory
 * (agents with no session-end event: Codex) publishes after its last pass, once no newer turn waits. Every
 * job's outcome is one line in `funes-sync.log` beside the script; `funes status` reads the push lines.
 * The scripts are real files (`hooks/`: the two entry points and what they share), checked with ShellCheck
 * (hook-scripts.test.ts) and installed with the funes command filled in (shipped.ts).
 */
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeIfChanged } from "./files.js";
import { shippedModule } from "./shipped.js";

/** The two scripts' file names (also how funes recognises its own hook entries). */
export const INDEX_SCRIPT = "funes-index.sh";
export const PUSH_SCRIPT = "funes-push.sh";
/** The workers' log, beside the scripts. */
export const SYNC_LOG = "funes-sync.log";

/** How the scripts run funes: argv words (e.g. [node, /path/to/main.js] or [/usr/local/bin/funes]). */
export type FunesCommand = readonly string[];

/** The file both scripts source (installed beside them). */
export const COMMON_SCRIPT = "funes-hook-common.sh";

/** The index hook script (agents/hooks/funes-index.sh). */
export function indexScript(): string {
  return shippedModule(`agents/hooks/${INDEX_SCRIPT}`, {});
}

/** The push hook script (agents/hooks/funes-push.sh). */
export function pushScript(): string {
  return shippedModule(`agents/hooks/${PUSH_SCRIPT}`, {});
}

/** What both scripts source, with the funes command filled in (agents/hooks/funes-hook-common.sh). */
export function commonScript(cmd: FunesCommand): string {
  return shippedModule(`agents/hooks/${COMMON_SCRIPT}`, { FUNES: cmd });
}

/** Writes both scripts and what they source into `dir` (mode 0755); returns whether any changed. */
export function writeHookScripts(dir: string, cmd: FunesCommand): boolean {
  const changed = [
    writeIfChanged(join(dir, COMMON_SCRIPT), commonScript(cmd), 0o755),
    writeIfChanged(join(dir, INDEX_SCRIPT), indexScript(), 0o755),
    writeIfChanged(join(dir, PUSH_SCRIPT), pushScript(), 0o755),
  ];
  chmodSync(join(dir, INDEX_SCRIPT), 0o755);
  return changed.some(Boolean);
}

/** Removes the scripts, their log and the workers' lock notes from `dir`; true if anything was there. */
export function removeHookScripts(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const ours = (f: string) =>
    f === INDEX_SCRIPT ||
    f === PUSH_SCRIPT ||
    f === COMMON_SCRIPT ||
    f === SYNC_LOG ||
    /^\.(index-[\w-]+|push)\.(lock|again)$/.test(f);
  const found = readdirSync(dir).filter(ours);
  for (const f of found) rmSync(join(dir, f), { recursive: true, force: true });
  return found.length > 0;
}

/** Removes the scripts and their log from `dir`, and `dir` once empty; says so in `report`. */
export function removeHookFolder(dir: string, report: string[]): void {
  if (removeHookScripts(dir)) report.push(`removed the hook scripts from ${dir}`);
  if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}

/** The command a hook entry runs: `bash "<script>" "<arg>"…`, with `\\` and `"` escaped. */
export function hookCommand(script: string, ...args: string[]): string {
  const q = (s: string) => `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return ["bash", q(script), ...args.map(q)].join(" ");
}

/** True for a hook command funes wrote. */
export function isFunesCommand(command: unknown): boolean {
  return typeof command === "string" && (command.includes(INDEX_SCRIPT) || command.includes(PUSH_SCRIPT));
}
