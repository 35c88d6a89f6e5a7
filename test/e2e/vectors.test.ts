/**
 * Vector backfill end to end: text first, vectors behind, with the generated test models loaded from a
 * Hugging Face cache folder through the production path.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexSessions } from "../../src/commands/index.js";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, runFunes, startFunes } from "../helpers/cli.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;

beforeEach(() => {
  t = tempDir();
  env = {
    home: join(t.dir, "home"),
    funesHome: join(t.dir, "funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE },
  };
  mkdirSync(join(env.home, ".codex"), { recursive: true });
  copyFixture("codex", join(env.home, ".codex", "sessions"));
  mkdirSync(join(env.home, ".pi", "agent"), { recursive: true });
  copyFixture("pi", join(env.home, ".pi", "agent", "sessions"));
});
afterEach(() => t.cleanup());

async function vectorCounts(funesHome: string): Promise<{ total: number; missing: number; badNorm: number }> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) return { total: 0, missing: 0, badNorm: 0 };
  try {
    const rows = await store.table.query().select(["vector"]).toArray();
    let missing = 0;
    let badNorm = 0;
    for (const r of rows) {
      if (r.vector === null) missing++;
      else {
        const v = Array.from(r.vector as Iterable<number>);
        const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
        if (v.length !== 384 || Math.abs(n - 1) > 1e-3) badNorm++;
      }
    }
    return { total: rows.length, missing, badNorm };
  } finally {
    store.close();
  }
}

describe("vector backfill", () => {
  it("is keyword-only without a model, and embeds every row with `index --yes` once the model is there", async () => {
    const bare: CliEnv = { ...env, extra: { HF_HUB_CACHE: join(t.dir, "empty-cache") } };
    const first = await runFunes(["index", "--json"], bare);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      "note: keyword-only for now (no vectors): BAAI/bge-small-en-v1.5@5c38ec7c405e is not in",
    );
    expect(first.stderr).toContain("run `funes models pull`");
    const s1 = JSON.parse(first.stdout);
    expect(s1.vectors).toMatchObject({ model: null, embedded: 0, remaining: s1.chunksAdded });
    const recall = await runFunes(["recall", "portfolio website"], bare);
    expect(recall.stdout).toContain("make me a portfolio website");
    const status = await runFunes(["status"], bare);
    expect(status.stdout).toContain(`vectors: 0 of ${s1.chunksAdded} rows (${s1.chunksAdded} waiting`);
    expect(status.stdout).toContain("not downloaded; run `funes models pull`");

    const second = await runFunes(["index", "--yes", "--json"], env);
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout);
    expect(s2.chunksAdded).toBe(0);
    expect(s2.vectors.model).toBe("BAAI/bge-small-en-v1.5@5c38ec7c405ec4b44b94cc5a9bb96e735b38267a");
    expect(s2.vectors.embedded).toBe(s1.chunksAdded);
    expect(s2.vectors.remaining).toBe(0);
    expect(await vectorCounts(env.funesHome)).toEqual({ total: s1.chunksAdded, missing: 0, badNorm: 0 });
    const after = await runFunes(["status"], env);
    expect(after.stdout).toContain(`vectors: ${s1.chunksAdded} of ${s1.chunksAdded} rows\n`);
    expect(after.stdout).toContain(
      "embedder: BAAI/bge-small-en-v1.5 @ 5c38ec7c405ec4b44b94cc5a9bb96e735b38267a\n",
    );
  });

  it("stops at its time budget and carries on next run, newest sessions first", async () => {
    const models = {
      hubCache: TEST_HUB_CACHE,
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 1,
      hubUrl: "http://127.0.0.1:9",
    };
    const base = { funesHome: env.funesHome, home: env.home, thinking: true, models };
    const none = await indexSessions({ ...base, vectorBudgetMs: 0 });
    expect(none.vectors.embedded).toBe(0);
    expect(none.vectors.remaining).toBe(none.chunksAdded);
    const all = await indexSessions({ ...base, vectorBudgetMs: null });
    expect(all.vectors.embedded).toBe(none.chunksAdded);
    expect((await vectorCounts(env.funesHome)).missing).toBe(0);
  });

  it("survives kill -9 mid-backfill: no row has a partial vector and the next run finishes", async () => {
    writeSyntheticHistory(env.home, 12);
    const text = await runFunes(["index"], { ...env, extra: { HF_HUB_CACHE: join(t.dir, "none") } });
    expect(text.code).toBe(0);
    const child = startFunes(["index", "--yes"], env);
    const closed = new Promise((r) => child.on("close", r));
    let embedded = 0;
    for (let i = 0; i < 600 && embedded === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const c = await vectorCounts(env.funesHome);
      embedded = c.total - c.missing;
    }
    child.kill("SIGKILL");
    await closed;
    const mid = await vectorCounts(env.funesHome);
    expect(embedded).toBeGreaterThan(0);
    expect(mid.missing).toBeGreaterThan(0);
    expect(mid.badNorm).toBe(0);
    const resumed = await runFunes(["index", "--yes", "--json"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).vectors.embedded).toBe(mid.missing);
    expect(await vectorCounts(env.funesHome)).toEqual({ total: mid.total, missing: 0, badNorm: 0 });
  });
});

describe("a broken model folder", () => {
  it("keeps indexing keyword-only when the tokenizer does not match the model", async () => {
    const { testVocab } = await import("../../scripts/make-models.js");
    const { writeTinyEmbedder } = await import("../../scripts/model-gen/models.js");
    const { tokenizerFiles } = await import("../../scripts/model-gen/tokenizer.js");
    const { writeFileSync } = await import("node:fs");
    const dir = join(t.dir, "mismatched");
    writeTinyEmbedder(dir, testVocab());
    // A tokenizer that knows words the model's embedding table has no row for: loading (and the probe)
    // works, the first chunk holding one of them fails.
    writeFileSync(
      join(dir, "tokenizer.json"),
      tokenizerFiles([...testVocab(), "graphic", "inspecting", "corrected"]).tokenizer,
    );
    const r = await runFunes(["index", "--yes", "--json"], { ...env, extra: { FUNES_EMBED_MODEL_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: keyword-only for now (no vectors): embedding failed in "${dir}"`);
    const s = JSON.parse(r.stdout);
    expect(s.vectors.model).toBeNull();
    expect(s.vectors.remaining).toBeGreaterThan(0);
    const recall = await runFunes(["recall", "portfolio website"], env);
    expect(recall.stdout).toContain("make me a portfolio website");
  });
});

describe("reading while writing", () => {
  it("answers recall from the last committed version while an index run writes", async () => {
    const first = await runFunes(["index"], { ...env, extra: { HF_HUB_CACHE: join(t.dir, "none") } });
    expect(first.code).toBe(0);
    writeSyntheticHistory(env.home, 10);
    const child = startFunes(["index", "--yes"], env);
    const closed = new Promise((r) => child.on("close", r));
    for (let i = 0; i < 6; i++) {
      const r = await runFunes(["recall", "portfolio website", "-k", "2", "--rerank-budget", "0"], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("make me a portfolio website");
    }
    await closed;
  });
});
