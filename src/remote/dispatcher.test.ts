import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hubParams } from "./access.js";
import { applyNetworkEnv, networkEnv } from "./dispatcher.js";
import { describeNetworkError } from "./network-error.js";

describe("networkEnv", () => {
  it("reads lowercase first, a bare host:port as http://, and `*` anywhere in NO_PROXY as everything", () => {
    expect(
      networkEnv({ https_proxy: "proxy.corp:3128", HTTPS_PROXY: "http://other:1", NO_PROXY: "a.b, *" }),
    ).toEqual({ offline: false, httpsProxy: "http://proxy.corp:3128", httpProxy: null, noProxy: "*" });
    expect(networkEnv({ HTTP_PROXY: "https://p:8443", HF_HUB_OFFLINE: "yes", no_proxy: ".hf.co" })).toEqual({
      offline: true,
      httpsProxy: "https://p:8443",
      httpProxy: "https://p:8443",
      noProxy: ".hf.co",
    });
  });
});

describe("applyNetworkEnv", () => {
  const node = getGlobalDispatcher();
  const connects: { url: string; headers: IncomingHttpHeaders }[] = [];
  const target = createServer((_req, res) => res.end("hello"));
  const proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, client: Socket) => {
    connects.push({ url: String(req.url), headers: req.headers });
    client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
  });
  const port = (s: typeof proxy) => (s.address() as AddressInfo).port;
  beforeAll(async () => {
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    setGlobalDispatcher(node);
    await new Promise((r) => target.close(r));
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  });

  /** What a Hub request (Node's own fetch) gets from the target: its text, or the failure in funes's words. */
  const get = async () => {
    const url = `http://127.0.0.1:${port(target)}/`;
    return hubParams({ hubUrl: url })
      .fetch(url)
      .then(
        (r) => r.text(),
        (err: unknown) => describeNetworkError(err, url),
      );
  };

  it("sends the proxy's credentials with the CONNECT, and names a refused tunnel", async () => {
    await applyNetworkEnv(networkEnv({ HTTP_PROXY: `http://us%40er:p%3Ass@127.0.0.1:${port(proxy)}` }));
    expect(await get()).toBe(`127.0.0.1:${port(target)}: the proxy refused the tunnel`);
    expect(connects.at(-1)?.url).toBe(`127.0.0.1:${port(target)}`);
    expect(connects.at(-1)?.headers["proxy-authorization"]).toBe(
      `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`,
    );
  });

  it("goes direct to a NO_PROXY host, and to every host once the environment names no proxy", async () => {
    const before = connects.length;
    await applyNetworkEnv(networkEnv({ HTTP_PROXY: `127.0.0.1:${port(proxy)}`, NO_PROXY: "127.0.0.1" }));
    expect(await get()).toBe("hello");
    expect(connects.length).toBe(before);
    await applyNetworkEnv(networkEnv({ HTTP_PROXY: `127.0.0.1:${port(proxy)}` }));
    expect(await get()).toContain("the proxy refused the tunnel");
    await applyNetworkEnv(networkEnv({}));
    expect(await get()).toBe("hello");
    expect(getGlobalDispatcher()).toBe(node);
  });

  it("refuses every connection under a proxy setting that is not a URL, or HF_HUB_OFFLINE", async () => {
    await applyNetworkEnv(networkEnv({ HTTP_PROXY: "http://bad host:1" }));
    expect(await get()).toBe(`127.0.0.1:${port(target)}: the proxy setting is not a URL`);
    await applyNetworkEnv(networkEnv({ HF_HUB_OFFLINE: "1" }));
    expect(await get()).toBe(`127.0.0.1:${port(target)}: HF_HUB_OFFLINE is set, so no request was made`);
  });
});
