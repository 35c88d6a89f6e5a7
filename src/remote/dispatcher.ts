/**
 * Every request funes makes (Hub calls, model downloads) goes through Node's fetch, whose connections come
 * from one global dispatcher. This replaces it, once, before the first request, to honour the Hugging Face
 * tools' environment: `HF_HUB_OFFLINE=1` refuses every connection (so no request is ever made), and
 * `HTTPS_PROXY`/`HTTP_PROXY` (and lowercase) tunnel connections through a proxy with CONNECT, except to hosts
 * in `NO_PROXY` — undici's `EnvHttpProxyAgent`, installed with undici's `setGlobalDispatcher`, which writes
 * the global slot Node's own fetch reads. undici takes about as long to load as a quick command takes to
 * run, so it is loaded before the first request (each goes through `hubParams`), not at start.
 */
import type { Dispatcher } from "undici";

/** The network settings read from the environment (by cli/). */
export interface NetworkEnv {
  /** `HF_HUB_OFFLINE` is on: no request at all. */
  offline: boolean;
  /** A proxy URL (a bare `host:port` is read as `http://`, as curl does), or null. */
  httpsProxy: string | null;
  httpProxy: string | null;
  /** `NO_PROXY` as given: host names, `.suffix`/`*.suffix`, host:port, or `*`, comma- or space-separated. */
  noProxy: string;
}

/** Reads the variables (lowercase first, as curl and undici do). */
export function networkEnv(env: Record<string, string | undefined>): NetworkEnv {
  const get = (name: string) => {
    const v = env[name.toLowerCase()] ?? env[name];
    return v === undefined || v.trim() === "" ? null : v.trim();
  };
  const proxy = (v: string | null) => (v === null || v.includes("://") ? v : `http://${v}`);
  const offline = (env.HF_HUB_OFFLINE ?? "").trim().toLowerCase();
  // undici reads `*` as "never proxy" only as the whole value; anywhere in the list it means that too.
  const noProxy = get("NO_PROXY") ?? "";
  return {
    offline: offline === "1" || offline === "true" || offline === "yes",
    httpsProxy: proxy(get("HTTPS_PROXY") ?? get("HTTP_PROXY")),
    httpProxy: proxy(get("HTTP_PROXY")),
    noProxy: noProxy.split(/[\s,]+/).includes("*") ? "*" : noProxy,
  };
}

/** The environment a dispatcher is owed for, until the first request installs it. */
let owed: NetworkEnv | null = null;
let installed: Promise<void> = Promise.resolve();
/** Node's own dispatcher, while ours replaces it. */
let nodes: Dispatcher | null = null;

/**
 * Sets the network environment for the requests to come: a dispatcher when it asks for one (offline, or a
 * proxy), else Node's own (put back if an earlier call replaced it). Call before any request.
 */
export async function applyNetworkEnv(net: NetworkEnv): Promise<void> {
  owed = net.offline || net.httpsProxy !== null || net.httpProxy !== null ? net : null;
  if (owed === null && nodes !== null) (await import("undici")).setGlobalDispatcher(nodes);
  if (owed === null) nodes = null;
}

/** Resolves once the dispatcher the environment asks for is in place; awaited before every request. */
export function networkReady(): Promise<void> {
  if (owed !== null) {
    installed = install(owed);
    owed = null;
  }
  return installed;
}

async function install(net: NetworkEnv): Promise<void> {
  const { Agent, EnvHttpProxyAgent, getGlobalDispatcher, setGlobalDispatcher } = await import("undici");
  nodes ??= getGlobalDispatcher();
  // A dispatcher whose every connection fails with `code` (read by network-error.ts): nothing is sent.
  const refusing = (code: string, message: string) =>
    new Agent({ connect: (_o, cb) => cb(Object.assign(new Error(message), { code }), null) });
  if (net.offline) return setGlobalDispatcher(refusing("HF_HUB_OFFLINE", "HF_HUB_OFFLINE is set"));
  try {
    // Every value passed (never undefined), so undici reads nothing from process.env itself.
    setGlobalDispatcher(
      new EnvHttpProxyAgent({
        httpProxy: net.httpProxy ?? "",
        httpsProxy: net.httpsProxy ?? "",
        noProxy: net.noProxy,
      }),
    );
  } catch {
    setGlobalDispatcher(refusing("PROXY_INVALID", "the proxy setting is not a URL"));
  }
}
