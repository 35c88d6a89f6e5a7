/**
 * An endpoint (a mirror in HF_ENDPOINT, or an interceptor on a plain-http one) that answers a memory's
 * downloads with redirects. fetch used to follow any redirect, so the endpoint could send funes to any host
 * — another machine, a service on loopback — without the token but with a request all the same. Now a
 * redirect is followed only to the endpoint itself or over https to its own domain (the Hub's download
 * hosts); anything else is refused naming where it pointed, and that host gets nothing. And an endpoint
 * whose listing pages on forever: funes used to hold every entry until the listing ended (never); it now
 * stops once the listing names more files than the download cap can hold.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow, COLUMNS, EMBEDDING_MODEL } from "../../src/local/index.js";
import { runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin, tableRepoFiles } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
const servers: Server[] = [];

/** A server on loopback; its URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handle);
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** Passes a request on to the stand-in at `path`. */
function relay(req: IncomingMessage, res: ServerResponse, path: string): void {
  const up = request(`${hub.url}${path}`, { method: req.method, headers: req.headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  req.pipe(up);
}

beforeAll(async () => {
  t = tempDir();
  const ints = new Set(["seq", "block_idx", "split_idx"]);
  const vector = new arrow.FixedSizeList(384, new arrow.Field("item", new arrow.Float32(), true));
  const fields = COLUMNS.map(
    (c) =>
      new arrow.Field(c, c === "vector" ? vector : ints.has(c) ? new arrow.Int64() : new arrow.Utf8(), true),
  );
  const row: Record<string, unknown> = {};
  for (const f of fields)
    row[f.name] =
      f.name === "vector"
        ? Array(384).fill(0.05)
        : ints.has(f.name)
          ? 0n
          : f.name === "text"
            ? "zebrafish notes"
            : f.name === "session_id"
              ? "s1"
              : "t1";
  const db = await lancedb.connect(join(t.dir, "source"));
  const table = await db.createEmptyTable(
    "chunks",
    new arrow.Schema(fields, new Map([["embedding_model", EMBEDDING_MODEL]])),
  );
  await table.add([row]);
  table.close();
  db.close();
  hub = await startHubStandin(
    new Map([
      [
        "evil/redirect",
        {
          type: "dataset",
          commit: "a".repeat(40),
          files: tableRepoFiles(join(t.dir, "source", "chunks.lance")),
        },
      ],
    ]),
  );
});

afterAll(async () => {
  for (const s of servers) s.close();
  await hub.close();
  t.cleanup();
});

const recall = ["recall", "zebrafish", "--memory", "evil/redirect", "--rerank-budget", "0"];

describe("redirects from the endpoint", () => {
  it("a download redirected to another host is refused naming it, and that host gets no request", async () => {
    const seen: string[] = [];
    const other = await serve((req, res) => {
      seen.push(req.url ?? "");
      relay(req, res, req.url ?? "/");
    });
    const endpoint = await serve((req, res) => {
      const url = req.url ?? "/";
      if (url.includes("/resolve/")) res.writeHead(302, { Location: `${other}${url}` }).end();
      else relay(req, res, url);
    });
    const r = standinUser(t.dir, "elsewhere", endpoint, { HF_TOKEN: "hf_readerstokenforredirects" });
    const out = await runFunes(recall, r);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("hf://datasets/evil/redirect");
    expect(out.stderr).toContain(`the Hub redirected funes to "${other}"`);
    expect(out.stderr).not.toContain("reachable");
    expect(seen).toEqual([]);
  });

  it("a redirect on the endpoint itself is followed, as the Hub's own are", async () => {
    const endpoint = await serve((req, res) => {
      const url = req.url ?? "/";
      if (url.startsWith("/cdn/")) relay(req, res, url.slice(4));
      else if (url.includes("/resolve/")) res.writeHead(302, { Location: `/cdn${url}` }).end();
      else relay(req, res, url);
    });
    const r = standinUser(t.dir, "same", endpoint, { HF_TOKEN: "hf_readerstokenforredirects" });
    const out = await runFunes(recall, r);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("zebrafish notes");
  });
});

describe("status of a memory someone else owns", () => {
  it("reads its forgotten-ids file and card only through the guarded fetch: a redirect to loopback is refused", async () => {
    const seen: string[] = [];
    const loopback = await serve((req, res) => {
      seen.push(req.url ?? "");
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"version": 1, "ids": []}');
    });
    // The memory's own files are served; every small file status reads straight from the repo (its
    // forgotten ids, its card) and any model-repo probe is sent to a service on loopback.
    const endpoint = await serve((req, res) => {
      const url = req.url ?? "/";
      const table = url.includes("/resolve/") && url.includes("/chunks.lance/");
      if ((url.includes("/resolve/") && !table) || url.startsWith("/api/models/"))
        res.writeHead(302, { Location: `${loopback}/internal${url}` }).end();
      else relay(req, res, url);
    });
    const r = standinUser(t.dir, "status-redirect", endpoint, { HF_TOKEN: "hf_readerstokenforredirects" });
    const out = await runFunes(["status", "--memory", "evil/redirect"], r);
    expect(out.stdout).toContain("hf://datasets/evil/redirect");
    expect(seen).toEqual([]);
  });
});

describe("an endless listing", () => {
  it("stops at the download cap's number of files and says what to set", async () => {
    let pages = 0;
    const endpoint = await serve((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (!url.pathname.includes("/tree/")) return relay(req, res, req.url ?? "/");
      pages++;
      const cursor = Number(url.searchParams.get("cursor") ?? 0);
      const page = Array.from({ length: 500 }, (_, i) => ({
        type: "file",
        path: `chunks.lance/data/f${cursor + i}.lance`,
        size: 0,
        oid: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
      }));
      url.searchParams.set("cursor", String(cursor + 500));
      const next = `http://${req.headers.host}${url.pathname}${url.search}`;
      res.writeHead(200, { "Content-Type": "application/json", Link: `<${next}>; rel="next"` });
      res.end(JSON.stringify(page));
    });
    const r = standinUser(t.dir, "endless", endpoint, { FUNES_MAX_DOWNLOAD_MB: "8" });
    const out = await runFunes(["status", "--memory", "evil/redirect"], r);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("lists more than 2048 files, over the 8.0 MiB download cap");
    expect(out.stderr).toContain("FUNES_MAX_DOWNLOAD_MB");
    expect(pages).toBeLessThanOrEqual(5);
  });
});
