import { describe, expect, it } from "vitest";
import { MAX_JSON_ANSWER_BYTES, readParams } from "./access.js";
import { readRepoText } from "./read-text.js";
import { UnsafeHubAnswerError } from "./validate.js";

/** A fetch that answers each URL from `routes` and records every request with its Authorization. */
function fakeFetch(routes: Record<string, () => Response>) {
  const calls: { url: string; auth: string | null; range: string | null }[] = [];
  const f: typeof fetch = async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    calls.push({ url, auth: headers.get("authorization"), range: headers.get("range") });
    const route = routes[url];
    return route === undefined ? new Response("no such route", { status: 404 }) : route();
  };
  return { f, calls };
}

const to = (location: string) => () => new Response(null, { status: 302, headers: { location } });
const ok = () => new Response("bytes", { status: 200 });
const FILE = "https://huggingface.co/datasets/o/n/resolve/abc/chunks.lance/data/x.lance";
const init = { headers: { authorization: "Bearer hf_secret", range: "bytes=0-4" } };

describe("redirects while reading a memory", () => {
  it("follows the Hub's redirect to its download host over https, without the token", async () => {
    const { f, calls } = fakeFetch({
      [FILE]: to("https://cdn-lfs.hf.co/x?sig=1"),
      "https://cdn-lfs.hf.co/x?sig=1": ok,
    });
    const p = readParams({ hubUrl: "https://huggingface.co", token: "hf_secret", fetch: f });
    const res = await p.fetch(FILE, init);
    expect(await res.text()).toBe("bytes");
    expect(calls).toEqual([
      { url: FILE, auth: "Bearer hf_secret", range: "bytes=0-4" },
      { url: "https://cdn-lfs.hf.co/x?sig=1", auth: null, range: "bytes=0-4" },
    ]);
  });

  it("refuses a redirect to another host, to plain http, to a look-alike domain, or one too many", async () => {
    for (const target of [
      "https://evil.example/x",
      "http://cdn-lfs.hf.co/x",
      "https://huggingface.co.evil.example/x",
      "https://evilhf.co/x",
      "http://127.0.0.1:9/x",
    ]) {
      const { f, calls } = fakeFetch({ [FILE]: to(target) });
      const p = readParams({ hubUrl: "https://huggingface.co", token: "hf_secret", fetch: f });
      await expect(p.fetch(FILE, init)).rejects.toThrow(UnsafeHubAnswerError);
      await expect(p.fetch(FILE, init)).rejects.toThrow(`redirected funes to "${new URL(target).origin}"`);
      expect(calls.map((c) => c.url)).toEqual([FILE, FILE]);
    }
    const { f } = fakeFetch({ [FILE]: to(FILE) });
    const p = readParams({ hubUrl: "https://huggingface.co", fetch: f });
    await expect(p.fetch(FILE, init)).rejects.toThrow("too many times");
  });

  it("a mirror's redirects stay on its own host and subdomains", async () => {
    const mirror = "https://mirror.example.org/datasets/o/n/resolve/abc/f";
    const { f, calls } = fakeFetch({
      [mirror]: to("https://dl.mirror.example.org/f"),
      "https://dl.mirror.example.org/f": ok,
    });
    const p = readParams({ hubUrl: "https://mirror.example.org", token: "hf_secret", fetch: f });
    expect((await p.fetch(mirror, init)).status).toBe(200);
    expect(calls[1]?.auth).toBeNull();
    const other = fakeFetch({ [mirror]: to("https://cdn-lfs.hf.co/f") });
    const q = readParams({ hubUrl: "https://mirror.example.org", fetch: other.f });
    await expect(q.fetch(mirror, init)).rejects.toThrow(UnsafeHubAnswerError);
  });
});

describe("answers read under a size limit", () => {
  const API = "https://huggingface.co/api/datasets/o/n/tree/abc/chunks.lance";
  const json =
    (body: ConstructorParameters<typeof Response>[0], headers: Record<string, string> = {}) =>
    () =>
      new Response(body, { status: 200, headers: { "content-type": "application/json", ...headers } });
  /** A body of `n` bytes of JSON that never says its length (sent in pieces). */
  const endless = (n: number) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("["));
        for (let sent = 1; sent < n; sent += 1 << 20) c.enqueue(new Uint8Array(1 << 20).fill(0x20));
        c.close();
      },
    });

  it("refuses a JSON answer past the cap, said or streamed, and reads one under it", async () => {
    const small = fakeFetch({ [API]: json("[1,2]") });
    expect(
      await (await readParams({ hubUrl: "https://huggingface.co", fetch: small.f }).fetch(API)).json(),
    ).toEqual([1, 2]);
    const said = fakeFetch({ [API]: json("[]", { "content-length": String(MAX_JSON_ANSWER_BYTES + 1) }) });
    await expect(readParams({ hubUrl: "https://huggingface.co", fetch: said.f }).fetch(API)).rejects.toThrow(
      `the Hub answered more than 16 MiB for "/api/datasets/o/n/tree/abc/chunks.lance", more than funes reads there — check HF_ENDPOINT and who published the memory`,
    );
    const streamed = fakeFetch({ [API]: json(endless(MAX_JSON_ANSWER_BYTES + (2 << 20))) });
    const res = await readParams({ hubUrl: "https://huggingface.co", fetch: streamed.f }).fetch(API);
    await expect(res.json()).rejects.toThrow(UnsafeHubAnswerError);
  });

  it("reads a repo's text file only from the endpoint, and not one larger than asked", async () => {
    const TEXT = "https://huggingface.co/datasets/o/n/resolve/abc/.funes-forgotten.json";
    const client = (f: typeof fetch) => ({ hubUrl: "https://huggingface.co", token: "hf_secret", fetch: f });
    // Redirected to loopback: refused, and loopback gets nothing.
    const loop = fakeFetch({ [TEXT]: to("http://127.0.0.1:9/x") });
    await expect(
      readRepoText({
        client: client(loop.f),
        repo: "o/n",
        sha: "abc",
        path: ".funes-forgotten.json",
        maxBytes: 1024,
      }),
    ).rejects.toThrow(`redirected funes to "http://127.0.0.1:9"`);
    expect(loop.calls.map((c) => c.url)).toEqual([TEXT]);
    // Listed at 50 MB: refused from its size, its bytes never asked for.
    const big = fakeFetch({
      [TEXT]: () =>
        new Response("{", { status: 206, headers: { "content-range": "bytes 0-0/50000000", etag: '"e"' } }),
    });
    await expect(
      readRepoText({
        client: client(big.f),
        repo: "o/n",
        sha: "abc",
        path: ".funes-forgotten.json",
        maxBytes: 1024,
      }),
    ).rejects.toThrow(
      `".funes-forgotten.json" in o/n is 47.7 MiB, more than funes reads of it (1 KiB) — check who published it`,
    );
    expect(big.calls.length).toBe(1);
  });
});
