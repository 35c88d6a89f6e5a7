/**
 * Why a request to the Hub failed, in words: Node's fetch says only "fetch failed" and hides the cause
 * (DNS, refused, TLS, timeout) one or two levels down.
 */

const CODES: Record<string, string> = {
  HF_HUB_OFFLINE: "HF_HUB_OFFLINE is set, so no request was made",
  PROXY_REFUSED: "the proxy refused the tunnel",
  PROXY_INVALID: "the proxy setting is not a URL",
  // undici's wrapper for the one TLS failure it renames at the end of a proxy tunnel.
  UND_ERR_PRX_TLS: "TLS: certificate is for another host",
  ENOTFOUND: "DNS lookup failed",
  EAI_AGAIN: "DNS lookup failed (temporary)",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "timed out",
  UND_ERR_CONNECT_TIMEOUT: "timed out connecting",
  UND_ERR_HEADERS_TIMEOUT: "timed out waiting for an answer",
  UND_ERR_SOCKET: "connection closed",
  CERT_HAS_EXPIRED: "TLS: certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS: self-signed certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS: self-signed certificate in the chain (a proxy? set NODE_EXTRA_CA_CERTS)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS: certificate not trusted (set NODE_EXTRA_CA_CERTS?)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "TLS: certificate issuer unknown (set NODE_EXTRA_CA_CERTS?)",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS: certificate is for another host",
};

/** The first error code found along `err.cause` (and inside an AggregateError), or null. */
function codeOf(err: unknown, depth = 0): { code: string | null; message: string | null } {
  if (err === null || typeof err !== "object" || depth > 4) return { code: null, message: null };
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[]; name?: unknown; message?: unknown };
  // undici's ProxyAgent words a refused CONNECT only in an abort's message.
  if (e.code === "UND_ERR_ABORTED" && /^Proxy response \(\d+\)/.test(String(e.message)))
    return { code: "PROXY_REFUSED", message: null };
  if (e.name === "TimeoutError" || e.name === "AbortError") return { code: "ETIMEDOUT", message: null };
  if (typeof e.code === "string") return { code: e.code, message: String(e.message ?? "") };
  const inner = codeOf(e.cause, depth + 1);
  if (inner.code !== null) return inner;
  for (const x of e.errors ?? []) {
    const found = codeOf(x, depth + 1);
    if (found.code !== null) return found;
  }
  const cause = e.cause as { message?: unknown } | undefined;
  return { code: null, message: typeof cause?.message === "string" ? cause.message : null };
}

/**
 * A download whose connection went away mid-stream, or whose file the endpoint did not send: the client
 * reports these with a bare message and no cause, so they are named here to read as "unreachable".
 */
export class HubConnectionLostError extends Error {
  override readonly name = "HubConnectionLostError";
  /** Read by {@link describeNetworkError} through the same path as undici's codes. */
  readonly code = "UND_ERR_SOCKET";
}

/** True when `err` is the refusal `HF_HUB_OFFLINE` makes (no request was made), not a network failure. */
export function isOfflineMode(err: unknown): boolean {
  return codeOf(err).code === "HF_HUB_OFFLINE";
}

/**
 * True when `err` is a failure to talk to the host at all: an undici or Node network code along its
 * `cause` chain (DNS, refused, reset, TLS, proxy, `HF_HUB_OFFLINE`), a timeout or abort, or a lost
 * connection, or undici's "fetch failed". Any other TypeError is not: fetch also throws one for a bad URL or
 * header, which no retry or "check your connection" fixes.
 */
export function isNetworkFailure(err: unknown): boolean {
  const { code } = codeOf(err);
  // undici words every failure to get an answer "fetch failed", some with no code below (a port fetch
  // refuses to use, a dropped socket on some paths); a bad URL or header is another TypeError.
  if (code === null) return err instanceof TypeError && err.message === "fetch failed";
  // An fs code (ENOENT, ENOSPC) along the chain is this machine's problem, not the network's.
  return (
    code in CODES ||
    code.startsWith("UND_ERR") ||
    code.startsWith("ERR_TLS") ||
    code.startsWith("ERR_SSL") ||
    code.includes("CERT") ||
    NETWORK_CODES.has(code)
  );
}

/** Socket-level codes beyond those {@link CODES} words. */
const NETWORK_CODES = new Set([
  "ECONNABORTED",
  "EPIPE",
  "EPROTO",
  "ENETDOWN",
  "EHOSTDOWN",
  "ESOCKETTIMEDOUT",
]);

/** `"<host>: <cause>"` for a failed request to `url` (DNS, refused, TLS, timeout, …). */
export function describeNetworkError(err: unknown, url: string): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // not a URL: name it as given
  }
  const { code, message } = codeOf(err);
  const why =
    code !== null
      ? (CODES[code] ?? (code.startsWith("ERR_TLS") || code.includes("CERT") ? `TLS: ${code}` : code))
      : (message ?? (err instanceof Error ? err.message : String(err)));
  return `${host}: ${why}`;
}
