import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../../test/helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../../test/helpers/hub-standin.js";
import { acquireWriterLock, funesPaths } from "../memory/index.js";
import { pushAtBoundary } from "./boundary-push.js";

const EMBEDDER = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

/** A machine with the Codex fixture sessions (not indexed yet) and the given embedder folder. */
function machine(name: string, embedDir = EMBEDDER) {
  const home = join(t.dir, name);
  mkdirSync(join(home, ".codex"), { recursive: true });
  copyFixture("codex", join(home, ".codex", "sessions"));
  return {
    home,
    funesHome: join(home, ".funes"),
    models: {
      hubCache: join(t.dir, `${name}-hf`),
      embedDir,
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 1,
      hubUrl: hub.url,
      token: "hf_boundary",
    },
  };
}

async function createRepo(name: string): Promise<void> {
  const [organization, repo] = name.split("/");
  const r = await fetch(`${hub.url}/api/repos/create`, {
    method: "POST",
    body: JSON.stringify({ name: repo, organization, type: "dataset", private: true }),
  });
  expect(r.ok).toBe(true);
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("pushAtBoundary", () => {
  it("is not an error with nothing indexed yet, or on a Hub memory not created yet", async () => {
    const empty = { ...machine("empty"), home: join(t.dir, "nobody") };
    expect(await pushAtBoundary({ spec: "acme/none", now: Date.now }, empty)).toEqual({
      kind: "nothing-indexed",
      memory: "hf://datasets/acme/none",
    });
    const m = machine("no-remote");
    const r = await pushAtBoundary({ spec: "acme/none", harness: "codex", now: Date.now }, m);
    expect(r.kind).toBe("remote-missing");
    expect(r.kind === "remote-missing" && r.message).toContain("--create");
    expect(hub.repos.has("acme/none")).toBe(false);
  });

  it("indexes the agent's sessions and publishes them; rows left waiting make another round", async () => {
    await createRepo("acme/rounds");
    const m = machine("rounds");
    // No time to embed: the text is stored, nothing is published, and the hook is told to go again.
    const first = await pushAtBoundary(
      { spec: "acme/rounds", harness: "codex", now: Date.now, embedBudgetMs: 0 },
      m,
    );
    expect(first.kind === "pushed" && first.summary.published).toBe(0);
    expect(first.kind === "pushed" && first.waiting).toEqual({ kind: "more", chunks: 19 });
    const second = await pushAtBoundary({ spec: "acme/rounds", harness: "codex", now: Date.now }, m);
    expect(second).toMatchObject({ kind: "pushed", embedded: 19, waiting: { kind: "none" } });
    expect(second.kind === "pushed" && second.summary.published).toBe(19);
  });

  it("waits for another run holding the memory, then indexes and publishes", async () => {
    await createRepo("acme/busy");
    const m = machine("busy");
    // The index job of the turn that just ended holds the writer lock; it lets go during the push's wait.
    const lock = await acquireWriterLock(funesPaths(m.funesHome).lock);
    let waits = 0;
    const r = await pushAtBoundary(
      {
        spec: "acme/busy",
        harness: "codex",
        now: Date.now,
        waitMs: 60_000,
        sleep: async () => {
          waits++;
          await lock.release();
        },
      },
      m,
    );
    expect(waits).toBe(1);
    expect(r).toMatchObject({ kind: "pushed", embedded: 19, waiting: { kind: "none" } });
    expect(r.kind === "pushed" && r.summary.published).toBe(19);
  });

  it("says why rows can't be embedded here instead of going round again", async () => {
    await createRepo("acme/stalled");
    const m = machine("stalled", join(t.dir, "no-such-model"));
    const r = await pushAtBoundary({ spec: "acme/stalled", harness: "codex", now: Date.now }, m);
    expect(r.kind === "pushed" && r.waiting.kind).toBe("stalled");
    expect(r.kind === "pushed" && r.waiting.kind === "stalled" && r.waiting.reason).toContain(
      "no-such-model",
    );
  });
});
