/**
 * What a failed Hub call means, read once here from HTTP statuses and network causes, so that nothing above
 * `remote/` inspects either. Used for the failures no caller planned around: the CLI and the MCP server turn
 * the answer into one sentence and an exit code.
 */
import { httpStatus, isUnreachable } from "./access.js";
import { describeNetworkError } from "./network-error.js";

/** The head moved between reading it and committing. */
export class HubConflictError extends Error {}

/** The token may read but not write this repo. */
export class HubReadOnlyError extends Error {}

/** The Hub could not be reached while committing (network, timeout, 5xx): nothing was committed. */
export class HubCommitUnreachableError extends Error {}

/**
 * What a failed write (a commit, a squash, a repo creation) means, as the error its callers catch: the
 * head moved (412, or 409 on a commit), the token cannot write (401/403: `readOnly` says it), or no answer
 * (network, timeout, 5xx: nothing was written); null for anything else, which the caller throws as it is.
 */
export function writeFailure(
  err: unknown,
  o: { hubUrl: string; readOnly: string },
): HubConflictError | HubReadOnlyError | HubCommitUnreachableError | null {
  const status = httpStatus(err);
  if (status === 412 || status === 409) return new HubConflictError("the remote moved while publishing");
  if (status === 401 || status === 403) return new HubReadOnlyError(o.readOnly);
  if (isUnreachable(err))
    // fetch says only "fetch failed": name the host and the cause (reset, refused, DNS, TLS, timeout).
    return new HubCommitUnreachableError(
      status === null ? describeNetworkError(err, o.hubUrl) : `HTTP ${status}`,
      { cause: err },
    );
  return null;
}

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
