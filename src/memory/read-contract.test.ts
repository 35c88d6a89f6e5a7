/**
 * Every kind of memory passes the same read contract (test/contract/memory-read.ts): a local memory, a Hub
 * memory read through the real @huggingface/hub client from the loopback stand-in, and a federated set of
 * both. The memories are indexed here from the public fixtures (keyword-only: no models needed).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { memoryReadContract } from "../../test/contract/memory-read.js";
import { copyFixture, readTree, tempDir } from "../../test/helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../../test/helpers/hub-standin.js";
import {
  indexSessions,
  ModelSession,
  openFederated,
  openReadTarget,
  type ReadContext,
} from "../commands/index.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let ctx: ReadContext;
let models: ModelSession;

/** Indexes one fixture folder under `home` into the funes home `funesHome`; returns the memory folder. */
async function indexFixture(o: { fixture: string; agentDir: string; funesHome: string }): Promise<string> {
  const home = join(t.dir, `home-${o.fixture}`);
  mkdirSync(join(home, o.agentDir, ".."), { recursive: true });
  copyFixture(o.fixture, join(home, o.agentDir));
  await indexSessions({ funesHome: o.funesHome, home, thinking: true });
  return join(o.funesHome, "memory");
}

beforeAll(async () => {
  t = tempDir();
  const funesHome = join(t.dir, "funes");
  await indexFixture({ fixture: "codex", agentDir: ".codex/sessions", funesHome });
  const claudeMemory = await indexFixture({
    fixture: "claude",
    agentDir: ".claude/projects/-work-app",
    funesHome: join(t.dir, "other"),
  });
  const files = new Map<string, Buffer>();
  for (const [p, b] of readTree(join(claudeMemory, "chunks.lance"))) files.set(`chunks.lance/${p}`, b);
  hub = await startHubStandin(new Map([["acme/team", { type: "dataset", commit: "c".repeat(40), files }]]));
  const noModels = join(t.dir, "no-models");
  ctx = {
    funesHome,
    home: join(t.dir, "home-codex"),
    models: {
      hubCache: join(t.dir, "hf-cache"),
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 1,
      hubUrl: hub.url,
    },
  };
  models = new ModelSession({
    hubCache: noModels,
    reranker: "ms-marco-MiniLM-L-6-v2",
    threads: 1,
    hubUrl: "",
  });
});

afterAll(async () => {
  await models?.close();
  await hub?.close();
  t?.cleanup();
});

const common = { models: () => models, homes: () => ({ funesHome: ctx.funesHome, home: ctx.home }) };

memoryReadContract("local", {
  ...common,
  open: () => openReadTarget(undefined, ctx),
  kinds: ["local"],
  query: "portfolio website",
  harness: "codex",
});

memoryReadContract("Hub memory at a commit", {
  ...common,
  open: () => openReadTarget("acme/team", ctx),
  kinds: ["hub"],
  query: "register summarizer",
  harness: "claude",
});

memoryReadContract("federated", {
  ...common,
  open: () => openFederated(["local", "acme/team"], ctx),
  kinds: ["local", "hub"],
  query: "portfolio website",
  harness: "codex",
});
