/**
 * How to reach the Hub: endpoint (`HF_ENDPOINT`), token, and an injectable fetch. Every call passes the
 * endpoint explicitly (the client itself does not read `HF_ENDPOINT`).
 */
import { withoutDebugOutput } from "../quiet/index.js";
import { networkReady } from "./dispatcher.js";
import { isNetworkFailure } from "./network-error.js";
import { quoteForMessage, UnsafeHubAnswerError } from "./validate.js";

/** Hub connection settings. */
export interface HubClient {
  hubUrl: string;
  token?: string | undefined;
  fetch?: typeof fetch | undefined;
}

/**
 * The Hub client for a config's endpoint and token (the CLI reads both once: `HF_ENDPOINT`, the token
 * variables and file): the one place a client is built, so every call reaches the same Hub the same way.
 */
export function hubClient(c: { hubUrl: string; token?: string | undefined }): HubClient {
  return { hubUrl: c.hubUrl, token: c.token };
}

/** The credentials/endpoint fields @huggingface/hub calls take. */
export function hubParams(c: HubClient, timeoutMs?: number) {
  const base = c.fetch ?? fetch;
  // Every request waits for the proxy/offline dispatcher the environment asks for (dispatcher.ts).
  const f: typeof fetch = async (input, init) => {
    await networkReady();
    return base(input, timeoutMs === undefined ? init : { ...init, signal: AbortSignal.timeout(timeoutMs) });
  };
  return { hubUrl: c.hubUrl, fetch: f, ...(c.token !== undefined ? { accessToken: c.token } : {}) };
}

/** Redirects one download may take before funes gives up on it. */
const MAX_REDIRECTS = 5;

/**
 * Whether a redirect the endpoint answers with may be followed: to the endpoint itself, or over https to a
 * host of its own domain (the Hub's download hosts are `*.hf.co` and `*.huggingface.co`). Anything else —
 * another host, a loopback or link-local address, plain http — is a place the endpoint has no business
 * sending funes.
 */
function mayRedirectTo(target: URL, endpoint: URL): boolean {
  if (target.origin === endpoint.origin) return true;
  if (target.protocol !== "https:") return false;
  const own = endpoint.hostname;
  const domains =
    own === "huggingface.co" || own.endsWith(".huggingface.co") ? ["huggingface.co", "hf.co"] : [own];
  return domains.some((d) => target.hostname === d || target.hostname.endsWith(`.${d}`));
}

/** `headers` without credentials, for a hop to another origin. */
function withoutCredentials(headers: RequestInit["headers"]): Headers {
  const h = new Headers(headers);
  h.delete("authorization");
  h.delete("cookie");
  return h;
}

/**
 * Bytes an answer in JSON may hold when a memory is read (a listing page of 1,000 files is ~0.5 MB, a
 * repo's info a few KB): the client reads an answer whole before parsing it, so an endless one would take
 * the heap with it.
 */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;

/** Statuses whose answers carry no body (a Response cannot be made with one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * `res` with its body cut off past `max` bytes: reading it on then fails with an UnsafeHubAnswerError naming
 * the limit (and an answer that declares a larger length fails at once).
 */
function capped(res: Response, max: number, url: URL): Response {
  if (res.body === null || NULL_BODY.has(res.status)) return res;
  const tooLarge = () =>
    new UnsafeHubAnswerError(
      `the Hub answered more than ${(max / 1048576).toFixed(0)} MiB for ${quoteForMessage(url.pathname)}, more than funes reads there — check HF_ENDPOINT and who published the memory`,
    );
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    void res.body.cancel().catch(() => {});
    throw tooLarge();
  }
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
  const out = new Response(res.body.pipeThrough(limit), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
  // The client reads the final URL of an answer (a redirected download's).
  Object.defineProperty(out, "url", { value: res.url });
  return out;
}

/**
 * The same for reading a memory, where every request the client makes must go to the endpoint itself: a
 * listing's `Link: next` or a download's info naming another host is refused before anything (a token
 * included) is sent there. Redirects are followed here, one hop at a time, only to the endpoint or a host
 * of its own domain over https (the Hub's download hosts), with the token dropped on a hop to another
 * origin; any other redirect is refused naming where it pointed. An answer in JSON is read up to
 * {@link MAX_JSON_ANSWER_BYTES}, and with `maxBytes` any answer up to that.
 */
export function readParams(c: HubClient, timeoutMs?: number, o: { maxBytes?: number } = {}) {
  const p = hubParams(c, timeoutMs);
  const endpoint = new URL(c.hubUrl);
  const origin = endpoint.origin;
  const refuse = (url: URL, how: string) =>
    Promise.reject(new UnsafeHubAnswerError(`the Hub ${how} ${quoteForMessage(url.origin)}, not ${origin}`));
  const guarded: typeof fetch = async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return refuse(url, "sent funes to");
    // A caller that handles redirects itself gets them as they are.
    if (init?.redirect === "manual" || init?.redirect === "error") return p.fetch(input, init);
    let res = await p.fetch(input, { ...init, redirect: "manual" });
    for (let hops = 0; res.status >= 300 && res.status < 400 && res.headers.has("location"); hops++) {
      const next = new URL(res.headers.get("location") as string, url);
      if (hops >= MAX_REDIRECTS || !mayRedirectTo(next, endpoint))
        return refuse(
          next,
          hops >= MAX_REDIRECTS ? "redirected funes too many times, last to" : "redirected funes to",
        );
      await res.body?.cancel();
      const headers = next.origin === origin ? new Headers(init?.headers) : withoutCredentials(init?.headers);
      res = await p.fetch(next, { ...init, headers, redirect: "manual" });
      url = next;
    }
    if (o.maxBytes !== undefined) return capped(res, o.maxBytes, url);
    return (res.headers.get("content-type") ?? "").includes("json")
      ? capped(res, MAX_JSON_ANSWER_BYTES, url)
      : res;
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
