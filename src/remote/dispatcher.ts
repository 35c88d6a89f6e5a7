/**
 * Every request funes makes (Hub calls, model downloads) goes through Node's fetch, whose connections come
 * from one global dispatcher. This replaces it, once, before the first request, to honour the Hugging Face
 * tools' environment: `HF_HUB_OFFLINE=1` refuses every connection (so no request is ever made), and
 * `HTTPS_PROXY`/`HTTP_PROXY` (and lowercase) tunnel connections through a proxy with CONNECT, except to hosts
 * in `NO_PROXY`. Node 20 bundles undici without exporting its proxy agents and `undici` is not a dependency,
 * so the bundled Agent class is reused with a custom connector and installed under undici's global
 * dispatcher symbol (the one `setGlobalDispatcher` writes).
 */
import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";

const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** What undici hands a connector. */
interface ConnectOptions {
  hostname: string;
  protocol: string;
  port: string | number;
  servername?: string | null;
}
type Connector = (o: ConnectOptions, cb: (err: Error | null, socket: Socket | null) => void) => void;

/** The network settings read from the environment (by cli/). */
export interface NetworkEnv {
  /** `HF_HUB_OFFLINE` is on: no request at all. */
  offline: boolean;
  httpsProxy: string | null;
  httpProxy: string | null;
  /** `NO_PROXY` entries: host names, `.suffix`/`*.suffix`, host:port, or `*`. */
  noProxy: string[];
}

/** Reads the variables (lowercase first, as curl and undici do). */
export function networkEnv(env: Record<string, string | undefined>): NetworkEnv {
  const get = (name: string) => {
    const v = env[name.toLowerCase()] ?? env[name];
    return v === undefined || v.trim() === "" ? null : v.trim();
  };
  const offline = (env.HF_HUB_OFFLINE ?? "").trim().toLowerCase();
  return {
    offline: offline === "1" || offline === "true" || offline === "yes",
    httpsProxy: get("HTTPS_PROXY") ?? get("HTTP_PROXY"),
    httpProxy: get("HTTP_PROXY"),
    noProxy: (get("NO_PROXY") ?? "")
      .split(/[\s,]+/)
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ""),
  };
}

/** Whether `host:port` bypasses the proxy. */
export function bypassesProxy(host: string, port: number, noProxy: string[]): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return noProxy.some((entry) => {
    if (entry === "*") return true;
    const [name = "", p] = entry.split(/:(?=\d+$)/);
    if (p !== undefined && Number(p) !== port) return false;
    const bare = name.replace(/^\*?\./, "");
    return h === bare || h.endsWith(`.${bare}`);
  });
}

/** The TLS server name for `host`: none for an IP address (RFC 6066 allows names only). */
function serverName(host: string, given?: string | null): { servername?: string } {
  const name = given ?? host;
  return isIP(name) === 0 ? { servername: name } : {};
}

function defaultPort(protocol: string): number {
  return protocol === "https:" ? 443 : 80;
}

/** A connection to `o` through `proxy` (an http:// or https:// URL), tunnelled with CONNECT. */
function viaProxy(proxy: URL, o: ConnectOptions, cb: (err: Error | null, socket: Socket | null) => void) {
  const port = Number(o.port) || defaultPort(o.protocol);
  const proxyPort = Number(proxy.port) || defaultPort(proxy.protocol);
  const raw: Socket =
    proxy.protocol === "https:"
      ? tlsConnect({ host: proxy.hostname, port: proxyPort, ...serverName(proxy.hostname) })
      : netConnect({ host: proxy.hostname, port: proxyPort });
  const fail = (err: Error) => {
    raw.destroy();
    cb(err, null);
  };
  raw.once("error", fail);
  raw.once(proxy.protocol === "https:" ? "secureConnect" : "connect", () => {
    const auth =
      proxy.username === ""
        ? ""
        : `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}\r\n`;
    raw.write(`CONNECT ${o.hostname}:${port} HTTP/1.1\r\nHost: ${o.hostname}:${port}\r\n${auth}\r\n`);
  });
  let head = "";
  const onData = (d: Buffer) => {
    head += d.toString("latin1");
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    raw.off("data", onData);
    raw.off("error", fail);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    if (status !== 200) {
      raw.destroy();
      const err = new Error(
        `the proxy ${proxy.host} refused the tunnel to ${o.hostname}:${port} (HTTP ${status})`,
      );
      cb(Object.assign(err, { code: "PROXY_REFUSED" }), null);
      return;
    }
    if (o.protocol !== "https:") return cb(null, raw);
    const tls = tlsConnect({ socket: raw, ...serverName(o.hostname, o.servername) });
    tls.once("secureConnect", () => cb(null, tls));
    tls.once("error", (err) => cb(err, null));
  };
  raw.on("data", onData);
}

/** A direct connection, as undici's own connector makes. */
function direct(o: ConnectOptions, cb: (err: Error | null, socket: Socket | null) => void) {
  const port = Number(o.port) || defaultPort(o.protocol);
  const s: Socket =
    o.protocol === "https:"
      ? tlsConnect({ host: o.hostname, port, ...serverName(o.hostname, o.servername) })
      : netConnect({ host: o.hostname, port });
  s.once(o.protocol === "https:" ? "secureConnect" : "connect", () => cb(null, s));
  s.once("error", (err) => cb(err, null));
}

function connector(net: NetworkEnv): Connector {
  return (o, cb) => {
    if (net.offline) {
      cb(
        Object.assign(new Error(`HF_HUB_OFFLINE is set: no request to ${o.hostname}`), {
          code: "HF_HUB_OFFLINE",
        }),
        null,
      );
      return;
    }
    const proxy = o.protocol === "https:" ? net.httpsProxy : net.httpProxy;
    const port = Number(o.port) || defaultPort(o.protocol);
    if (proxy === null || bypassesProxy(o.hostname, port, net.noProxy)) return direct(o, cb);
    let url: URL;
    try {
      url = new URL(proxy.includes("://") ? proxy : `http://${proxy}`);
    } catch {
      cb(Object.assign(new Error(`the proxy "${proxy}" is not a URL`), { code: "PROXY_INVALID" }), null);
      return;
    }
    viaProxy(url, o, cb);
  };
}

/**
 * Installs the dispatcher when the environment asks for one (offline, or a proxy); otherwise leaves Node's
 * own. Call once, before any request.
 */
export async function applyNetworkEnv(net: NetworkEnv): Promise<void> {
  if (!net.offline && net.httpsProxy === null && net.httpProxy === null) return;
  const slot = globalThis as unknown as Record<
    symbol,
    { constructor: new (o: object) => unknown } | undefined
  >;
  if (slot[GLOBAL_DISPATCHER] === undefined)
    // Makes Node create its default Agent (a "bad port" fetch is refused before any connection is tried).
    await fetch("http://127.0.0.1:1/").catch(() => undefined);
  const Agent = slot[GLOBAL_DISPATCHER]?.constructor;
  if (Agent === undefined) return;
  slot[GLOBAL_DISPATCHER] = new Agent({ connect: connector(net) }) as never;
}
