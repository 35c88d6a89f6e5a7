/**
 * The opt-in int8 embedder as a user runs it (`FUNES_EMBED_PRECISION=int8`), with a BERT-shaped model
 * folder through the production loading path: every row gets an int8 vector (close to, but not, the one
 * an fp32 machine computes for the same chunk), status and the index summary say int8, the vectors are
 * published as computed, and a second machine embedding in fp32 recalls from it. A model funes cannot derive an int8 file from leaves the index keyword-only, saying
 * what to do.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testVocab } from "../../scripts/make-models.js";
import { writeBertEmbedder } from "../../scripts/model-gen/models.js";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, hubUser, runFunes } from "../helpers/cli.js";
import { commitRows } from "../helpers/commit-table.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforint8tests";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let model: string;

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const vocab = testVocab();
  model = join(t.dir, "bert");
  // bge-small's width (memories hold 384-d vectors), two layers.
  writeBertEmbedder(
    model,
    { layers: 2, hidden: 384, heads: 4, ffn: 256, vocab: vocab.length, maxPositions: 512, typeVocab: 2 },
    vocab,
    ["fp32"],
  );
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

function user(name: string, extra: Record<string, string>): CliEnv {
  const e = hubUser({ dir: t.dir, name, hubUrl: hub.url, token: TOKEN });
  mkdirSync(join(e.home, ".codex"), { recursive: true });
  copyFixture("codex", join(e.home, ".codex", "sessions"));
  return { ...e, extra: { ...e.extra, FUNES_EMBED_MODEL_DIR: model, FUNES_SERVER: "0", ...extra } };
}

/** Each row's vector by chunk id. */
const vectors = (rows: Record<string, unknown>[]) =>
  new Map(rows.map((r) => [String(r.id), Array.from((r.vector as { toArray(): Float32Array }).toArray())]));

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

async function localVectors(funesHome: string): Promise<Map<string, number[]>> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  const rows = (await store?.table.query().select(["id", "vector"]).toArray()) ?? [];
  store?.close();
  return vectors(rows);
}

describe("FUNES_EMBED_PRECISION=int8", () => {
  it("embeds every row in int8, publishes those vectors, and an fp32 machine recalls from them", async () => {
    const a = user("a", { FUNES_EMBED_PRECISION: "int8" });
    const index = await runFunes(["index", "--yes", "--json"], a);
    expect(index.code, index.stderr).toBe(0);
    const s = JSON.parse(index.stdout);
    expect(s.vectors.model).toBe(`BAAI/bge-small-en-v1.5@FUNES_EMBED_MODEL_DIR=${model} int8`);
    expect(s.vectors).toMatchObject({ embedded: s.chunksAdded, remaining: 0 });
    const local = await localVectors(a.funesHome);
    expect(local.size).toBe(s.chunksAdded);
    // The same sessions embedded in fp32 elsewhere: every int8 vector is near its fp32 one, and none is it.
    const f = user("f", {});
    expect((await runFunes(["index", "--yes"], f)).code).toBe(0);
    const fp32 = await localVectors(f.funesHome);
    expect([...fp32.keys()].sort()).toEqual([...local.keys()].sort());
    for (const [id, v] of local) {
      const w = fp32.get(id) ?? [];
      expect(v).not.toEqual(w);
      expect(cosine(v, w)).toBeGreaterThan(0.9);
    }

    const models = await runFunes(["models"], a);
    expect(models.stdout).toContain(
      `embedder: BAAI/bge-small-en-v1.5 @ FUNES_EMBED_MODEL_DIR=${model} (int8, derived from its fp32 file on first use)\n`,
    );
    const status = await runFunes(["status"], a);
    expect(status.stdout).toContain(`(int8, FUNES_EMBED_PRECISION)\n`);
    const recall = await runFunes(["recall", "portfolio website", "--json"], a);
    expect(recall.code, recall.stderr).toBe(0);
    expect(JSON.parse(recall.stdout).hits.length).toBeGreaterThan(0);

    const push = await runFunes(["push", "acme/int8", "--create", "--json"], a);
    expect(push.code, push.stderr).toBe(0);
    const published = await commitRows(hub.repos.get("acme/int8")?.files ?? new Map(), t.dir, [
      "id",
      "vector",
    ]);
    expect(vectors(published)).toEqual(local);

    // A teammate on the default (fp32) embedder: its query vectors search the int8 ones.
    const b = user("b", {});
    const remote = await runFunes(["recall", "portfolio website", "--memory", "acme/int8", "--json"], b);
    expect(remote.code, remote.stderr).toBe(0);
    const hits = JSON.parse(remote.stdout).hits as { text: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((h) => h.text).join("\n")).toContain("portfolio website");
  });

  it("leaves the index keyword-only, saying to unset the variable, when the model cannot be derived", async () => {
    const c = user("c", {
      FUNES_EMBED_PRECISION: "int8",
      // The tiny test embedder is a bag of words: no products by weights to quantize.
      FUNES_EMBED_MODEL_DIR: join(
        TEST_HUB_CACHE,
        "models--BAAI--bge-small-en-v1.5",
        "snapshots",
        "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
      ),
    });
    const r = await runFunes(["index", "--yes", "--json"], c);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).vectors).toMatchObject({ model: null, embedded: 0 });
    expect(r.stderr).toContain("could not derive an int8 embedder from");
    expect(r.stderr).toContain("unset FUNES_EMBED_PRECISION to embed in fp32");
  });
});
