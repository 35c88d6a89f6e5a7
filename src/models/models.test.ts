import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testVocab } from "../../scripts/make-models.js";
import { writeTinyEmbedder } from "../../scripts/model-gen/models.js";
import { readTree, TEST_HUB_CACHE, tempDir } from "../../test/helpers/fixtures.js";
import { startHubStandin } from "../../test/helpers/hub-standin.js";
// The real Hub source from remote/: downloadModel is tested the way pullModels composes it.
import { modelHub } from "../remote/index.js";
import { downloadModel } from "./download.js";
import { cachedModelDir, repoCacheDir } from "./hf-cache.js";
import { loadEmbedder, loadReranker, ModelLoadError } from "./runtime.js";
import { EMBEDDER_SPEC, RERANKER_SPECS } from "./specs.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);
const MINILM = RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"];

let fetchCalls: string[];
const realFetch = globalThis.fetch;
beforeEach(() => {
  fetchCalls = [];
  globalThis.fetch = (async (input: string | URL | Request) => {
    fetchCalls.push(String(input));
    throw new Error("network is trapped in this test");
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe("models from the Hugging Face cache", () => {
  it("embeds deterministically into normalised 384-d vectors that depend on the whole text, with no fetch", async () => {
    const dir = cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC);
    expect(dir).toBe(
      join(repoCacheDir(TEST_HUB_CACHE, EMBEDDER_SPEC.repo), "snapshots", EMBEDDER_SPEC.revision),
    );
    const e = await loadEmbedder(dir as string, EMBEDDER_SPEC, { threads: 1 });
    try {
      const [a, a2, b, c] = await e.embed([
        "lance index deadlock",
        "lance index deadlock",
        "the lance index deadlock fix",
        "portfolio website designer",
      ]);
      for (const v of [a, b, c]) {
        expect(v?.length).toBe(384);
        expect(dot(v as Float32Array, v as Float32Array)).toBeCloseTo(1, 5);
      }
      expect([...(a2 as Float32Array)]).toEqual([...(a as Float32Array)]);
      expect(dot(a as Float32Array, b as Float32Array)).toBeGreaterThan(
        dot(a as Float32Array, c as Float32Array) + 0.3,
      );
      // Batching and ordering do not change a vector.
      const [c2] = await e.embed(["portfolio website designer"]);
      expect(dot(c as Float32Array, c2 as Float32Array)).toBeCloseTo(1, 5);
    } finally {
      await e.close();
    }
    expect(fetchCalls).toEqual([]);
  });

  it("embeds the same vectors as a backfill's session (memory pattern off, batches of many shapes)", async () => {
    const dir = cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string;
    // Batches of different shapes in turn: many short texts, then a few long ones, then short again.
    const short = Array.from({ length: 20 }, (_, i) => `short text ${i}`);
    const long = Array.from(
      { length: 3 },
      (_, i) => `${"a longer passage about lance indexes ".repeat(20)}${i}`,
    );
    const calls = [short, long, short.slice(0, 5), long.slice(0, 1)];
    const run = async (varyingShapes: boolean) => {
      const e = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1, spin: varyingShapes, varyingShapes });
      try {
        const out: Float32Array[] = [];
        for (const texts of calls) out.push(...(await e.embed(texts)));
        return out;
      } finally {
        await e.close();
      }
    };
    const plain = await run(false);
    const backfill = await run(true);
    expect(backfill).toHaveLength(plain.length);
    backfill.forEach((v, i) => {
      expect(dot(v, plain[i] as Float32Array)).toBeCloseTo(1, 5);
    });
  });

  it("reranks a passage that shares the query's words above one that does not", async () => {
    const r = await loadReranker(cachedModelDir(TEST_HUB_CACHE, MINILM) as string, MINILM, { threads: 1 });
    try {
      const [hit, miss] = await r.score("why did the lance index deadlock", [
        "the lance index build would deadlock on two cores",
        "a portfolio website for a graphic designer",
      ]);
      expect(hit).toBeGreaterThan(miss as number);
      for (const s of [hit, miss]) expect(s).toBeGreaterThan(0);
      for (const s of [hit, miss]) expect(s).toBeLessThan(1);
    } finally {
      await r.close();
    }
    expect(fetchCalls).toEqual([]);
  });

  it("refuses an incomplete folder and a wrong-dimension model, naming the folder", async () => {
    const t = tempDir();
    try {
      writeTinyEmbedder(t.dir, testVocab(), 64);
      await expect(loadEmbedder(t.dir, EMBEDDER_SPEC, { threads: 1 })).rejects.toThrow(
        /makes 64-d vectors; funes memories hold 384-d/,
      );
      rmSync(join(t.dir, "tokenizer.json"));
      const err = await loadEmbedder(t.dir, EMBEDDER_SPEC, { threads: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelLoadError);
      expect(String(err)).toContain(`"${t.dir}" is incomplete (missing tokenizer.json)`);
      writeFileSync(join(t.dir, "tokenizer.json"), "{ not json");
      await expect(loadEmbedder(t.dir, EMBEDDER_SPEC, { threads: 1 })).rejects.toThrow(
        /could not load the embedder/,
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("downloadModel", () => {
  it("fetches only the spec's files into the cache layout from HF_ENDPOINT, then makes no request", async () => {
    globalThis.fetch = realFetch;
    const source = readTree(cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string);
    source.set("pytorch_model.bin", Buffer.from("not needed"));
    const hub = await startHubStandin(
      new Map([[EMBEDDER_SPEC.repo, { commit: EMBEDDER_SPEC.revision, files: source }]]),
    );
    const t = tempDir();
    try {
      const seen: string[] = [];
      const dir = await downloadModel(t.dir, EMBEDDER_SPEC, modelHub({ hubUrl: hub.url }), (p) =>
        seen.push(p.file),
      );
      expect(dir).toBe(cachedModelDir(t.dir, EMBEDDER_SPEC));
      expect(new Set(seen)).toEqual(new Set(EMBEDDER_SPEC.files));
      const gets = hub.requests.filter((r) => r.method === "GET" && r.path.includes("/resolve/"));
      expect(gets.some((r) => r.path.endsWith("pytorch_model.bin"))).toBe(false);
      expect(readdirSync(join(repoCacheDir(t.dir, EMBEDDER_SPEC.repo), "blobs")).length).toBe(
        EMBEDDER_SPEC.files.length,
      );
      const e = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 });
      await e.close();
      const before = hub.requests.length;
      await downloadModel(t.dir, EMBEDDER_SPEC, modelHub({ hubUrl: hub.url }));
      expect(hub.requests.length).toBe(before);
    } finally {
      t.cleanup();
      await hub.close();
    }
  });

  it("resolves a branch revision once and records it in refs/", async () => {
    globalThis.fetch = realFetch;
    const spec = RERANKER_SPECS["bge-reranker-base"];
    const source = readTree(cachedModelDir(TEST_HUB_CACHE, spec) as string);
    const commit = "1".repeat(40);
    const hub = await startHubStandin(new Map([[spec.repo, { commit, files: source }]]));
    const t = tempDir();
    try {
      const dir = await downloadModel(t.dir, spec, modelHub({ hubUrl: hub.url }));
      expect(dir.endsWith(join("snapshots", commit))).toBe(true);
      expect(readFileSync(join(repoCacheDir(t.dir, spec.repo), "refs", "main"), "utf8")).toBe(commit);
      expect(hub.requests.filter((r) => r.path.includes("/revision/"))).toHaveLength(1);
      const n = hub.requests.length;
      await downloadModel(t.dir, spec, modelHub({ hubUrl: hub.url }));
      expect(hub.requests.length).toBe(n);
    } finally {
      t.cleanup();
      await hub.close();
    }
  });
});
