/**
 * How to reach the Hub: endpoint (`HF_ENDPOINT`), token, and an injectable fetch. Every call passes the
 * endpoint explicitly (the client itself does not read `HF_ENDPOINT`).
 */
import { withoutDebugOutput } from "../quiet/index.js";
import { isNetworkFailure } from "./network-error.js";
import { quoteForMessage, UnsafeHubAnswerError } from "./validate.js";

/** Hub connection settings. */
export interface HubClient {
  hubUrl: string;
  token?: string | undefined;
  fetch?: typeof fetch | undefined;
}

/** The credentials/endpoint fields @huggingface/hub calls take. */
export function hubParams(c: HubClient, timeoutMs?: number) {
  const base = c.fetch ?? fetch;
  const f: typeof fetch =
    timeoutMs === undefined
      ? base
      : (input, init) => base(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  return { hubUrl: c.hubUrl, fetch: f, ...(c.token !== undefined ? { accessToken: c.token } : {}) };
}

/**
 * The same for reading a memory, where every request the client makes must go to the endpoint itself: a
 * listing's `Link: next` or a download's info naming another host is refused before anything (a token
 * included) is sent there. Redirects the endpoint answers with are followed by fetch, which drops the
 * token on a cross-origin hop.
 */
export function readParams(c: HubClient, timeoutMs?: number) {
  const p = hubParams(c, timeoutMs);
  const origin = new URL(c.hubUrl).origin;
  const guarded: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (new URL(url).origin !== origin)
      return Promise.reject(
        new UnsafeHubAnswerError(
          `the Hub sent funes to ${quoteForMessage(new URL(url).origin)}, not ${origin}`,
        ),
      );
    return p.fetch(input, init);
  };
  return { ...p, fetch: guarded };
}

/**
 * Runs a Hub client call with console.debug muted: the client logs each download there, which would land
 * on stdout, the MCP server's protocol channel.
 */
export const quietly = withoutDebugOutput;

/** The HTTP status of a Hub API error, if that is what `err` is. */
export function httpStatus(err: unknown): number | null {
  const s = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof s === "number" ? s : null;
}

/**
 * True for failures that mean "could not reach the Hub": a 5xx answer, or no answer at all (network codes
 * along the error's cause, timeouts, a lost connection; see {@link isNetworkFailure}).
 */
export function isUnreachable(err: unknown): boolean {
  const status = httpStatus(err);
  if (status !== null) return status >= 500 && status <= 504;
  return isNetworkFailure(err);
}

/**
 * The Hub client library, imported on first use: commands that never talk to the Hub (a shell recall of
 * the local memory) do not pay for loading it.
 */
export function hubLibrary(): Promise<typeof import("@huggingface/hub")> {
  return import("@huggingface/hub");
}
