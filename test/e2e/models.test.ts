import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cachedModelDir, EMBEDDER_SPEC, RERANKER_SPECS } from "../../src/models/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { readTree, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let env: CliEnv;
const MINILM = RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"];

beforeEach(async () => {
  t = tempDir();
  hub = await startHubStandin(
    new Map([
      [
        EMBEDDER_SPEC.repo,
        {
          commit: EMBEDDER_SPEC.revision,
          files: readTree(cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string),
        },
      ],
      [
        MINILM.repo,
        { commit: MINILM.revision, files: readTree(cachedModelDir(TEST_HUB_CACHE, MINILM) as string) },
      ],
    ]),
  );
  env = {
    home: t.dir,
    funesHome: join(t.dir, "funes"),
    extra: { HF_HOME: join(t.dir, "hf"), HF_ENDPOINT: hub.url },
  };
});
afterEach(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes models", () => {
  it("shows missing models, pulls them into $HF_HOME/hub from HF_ENDPOINT, and a second pull requests nothing", async () => {
    const before = await runFunes(["models", "--json"], env);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).map((r: { dir: string | null }) => r.dir)).toEqual([null, null]);
    const pull = await runFunes(["models", "pull"], env);
    expect(pull.code, pull.stderr).toBe(0);
    const cache = join(t.dir, "hf", "hub");
    expect(pull.stdout).toContain(`model cache: ${cache}\n`);
    expect(pull.stdout).toContain(
      `ready: ${join(cache, "models--BAAI--bge-small-en-v1.5", "snapshots", EMBEDDER_SPEC.revision)}`,
    );
    expect(pull.stdout).toContain(
      `ready: ${join(cache, "models--Xenova--ms-marco-MiniLM-L-6-v2", "snapshots", MINILM.revision)}`,
    );
    // Nothing leaked onto stdout from the Hub client.
    expect(pull.stdout).not.toContain("Downloading");
    const n = hub.requests.length;
    expect(n).toBeGreaterThan(0);
    expect((await runFunes(["models", "pull"], env)).code).toBe(0);
    expect(hub.requests.length).toBe(n);
  });

  it("says what to do when the Hub cannot be reached, and refuses an unknown reranker", async () => {
    const offline = { ...env, extra: { ...env.extra, HF_ENDPOINT: "http://127.0.0.1:9" } };
    const r = await runFunes(["models", "pull"], offline);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /could not download BAAI\/bge-small-en-v1.5 from http:\/\/127.0.0.1:9: .*recall stays keyword-only/,
    );
    // A folder variable naming nothing is not "ready", and pulling leaves it to the user.
    const nope = join(t.dir, "nope");
    const folder = await runFunes(["models"], {
      ...env,
      extra: { ...env.extra, FUNES_EMBED_MODEL_DIR: nope },
    });
    expect(folder.code).toBe(0);
    expect(folder.stdout).toContain(
      `  missing: FUNES_EMBED_MODEL_DIR="${nope}" is not a folder — point it at`,
    );
    expect(folder.stdout).not.toContain(`ready: ${nope}`);
    const bad = await runFunes(["models", "--reranker", "nope"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown reranker "nope"');
  });
});
