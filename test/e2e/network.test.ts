/**
 * The network environment of the Hugging Face tools, honoured by every request: HTTPS_PROXY/HTTP_PROXY
 * (a loopback CONNECT proxy that records each tunnel), NO_PROXY, and HF_HUB_OFFLINE=1 (no request at all).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, spawnFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let proxy: Server;
let proxyUrl: string;
const tunnels: string[] = [];
let refuse = false;

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, client: Socket, head: Buffer) => {
    tunnels.push(String(req.url));
    if (refuse) {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
      return;
    }
    const [host, port] = String(req.url).split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await hub.close();
  t.cleanup();
});

function env(extra: Record<string, string>): CliEnv {
  return {
    home: t.dir,
    funesHome: join(t.dir, ".funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: hub.url, ...extra },
  };
}

const hubPort = () => new URL(hub.url).port;

describe("network environment", () => {
  it("tunnels every Hub request through HTTP_PROXY, unless NO_PROXY names the host", async () => {
    tunnels.length = 0;
    const before = hub.requests.length;
    const r = await spawnFunes(["recall", "x", "--memory", "acme/nope"], env({ HTTP_PROXY: proxyUrl }));
    // The Hub's answer came back through the proxy.
    expect(r.stderr).toContain("hf://datasets/acme/nope doesn't exist on the Hub");
    expect(tunnels.length).toBeGreaterThan(0);
    expect(tunnels.every((x) => x === `127.0.0.1:${hubPort()}`)).toBe(true);
    expect(hub.requests.length).toBeGreaterThan(before);

    tunnels.length = 0;
    const bypass = await spawnFunes(
      ["recall", "x", "--memory", "acme/nope"],
      env({ HTTP_PROXY: proxyUrl, NO_PROXY: "localhost,127.0.0.1" }),
    );
    expect(bypass.stderr).toContain("doesn't exist on the Hub");
    expect(tunnels).toEqual([]);
  });

  it("says when the proxy refuses, naming the host and the cause", async () => {
    refuse = true;
    try {
      const r = await spawnFunes(["recall", "x", "--memory", "acme/nope"], env({ http_proxy: proxyUrl }));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`(127.0.0.1:${hubPort()}: the proxy refused the tunnel)`);
    } finally {
      refuse = false;
    }
  });

  it("makes no request at all with HF_HUB_OFFLINE=1", async () => {
    tunnels.length = 0;
    const before = hub.requests.length;
    const r = await spawnFunes(
      ["recall", "x", "--memory", "acme/kb"],
      env({ HF_HUB_OFFLINE: "1", HTTP_PROXY: proxyUrl }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("HF_HUB_OFFLINE is set, so no request was made");
    const push = await spawnFunes(["push", "acme/kb"], env({ HF_HUB_OFFLINE: "1", HF_TOKEN: "hf_x" }));
    expect(push.code).toBe(1);
    expect(hub.requests.length).toBe(before);
    expect(tunnels).toEqual([]);
  });

  it("catches a missing token before any write, with how to log in", async () => {
    const before = hub.requests.length;
    const r = await spawnFunes(["push", "acme/new", "--create"], env({}));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "funes: writing to hf://datasets/acme/new needs a Hugging Face token with write access — run `hf auth login` (or set HF_TOKEN), then try again\n",
    );
    // Only reads (the head probe, and whether the name is a model) reached the Hub.
    expect(hub.requests.slice(before).every((q) => q.method === "GET")).toBe(true);
    expect(hub.repos.has("acme/new")).toBe(false);
  });

  it("holds the MCP server to HF_HUB_OFFLINE too", async () => {
    const before = hub.requests.length;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: t.dir,
        FUNES_HOME: join(t.dir, ".funes"),
        HF_HUB_CACHE: TEST_HUB_CACHE,
        HF_ENDPOINT: hub.url,
        HF_HUB_OFFLINE: "1",
        FUNES_SERVER: "0",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "funes-test", version: "0" });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: "recall", arguments: { query: "x", memory: "acme/kb" } })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toContain("unreachable and no local index yet");
    } finally {
      await client.close();
    }
    expect(hub.requests.length).toBe(before);
  });

  it.skipIf(spawnSync("openssl", ["version"]).status !== 0)(
    "tunnels HTTPS through HTTPS_PROXY and verifies the Hub's certificate at the end of the tunnel",
    async () => {
      const key = join(t.dir, "key.pem");
      const cert = join(t.dir, "cert.pem");
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          key,
          "-out",
          cert,
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ],
        { stdio: "ignore" },
      );
      // An HTTPS front for the stand-in Hub.
      const front = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
        const up = request(
          `${hub.url}${req.url ?? "/"}`,
          { method: req.method, headers: req.headers },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        req.pipe(up);
      });
      await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
      const port = (front.address() as AddressInfo).port;
      tunnels.length = 0;
      try {
        const r = await spawnFunes(
          ["recall", "x", "--memory", "acme/nope"],
          env({ HF_ENDPOINT: `https://127.0.0.1:${port}`, HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: cert }),
        );
        expect(r.stderr).toContain("hf://datasets/acme/nope doesn't exist on the Hub");
        expect(tunnels).toContain(`127.0.0.1:${port}`);
        // Without the certificate trusted, the TLS failure is named.
        const untrusted = await spawnFunes(
          ["recall", "x", "--memory", "acme/nope"],
          env({ HF_ENDPOINT: `https://127.0.0.1:${port}`, HTTPS_PROXY: proxyUrl }),
        );
        expect(untrusted.code).toBe(1);
        expect(untrusted.stderr).toMatch(/\(127\.0\.0\.1:\d+: TLS: /);
      } finally {
        front.closeAllConnections();
        await new Promise((r) => front.close(r));
      }
    },
  );
});
