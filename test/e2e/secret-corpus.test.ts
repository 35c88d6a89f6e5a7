/**
 * The generated secret corpus (every format of test/helpers/secret-formats.ts in every context) and the
 * held-out catalogue (test/helpers/secret-heldout.ts: formats and embeddings the rules were not written
 * from) through the built CLI: nothing of any sample is left in the memory after `index`, uploaded by
 * `push`, or left by `scrub` in a memory another tool wrote. Per-rule checks are unit tests on the scanner
 * (src/redact).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { type CorpusSample, compactCorpus } from "../helpers/secret-corpus.js";
import { leaks, runCorpus } from "../helpers/secret-e2e.js";
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

describe("the secret corpus, end to end", () => {
  it("leaves no sample in the indexed memory, the pushed bytes, or a scrubbed memory", async () => {
    const samples = compactCorpus();
    expect(samples.length).toBeGreaterThan(1000);
    const run = await runCorpus(samples, { dir: join(t.dir, "corpus"), hub, repo: "acme/corpus" });
    expect(run.missingTurns).toBe(0);
    expect(leaks(run, "index")).toEqual([]);
    expect(leaks(run, "push")).toEqual([]);
    expect(leaks(run, "scrub")).toEqual([]);
    // The gate held back the samples' chunks and published the clean ones.
    expect(run.push.published).toBe(run.cleanRows);
    expect(Object.keys(run.push.heldBack).length).toBeGreaterThan(50);
    // Scrub redacted every sample's block in place: a redacted block rescans clean.
    expect(run.scrub).toMatchObject({ redactedBlocks: samples.length, droppedBlocks: 0 });
  });
});

describe("the held-out secret catalogue, end to end", () => {
  it("leaves no sample of any format in the indexed memory, the pushed bytes, or a scrubbed memory", async () => {
    const samples: CorpusSample[] = heldOutCorpus().map((s) => ({ ...s, secret: s.text }));
    expect(new Set(samples.map((s) => s.format)).size).toBe(HELD_OUT_FORMATS.length);
    const run = await runCorpus(samples, { dir: join(t.dir, "heldout"), hub, repo: "acme/heldout" });
    expect(run.missingTurns).toBe(0);
    expect(leaks(run, "index")).toEqual([]);
    expect(leaks(run, "push")).toEqual([]);
    expect(leaks(run, "scrub")).toEqual([]);
    // Only the clean rows planted beside the samples were published.
    expect(run.push.published).toBe(run.cleanRows);
  });
});
