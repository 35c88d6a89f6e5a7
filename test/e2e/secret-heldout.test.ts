/**
 * The held-out secret catalogue (test/helpers/secret-heldout.ts: formats and embeddings the rules were not
 * written from) through the built CLI: a transcript holding every sample is indexed (nothing of any sample
 * left in the memory), a memory another tool wrote with every sample is pushed to the Hub stand-in (nothing
 * of any sample in the uploaded bytes) and scrubbed (nothing left).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import type { CorpusSample } from "../helpers/secret-corpus.js";
import { runCorpus } from "../helpers/secret-e2e.js";
import { HELD_OUT_FORMATS, heldOutCorpus } from "../helpers/secret-heldout.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("the held-out secret catalogue, end to end", () => {
  it("leaves no sample of any format in the indexed memory, the pushed bytes, or a scrubbed memory", async () => {
    const samples: CorpusSample[] = heldOutCorpus().map((s) => ({ ...s, secret: s.text }));
    expect(new Set(samples.map((s) => s.format)).size).toBe(HELD_OUT_FORMATS.length);
    const run = await runCorpus(samples, { dir: t.dir, hub, repo: "acme/heldout" });
    expect(run.missingTurns).toBe(0);
    const leaks = (stage: "index" | "push" | "scrub") =>
      run.verdicts.filter((v) => !v[stage]).map((v) => `${v.sample.format} ${v.sample.context}`);
    expect(leaks("index")).toEqual([]);
    expect(leaks("push")).toEqual([]);
    expect(leaks("scrub")).toEqual([]);
    // Only the clean rows planted beside the samples were published.
    expect(run.push.published).toBe(run.cleanRows);
  }, 120_000);
});
