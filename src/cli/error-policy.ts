/**
 * The CLI's half of the error policy (commands/errors.ts holds the meanings and their sentences): each
 * meaning's exit code, and the one line a failed run prints. A stack trace is printed only with
 * FUNES_DEBUG=1.
 */
import { describeFailure, type FunesErrorCode } from "../commands/index.js";
import { messageLine, safeText } from "../format/index.js";
import { UnknownHarnessError } from "../traces/index.js";
import { UsageError } from "./usage-error.js";

/**
 * Exit codes: 0 done, 1 failed, 2 bad usage or input (and a run that changed nothing because the user or
 * the secret gate said no), 75 busy (try again). The numbers are part of the CLI's contract (docs/commands.md,
 * "Exit codes"): hooks and scripts branch on 75 and 2.
 */
export const EXIT: Record<FunesErrorCode | "unexpected", number> = {
  no_sessions: 1,
  no_memory: 1,
  no_access: 1,
  unreachable: 1,
  hub_refused: 1,
  bad_input: 2,
  busy: 75,
  declined: 2,
  held_back: 2,
  refused_memory: 1,
  incompatible_memory: 1,
  unreadable_source: 1,
  disk_full: 1,
  unexpected: 1,
};

/** What a failed run prints on stderr, and its exit code. */
export interface FailureReport {
  text: string;
  exitCode: number;
}

/**
 * The report for anything a command threw: `funes: <one line>` and the meaning's exit code; with `debug`
 * (FUNES_DEBUG=1) the stack follows. `home` (funes's home) is named when a full disk's error names no file. Messages may name a stranger's files, ids or model name: no control
 * character reaches the terminal raw, and a newline inside one shows as `\n` (messageLine).
 */
export function failureReport(
  err: unknown,
  o: { debug: boolean; hubUrl?: string; home?: string },
): FailureReport {
  const stack = o.debug ? safeText(stackOf(err)) : "";
  if (err instanceof UsageError || err instanceof UnknownHarnessError)
    return { text: `funes: ${messageLine(err.message)}\n${stack}`, exitCode: EXIT.bad_input };
  if (err instanceof Error && err.name === "CACError")
    return {
      text: `funes: ${messageLine(err.message)} — see funes --help\n${stack}`,
      exitCode: EXIT.bad_input,
    };
  const line = describeFailure(err, o.hubUrl, o.home);
  return { text: `funes: ${messageLine(line.message)}\n${stack}`, exitCode: EXIT[line.code] };
}

/** The stack of `err` and of each error along its `cause` chain (for FUNES_DEBUG=1), each line-terminated. */
function stackOf(err: unknown, depth = 0): string {
  if (!(err instanceof Error) || depth > 4) return "";
  const own = `${depth > 0 ? "caused by: " : ""}${err.stack ?? err.message}\n`;
  return own + stackOf(err.cause, depth + 1);
}
