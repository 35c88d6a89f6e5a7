/**
 * funes's runtime (onnxruntime-node + @huggingface/tokenizers) against transformers.js 4.3, which funes ran on
 * before and which stays a dev dependency for this test: the same token batches, and vectors and scores
 * within 1e-5, for single texts, batches of mixed lengths, texts past the limit and pairs past the limit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AutoModel, AutoModelForSequenceClassification, AutoTokenizer, env } from "@huggingface/transformers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testVocab } from "../../scripts/make-models.js";
import { type BertShape, writeBertEmbedder, writeBertReranker } from "../../scripts/model-gen/models.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { EMBED_MAX_TOKENS, embedBatches, loadEmbedder, loadReranker, RERANK_MAX_TOKENS } from "./runtime.js";
import type { ModelSpec } from "./specs.js";
import { loadBatchTokenizer } from "./tokenize.js";

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.useFSCache = false;

/** A small BERT: real attention, positions and token types, so CLS pooling and padding matter. */
const SHAPE: BertShape = {
  layers: 2,
  hidden: 32,
  heads: 2,
  ffn: 64,
  vocab: 0,
  maxPositions: 512,
  typeVocab: 2,
};

const long = (n: number) =>
  Array.from({ length: n }, (_, i) => `lance index deadlock ${i} qzx${i % 7}`).join(" ");
const TEXTS = [
  "why",
  "the lance index build would deadlock on two cores",
  long(40),
  "portfolio website for a graphic designer, built in python and typescript",
  long(300), // ~1,500 tokens: cut at 512
  "a",
  long(110), // just past 512
];
const QUERY = "why did the lance index deadlock";
const PASSAGES = [
  "the lance index build would deadlock on two cores",
  long(60), // past 256 with the query
  "a portfolio website for a graphic designer",
  long(200),
  "deadlock",
];

const spec = (dtype: "fp32" | "q8"): ModelSpec => ({
  key: "test",
  repo: "test/model",
  revision: "main",
  files: ["tokenizer.json", "tokenizer_config.json"],
  dtype,
});

let t: { dir: string; cleanup: () => void };
let embDir: string;
let rerDir: string;
beforeAll(() => {
  t = tempDir();
  const vocab = testVocab();
  const shape = { ...SHAPE, vocab: vocab.length };
  embDir = join(t.dir, "embedder");
  rerDir = join(t.dir, "reranker");
  writeBertEmbedder(embDir, shape, vocab, ["fp32", "int8"]);
  writeBertReranker(rerDir, shape, vocab, ["fp32", "int8"]);
});
afterAll(() => t.cleanup());

type RefBatch = Record<string, { data: BigInt64Array; dims: number[] }>;

/** transformers.js's batch as funes called it, as plain arrays. */
async function refBatch(dir: string, texts: string[], maxLength: number, pairs?: string[]) {
  const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  const enc = tok(texts, {
    ...(pairs ? { text_pair: pairs } : {}),
    padding: true,
    truncation: true,
    max_length: maxLength,
  }) as unknown as RefBatch;
  const arr = (k: string) => (enc[k] ? [...(enc[k] as { data: BigInt64Array }).data] : null);
  return {
    dims: enc.input_ids?.dims,
    ids: arr("input_ids"),
    mask: arr("attention_mask"),
    types: arr("token_type_ids"),
  };
}

async function ourBatch(dir: string, texts: string[], maxLength: number, pairs?: string[]) {
  const b = (await loadBatchTokenizer(dir)).encode(texts, { ...(pairs ? { pairs } : {}), maxLength });
  return {
    dims: [b.rows, b.length],
    ids: [...b.inputIds],
    mask: [...b.attentionMask],
    types: b.tokenTypeIds ? [...b.tokenTypeIds] : null,
  };
}

/** Each text's token count as transformers.js cuts it for the embedder. */
async function refTokenCounts(dir: string, texts: string[]): Promise<number[]> {
  const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  return texts.map((x) => Math.min(EMBED_MAX_TOKENS, tok.encode(x).length));
}

/**
 * transformers.js's embedder as funes ran it: the same batches (an int8 model quantizes each batch's
 * activations as a whole, so a vector depends on its batch), CLS of last_hidden_state, L2-normalised.
 */
async function refEmbed(dir: string, dtype: "fp32" | "q8", texts: string[]): Promise<Float32Array[]> {
  const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  const model = await AutoModel.from_pretrained(dir, {
    local_files_only: true,
    dtype,
    session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 },
  });
  try {
    const out: Float32Array[] = new Array(texts.length);
    for (const idx of embedBatches(await refTokenCounts(dir, texts))) {
      const enc = tok(
        idx.map((k) => texts[k] as string),
        { padding: true, truncation: true, max_length: EMBED_MAX_TOKENS },
      );
      const h = (await model(enc)).last_hidden_state as { dims: number[]; data: Float32Array };
      const [, s = 0, d = 0] = h.dims;
      idx.forEach((k, row) => {
        const v = h.data.slice(row * s * d, row * s * d + d);
        const n = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0)) || 1;
        out[k] = v.map((x) => x / n);
      });
    }
    return out;
  } finally {
    await model.dispose();
  }
}

async function refScore(dir: string, dtype: "fp32" | "q8", query: string, passages: string[]) {
  const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  const model = await AutoModelForSequenceClassification.from_pretrained(dir, {
    local_files_only: true,
    dtype,
    session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 },
  });
  try {
    // The pairs as funes batches them (an int8 model quantizes each batch's activations as a whole).
    const counts = passages.map((p) =>
      Math.min(RERANK_MAX_TOKENS, tok(query, { text_pair: p }).input_ids.dims.at(-1) as number),
    );
    const out: number[] = new Array(passages.length);
    for (const idx of embedBatches(counts)) {
      const enc = tok(
        idx.map(() => query),
        {
          text_pair: idx.map((k) => passages[k] as string),
          padding: true,
          truncation: true,
          max_length: RERANK_MAX_TOKENS,
        },
      );
      const { logits } = (await model(enc)) as { logits: { dims: number[]; data: Float32Array } };
      const labels = logits.dims[1] ?? 1;
      idx.forEach((k, j) => {
        out[k] = 1 / (1 + Math.exp(-(logits.data[j * labels] as number)));
      });
    }
    return out;
  } finally {
    await model.dispose();
  }
}

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>): void {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  expect(worst).toBeLessThanOrEqual(1e-5);
}

describe("embedder batches", () => {
  it("group texts by token count: rows × the longest within 1,024 tokens, a text at the limit alone", () => {
    const counts = [512, 3, 40, 300, 512, 9, 120, 40, 7, 250];
    const batches = embedBatches(counts);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(counts.map((_, i) => i));
    for (const b of batches) {
      const longest = Math.max(...b.map((k) => counts[k] as number));
      expect(b.length === 1 || b.length * longest <= 1024).toBe(true);
    }
    expect(batches.filter((b) => b.some((k) => counts[k] === 512)).map((b) => b.length)).toEqual([2]);
    expect(embedBatches(Array.from({ length: 100 }, () => 4)).map((b) => b.length)).toEqual([64, 36]);
  });
});

describe("token batches equal transformers.js's", () => {
  it("for single texts, mixed lengths, texts past the limit and pairs past the limit", async () => {
    for (const text of TEXTS)
      expect(await ourBatch(embDir, [text], 512)).toEqual(await refBatch(embDir, [text], 512));
    expect(await ourBatch(embDir, TEXTS, 512)).toEqual(await refBatch(embDir, TEXTS, 512));
    const queries = PASSAGES.map(() => QUERY);
    const ours = await ourBatch(rerDir, queries, 256, PASSAGES);
    expect(ours).toEqual(await refBatch(rerDir, queries, 256, PASSAGES));
    expect(ours.dims).toEqual([PASSAGES.length, 256]);
    // A pair past the limit is cut at the end: its second text's tail and last separator go.
    const sep = BigInt(testVocab().indexOf("[SEP]"));
    expect(ours.types?.[256 + 255]).toBe(1n);
    expect(ours.ids?.[256 + 255]).not.toBe(sep);
    // A long text alone is cut to exactly 512 tokens.
    expect((await ourBatch(embDir, [long(300)], 512)).dims).toEqual([1, 512]);
  });

  it("under the config's own limit, left padding, an AddedToken pad and a class without token types", async () => {
    const cfgPath = join(embDir, "tokenizer_config.json");
    const original = readFileSync(cfgPath, "utf8");
    const base = JSON.parse(original) as Record<string, unknown>;
    const variants: Record<string, unknown>[] = [
      { ...base, model_max_length: 40 },
      { ...base, padding_side: "left" },
      { ...base, pad_token: { __type: "AddedToken", content: "[PAD]" } },
      { ...base, tokenizer_class: "XLMRobertaTokenizer" },
    ];
    try {
      for (const cfg of variants) {
        writeFileSync(cfgPath, JSON.stringify(cfg));
        expect(await ourBatch(embDir, TEXTS, 512)).toEqual(await refBatch(embDir, TEXTS, 512));
        const queries = PASSAGES.map(() => QUERY);
        expect(await ourBatch(embDir, queries, 256, PASSAGES)).toEqual(
          await refBatch(embDir, queries, 256, PASSAGES),
        );
      }
    } finally {
      writeFileSync(cfgPath, original);
    }
  });
});

describe.each(["fp32", "q8"] as const)("%s outputs equal transformers.js's within 1e-5", (dtype) => {
  it("embeds single texts and a batch of mixed lengths, past the limit included", async () => {
    const e = await loadEmbedder(embDir, spec(dtype), { threads: 1 }, SHAPE.hidden);
    try {
      for (const text of TEXTS)
        expectClose((await e.embed([text]))[0] ?? [], (await refEmbed(embDir, dtype, [text]))[0] ?? []);
      // Mixed lengths: several batches of several texts (the batching rule sorts and groups them).
      const mixed = [...TEXTS, ...TEXTS.map((x) => `${x} again`), ...PASSAGES];
      const batches = embedBatches(await refTokenCounts(embDir, mixed));
      expect(batches.some((b) => b.length > 1)).toBe(true);
      expect(batches.length).toBeGreaterThan(1);
      const ref = await refEmbed(embDir, dtype, mixed);
      const all = await e.embed(mixed);
      for (const [i, v] of all.entries()) expectClose(v, ref[i] ?? []);
      // A text repeated in one call runs once: every copy gets the same vector, each in its own array.
      const twice = await e.embed([TEXTS[1] as string, TEXTS[2] as string, TEXTS[1] as string]);
      expect([...(twice[2] ?? [])]).toEqual([...(twice[0] ?? [])]);
      expect(twice[2]).not.toBe(twice[0]);
    } finally {
      await e.close();
    }
  });

  it("scores pairs, past the limit included", async () => {
    const ref = await refScore(rerDir, dtype, QUERY, PASSAGES);
    const r = await loadReranker(rerDir, spec(dtype), { threads: 1 });
    try {
      expectClose(await r.score(QUERY, PASSAGES), ref);
      // A batch of one against transformers.js's batch of one: q8 quantizes activations per batch, so a
      // passage scored alone may differ from the same passage scored among others, on both sides.
      const alone = [PASSAGES[1] as string];
      expectClose(await r.score(QUERY, alone), await refScore(rerDir, dtype, QUERY, alone));
    } finally {
      await r.close();
    }
  });

  it("gives zero token types to a model whose tokenizer class has none (XLM-RoBERTa, bge-reranker-base)", async () => {
    const cfgPath = join(rerDir, "tokenizer_config.json");
    const original = readFileSync(cfgPath, "utf8");
    const withTypes = await refScore(rerDir, dtype, QUERY, PASSAGES);
    writeFileSync(
      cfgPath,
      JSON.stringify({ ...JSON.parse(original), tokenizer_class: "XLMRobertaTokenizer" }),
    );
    try {
      const ref = await refScore(rerDir, dtype, QUERY, PASSAGES);
      // Not vacuous: segment ids change this model's scores.
      expect(Math.max(...ref.map((x, k) => Math.abs(x - (withTypes[k] as number))))).toBeGreaterThan(1e-7);
      const r = await loadReranker(rerDir, spec(dtype), { threads: 1 });
      try {
        expectClose(await r.score(QUERY, PASSAGES), ref);
      } finally {
        await r.close();
      }
    } finally {
      writeFileSync(cfgPath, original);
    }
  });
});
