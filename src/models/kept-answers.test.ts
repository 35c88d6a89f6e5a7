/**
 * Answers a session keeps (a query's vector, a pair's score) are the model's own answers: the same as
 * asking the model afresh, unchanged by what a caller does with its copy, and bounded.
 */
import { describe, expect, it } from "vitest";
import { TEST_HUB_CACHE } from "../../test/helpers/fixtures.js";
import { cachedModelDir } from "./hf-cache.js";
import { KeptAnswers } from "./kept-answers.js";
import { ModelSession } from "./model-session.js";
import { loadEmbedder, loadReranker } from "./runtime.js";
import { EMBEDDER_SPEC, RERANKER_SPECS } from "./specs.js";

const MINILM = RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"];

/** A session over the generated test models, loading them in this process. */
const testSession = () =>
  new ModelSession({ hubCache: TEST_HUB_CACHE, reranker: "ms-marco-MiniLM-L-6-v2", threads: 1, hubUrl: "" });

describe("answers kept by a model session", () => {
  it("answers a query asked again with the model's own vector, whatever the caller did with its copy", async () => {
    const session = testSession();
    const fresh = await loadEmbedder(cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string, EMBEDDER_SPEC, {
      threads: 1,
    });
    try {
      const e = await session.embedder();
      if (e.kind !== "ready") throw new Error(e.reason);
      const [first] = await e.model.embed(["why did we pick lance"]);
      const expected = Array.from(first as Float32Array);
      (first as Float32Array).fill(0);
      const [again] = await e.model.embed(["why did we pick lance"]);
      expect(Array.from(again as Float32Array)).toEqual(expected);
      const [direct] = await fresh.embed(["why did we pick lance"]);
      expect(Array.from(direct as Float32Array)).toEqual(expected);
      // Another query is another vector; a batch is embedded as asked.
      const [other] = await e.model.embed(["how do we publish a release"]);
      expect(Array.from(other as Float32Array)).not.toEqual(expected);
      const batch = await e.model.embed(["why did we pick lance", "how do we publish a release"]);
      expect(Array.from(batch[0] as Float32Array)).toEqual(expected);
      expect(Array.from(batch[1] as Float32Array)).toEqual(Array.from(other as Float32Array));
    } finally {
      await fresh.close();
      await session.close();
    }
  });

  it("answers pairs scored before with their scores, and scores only the new ones as the model does", async () => {
    const session = testSession();
    const fresh = await loadReranker(cachedModelDir(TEST_HUB_CACHE, MINILM) as string, MINILM, {
      threads: 1,
    });
    try {
      const r = await session.reranker();
      if (r.kind !== "ready") throw new Error(r.reason);
      const passages = ["lance was picked for its versions", "we publish with a tag", "the index hook waits"];
      const first = await r.model.score("why lance", passages.slice(0, 2));
      const second = await r.model.score("why lance", passages.slice(1));
      expect(second[0]).toBe(first[1]);
      const direct = await fresh.score("why lance", passages);
      expect([first[0], ...second].map((s) => s?.toFixed(6))).toEqual(direct.map((s) => s.toFixed(6)));
      // The same passage for another query is another pair.
      const otherQuery = await r.model.score("how do we publish", passages.slice(1, 2));
      expect(otherQuery).toEqual(await fresh.score("how do we publish", passages.slice(1, 2)));
    } finally {
      await fresh.close();
      await session.close();
    }
  });

  it("keeps at most its bound, the least recently used going first", () => {
    const kept = new KeptAnswers<number>(2);
    kept.set("a", 1);
    kept.set("b", 2);
    expect(kept.get("a")).toBe(1);
    kept.set("c", 3);
    expect(kept.get("b")).toBeUndefined();
    expect(kept.get("a")).toBe(1);
    expect(kept.get("c")).toBe(3);
  });
});
