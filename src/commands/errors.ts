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
