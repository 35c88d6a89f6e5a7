/**
 * The warning a command run on a terminal prints, once per refusal, when an agent's hook push refused to
 * publish (its log is read by nobody): one line on stderr naming the memory and the command that fixes it.
 */
import { type HookRefusal, takeUnwarnedRefusals } from "../commands/index.js";

/** The warning line for one refusal. */
export function refusalWarning(r: HookRefusal): string {
  return `warning: a hook push to ${r.memory} refused to publish — fix: ${r.fix} (\`funes status\` says why)\n`;
}

/** Prints each refusal not warned of yet (and marks it warned); a warning never stops the command. */
export function warnOfRefusals(funesHome: string, write: (line: string) => void): void {
  try {
    for (const r of takeUnwarnedRefusals(funesHome)) write(refusalWarning(r));
  } catch {
    // An unreadable home: `funes doctor` says what is wrong with it.
  }
}
