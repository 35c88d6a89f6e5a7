/**
 * The red-team corpus (test/helpers/secret-redteam.ts: credential kinds neither the checklist nor the
 * held-out catalogue holds, by class) through the built CLI, as a user meets it: a transcript holding every
 * sample is indexed, a memory another tool wrote with every sample is pushed to the Hub stand-in and then
 * scrubbed. Nothing of any sample may be left in the indexed memory, in any byte the push uploads, or in the
 * scrubbed memory — but for the kinds the helper lists as known misses.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitText } from "../../src/chunk/index.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { runCorpus } from "../helpers/secret-e2e.js";
import { RED_TEAM_KINDS, RED_TEAM_MISSES, redTeamCorpus } from "../helpers/secret-redteam.js";

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

describe("the red-team secret corpus, end to end", () => {
  it("lets no kind reach the memory or the Hub but the known misses", async () => {
    const samples = redTeamCorpus();
    expect(RED_TEAM_KINDS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(RED_TEAM_KINDS.map((k) => k.cls)).size).toBe(6);
    const run = await runCorpus(samples, { dir: join(t.dir, "redteam"), hub, repo: "acme/redteam" });
    expect(run.missingTurns).toBe(0);
    const slipped = (stage: "index" | "push" | "scrub") =>
      [...new Set(run.verdicts.filter((v) => !v[stage]).map((v) => v.sample.format))].sort();
    const misses = [...RED_TEAM_MISSES].sort();
    expect(slipped("index")).toEqual(misses);
    expect(slipped("push")).toEqual(misses);
    expect(slipped("scrub")).toEqual(misses);
    // The gate held back every caught sample's block: only the planted clean rows and the misses' chunks
    // were published. (Counted rows, not only bytes: a data file may store text compressed, where a search
    // of the uploaded bytes for a secret finds nothing even when it was sent.)
    const missRows = samples
      .filter((s) => RED_TEAM_MISSES.includes(s.format))
      .reduce((n, s) => n + splitText(s.text).length, 0);
    expect(run.push.published).toBe(run.cleanRows + missRows);
  });
});
