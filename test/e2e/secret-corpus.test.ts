/**
 * The generated secret corpus (every format of test/helpers/secret-formats.ts in every context) through the
 * built CLI: nothing of any sample is left in the memory after `index`, uploaded by `push`, or left by
 * `scrub` in a memory another tool wrote. Per-rule checks are unit tests on the scanner (src/redact).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { compactCorpus } from "../helpers/secret-corpus.js";
import { runCorpus } from "../helpers/secret-e2e.js";

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
    const run = await runCorpus(samples, { dir: t.dir, hub, repo: "acme/corpus" });
    expect(run.missingTurns).toBe(0);
    const leaks = (stage: "index" | "push" | "scrub") =>
      run.verdicts.filter((v) => !v[stage]).map((v) => `${v.sample.format} ${v.sample.context}`);
    expect(leaks("index")).toEqual([]);
    expect(leaks("push")).toEqual([]);
    expect(leaks("scrub")).toEqual([]);
    // The gate held back the samples' chunks and published the clean ones.
    expect(run.push.published).toBe(run.cleanRows);
    expect(Object.keys(run.push.heldBack).length).toBeGreaterThan(50);
    // Scrub redacted every sample's block in place: a redacted block rescans clean.
    expect(run.scrub).toMatchObject({ redactedBlocks: samples.length, droppedBlocks: 0 });
  }, 120_000);
});
