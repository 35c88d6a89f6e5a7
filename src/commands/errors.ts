/**
 * The one exception type commands throw for outcomes a caller does not plan around. `code` lets the CLI
 * pick an exit code and the MCP server a tool error without reading messages.
 */

/** What went wrong, for exit codes and tool results. */
export type FunesErrorCode =
  | "no_sessions"
  | "unreadable_source"
  | "busy"
  | "no_memory"
  | "incompatible_memory"
  | "bad_input"
  | "unreachable"
  /** A Hub memory funes will not open: hostile answers or manifests, damaged files, over the download cap. */
  | "refused_memory";

/** A failure with a message that says what failed and what to do next. */
export class FunesError extends Error {
  constructor(
    readonly code: FunesErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** What {@link BadArgumentError} is built from. */
export interface BadArgument {
  /** The MCP tools' name for the argument (`since`, `block_type`, `harness`, `query`). */
  arg: string;
  /** How the CLI spells it (`--since`, `--type`). */
  flag: string;
  /** The value as given. */
  value: string;
  /** What is wrong with it, after the quoted value ("is not a date…"). */
  problem: string;
  /** The CLI's message when `flag "value" problem` does not read well (a positional argument). */
  message?: string;
}

/**
 * A bad value for one named argument. The message names the CLI flag (`--since`); `arg` is the argument's
 * own name elsewhere (the MCP tools' `since`, `block_type`), so each front end names what its user typed.
 */
export class BadArgumentError extends FunesError {
  readonly arg: string;
  readonly value: string;
  private readonly problem: string;

  constructor(bad: BadArgument) {
    super("bad_input", bad.message ?? `${bad.flag} "${bad.value}" ${bad.problem}`);
    this.arg = bad.arg;
    this.value = bad.value;
    this.problem = bad.problem;
  }

  /** The message naming the argument by its own name (`arg`) instead of the CLI flag. */
  messageForArg(): string {
    return `${this.arg} "${this.value}" ${this.problem}`;
  }
}
