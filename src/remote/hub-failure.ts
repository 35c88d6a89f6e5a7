/**
 * What a failed Hub call means, read once here from HTTP statuses and network causes, so that nothing above
 * `remote/` inspects either. Used for the failures no caller planned around: the CLI and the MCP server turn
 * the answer into one sentence and an exit code.
 */
import { httpStatus, isUnreachable } from "./access.js";
import { describeNetworkError } from "./network-error.js";

/** A Hub failure by meaning, with what the Hub or the network said. */
export interface HubFailure {
  /** offline: no answer (or a 5xx); no_access: the token is missing or wrong; hub_refused: the Hub said no. */
  kind: "offline" | "no_access" | "hub_refused" | "not_found";
  /** Who failed and why, in a few words: `"hub.example: connection refused"`, `"HTTP 403: …"`. */
  detail: string;
}

/** The request URL a Hub client error carries, if any. */
function urlOf(err: unknown): string | null {
  const u = (err as { url?: unknown } | null)?.url;
  return typeof u === "string" ? u : null;
}

/**
 * The meaning of `err` when it is a Hub answer or a network failure; null when it is neither (a bug, a
 * disk error), which callers report as unexpected. `hubUrl` names the host when the error does not.
 */
export function hubFailure(err: unknown, hubUrl?: string): HubFailure | null {
  const status = httpStatus(err);
  const said = err instanceof Error && err.message !== "" ? `: ${err.message.slice(0, 200)}` : "";
  if (status !== null) {
    if (isUnreachable(err)) return { kind: "offline", detail: `HTTP ${status}${said}` };
    if (status === 401) return { kind: "no_access", detail: `HTTP ${status}${said}` };
    if (status === 404) return { kind: "not_found", detail: `HTTP ${status}${said}` };
    if (status >= 400) return { kind: "hub_refused", detail: `HTTP ${status}${said}` };
    return null;
  }
  if (!isUnreachable(err)) return null;
  return { kind: "offline", detail: describeNetworkError(err, urlOf(err) ?? hubUrl ?? "the Hub") };
}
