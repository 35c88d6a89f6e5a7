/**
 * The int8 embedder funes derives from an fp32 model: the rewrite on a BERT-shaped model (which products
 * become int8, which keep their pooled row in fp32), loading it through the production path (derived once,
 * kept beside the model, vectors close to fp32's), and the refusals: a model with nothing to
 * quantize, and a rewrite too far from its fp32 model.
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testVocab } from "../../scripts/make-models.js";
import { type BertShape, writeBertEmbedder, writeTinyEmbedder } from "../../scripts/model-gen/models.js";
import { GraphBuilder, randomTensor, seededRandom } from "../../scripts/model-gen/onnx-graph.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { quantizeOnnx } from "./quantize.js";
import { loadEmbedder, ModelLoadError } from "./runtime.js";
import { EMBEDDER_INT8_SPEC, EMBEDDER_SPEC } from "./specs.js";

const SHAPE: BertShape = {
  layers: 3,
  hidden: 64,
  heads: 4,
  ffn: 128,
  vocab: 0,
  maxPositions: 512,
  typeVocab: 2,
};
const TEXTS = [
  "why does the lance index build deadlock on two cores",
  "export function add(a: number, b: number) { return a + b }",
  "a portfolio website for a graphic designer",
  "deadlock",
];

let t: { dir: string; cleanup: () => void };
let bert: string;
beforeAll(() => {
  t = tempDir();
  const vocab = testVocab();
  bert = join(t.dir, "bert");
  writeBertEmbedder(bert, { ...SHAPE, vocab: vocab.length }, vocab, ["fp32"]);
});
afterAll(() => t.cleanup());

/** A model folder with the BERT's config and tokenizer, and its model.onnx when `withModel`. */
function copyBert(dir: string, withModel: boolean): void {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  const files = ["config.json", "tokenizer.json", "tokenizer_config.json"];
  for (const f of withModel ? [...files, "onnx/model.onnx"] : files)
    copyFileSync(join(bert, f), join(dir, f));
}

const derivedFiles = (dir: string) =>
  readdirSync(join(dir, "onnx")).filter((f) => f.startsWith("model_funes_q8_"));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

describe("quantizeOnnx", () => {
  it("runs every product by a weight in int8, and the pooled row's stream again on row 0 in fp32", () => {
    const r = quantizeOnnx(readFileSync(join(bert, "onnx", "model.onnx")));
    // The stream, per layer: the attention output product, its bias and residual sums and normalisation,
    // the two feed-forward products with their biases, GELU's five nodes, the residual sum and the
    // normalisation (15 nodes), and the output's Identity. Every layer but the last also runs it on every
    // row (the next layer's query, key and value read it); the last layer's feeds only row 0 of the output.
    expect(r.stream).toBe(15 * SHAPE.layers + 1);
    expect(r.streamAllRows).toBe(15 * (SHAPE.layers - 1));
    // In int8 on every row: query, key and value in every layer, the three others in all but the last.
    expect(r.quantized).toBe(3 * SHAPE.layers + 3 * (SHAPE.layers - 1));
  });

  it("refuses what is not an ONNX encoder it can quantize", () => {
    expect(() => quantizeOnnx(Uint8Array.from([0x08, 0x07]))).toThrow("not an ONNX model");
    const tiny = join(t.dir, "tiny");
    writeTinyEmbedder(tiny, testVocab());
    expect(() => quantizeOnnx(readFileSync(join(tiny, "onnx", "model.onnx")))).toThrow(
      "no MatMul by a constant weight",
    );
  });
});

describe("the int8 embedder", () => {
  it("is derived once beside the model, and embeds close to fp32 but not as fp32", async () => {
    const dir = join(t.dir, "copy");
    copyBert(dir, true);
    // A writer that crashed two hours ago left its copy; one writing now has just started its own.
    const crashed = join(dir, "onnx", "model_funes_q8_0123456789ab.onnx.999.tmp");
    const writing = join(dir, "onnx", "model_funes_q8_0123456789ab.onnx.998.tmp");
    writeFileSync(crashed, "partial");
    writeFileSync(writing, "partial");
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(crashed, twoHoursAgo, twoHoursAgo);
    const fp32 = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 }, SHAPE.hidden);
    const int8 = await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden);
    try {
      const [a, b] = [await fp32.embed(TEXTS), await int8.embed(TEXTS)];
      for (let i = 0; i < TEXTS.length; i++) {
        expect(cosine(a[i] as Float32Array, b[i] as Float32Array)).toBeGreaterThan(0.99);
        // Computed by the int8 file, not handed fp32's vectors.
        expect(b[i]).not.toEqual(a[i]);
      }
    } finally {
      await fp32.close();
      await int8.close();
    }
    expect(existsSync(crashed)).toBe(false);
    expect(existsSync(writing)).toBe(true);
    rmSync(writing);
    const [file] = derivedFiles(dir);
    expect(derivedFiles(dir)).toHaveLength(1);
    const made = statSync(join(dir, "onnx", file as string)).mtimeMs;
    // A second load uses the file as it is.
    await (await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden)).close();
    expect(derivedFiles(dir)).toEqual([file]);
    expect(statSync(join(dir, "onnx", file as string)).mtimeMs).toBe(made);
    // A replaced model.onnx derives anew, and the old file goes.
    utimesSync(join(dir, "onnx", "model.onnx"), new Date(), new Date(Date.now() + 5000));
    await (await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden)).close();
    expect(derivedFiles(dir)).toHaveLength(1);
    expect(derivedFiles(dir)[0]).not.toBe(file);
  });

  it("never uses a kept file changed on disk: same-size damage or zeroed bytes are derived again", async () => {
    const dir = join(t.dir, "changed");
    copyBert(dir, true);
    const fp32 = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 }, SHAPE.hidden);
    const reference = await fp32.embed(TEXTS);
    await fp32.close();
    await (await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden)).close();
    for (const fill of [null, 0]) {
      const [name] = derivedFiles(dir);
      const file = join(dir, "onnx", name as string);
      const bytes = readFileSync(file);
      // The middle quarter of the file: random bytes, then zeros; the size stays the same.
      const from = Math.floor(bytes.length * 0.375);
      const rnd = seededRandom(5);
      for (let i = from; i < from + Math.floor(bytes.length / 4); i++)
        bytes[i] = fill ?? Math.floor(rnd() * 256);
      writeFileSync(file, bytes);
      const int8 = await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden);
      try {
        const got = await int8.embed(TEXTS);
        got.forEach((v, i) => {
          expect(cosine(v, reference[i] as Float32Array)).toBeGreaterThan(0.99);
        });
      } finally {
        await int8.close();
      }
      expect(derivedFiles(dir)).toHaveLength(1);
      expect(readFileSync(join(dir, "onnx", derivedFiles(dir)[0] as string)).equals(bytes)).toBe(false);
    }
  });

  it("refuses a model whose output is not finite, before any vector leaves it", async () => {
    const dir = join(t.dir, "nan");
    writeTinyEmbedder(dir, testVocab());
    const file = join(dir, "onnx", "model.onnx");
    const bytes = readFileSync(file);
    // Every float of the word embeddings (most of the file) becomes a NaN (0xffffffff).
    bytes.fill(0xff, Math.floor(bytes.length * 0.2), Math.floor(bytes.length * 0.8));
    writeFileSync(file, bytes);
    const err = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 })
      .then((e) => e.embed(TEXTS))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toMatch(
      /made vectors that are not finite \(NaN or infinity\) — delete the folder/,
    );
  });

  it("says to embed in fp32 when the model has nothing to quantize", async () => {
    const tiny = join(t.dir, "tiny2");
    writeTinyEmbedder(tiny, testVocab());
    const err = await loadEmbedder(tiny, EMBEDDER_INT8_SPEC, { threads: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toMatch(
      /^could not derive an int8 embedder from ".*tiny2": the model has no MatMul by a constant weight to quantize — unset FUNES_EMBED_PRECISION to embed in fp32$/,
    );
  });

  it("is refused, and its file removed, when the rewrite is too far from the fp32 model", async () => {
    // One huge weight on an input dimension no token uses: fp32 ignores it, but int8's one scale for the
    // matrix then rounds every other weight to zero.
    const dir = join(t.dir, "outlier");
    copyBert(dir, false);
    const vocab = testVocab().length;
    const d = 64;
    const emb = randomTensor(vocab * d, seededRandom(3), 1);
    for (let r = 0; r < vocab; r++) emb[r * d] = 0;
    const w = randomTensor(d * d, seededRandom(4), 0.05);
    w[5] = 1e4;
    const g = new GraphBuilder();
    const ids = g.input("input_ids", "int64", ["batch", "seq"]);
    const x = g.op("Gather", [g.init([vocab, d], emb), ids]);
    // Into a Reshape, as a projection into attention heads: int8 on every row.
    const y = g.op("Reshape", [g.op("MatMul", [x, g.init([d, d], w)]), g.ints([0, 0, d])]);
    g.op("Identity", [y], {}, 1, "last_hidden_state");
    g.output("last_hidden_state", "float", ["batch", "seq", d]);
    writeFileSync(join(dir, "onnx", "model.onnx"), g.encode());
    const err = await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, d).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toContain("is too far from its fp32 model (cosine");
    expect((err as Error).message).toContain("unset FUNES_EMBED_PRECISION to embed in fp32");
    expect(derivedFiles(dir)).toEqual([]);
    // The fp32 model itself still loads.
    await (await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 }, d)).close();
  });

  it("runs a graph with Constant nodes in the stream and a pooler reading the output, close to fp32", async () => {
    // As torch exports write them: scalars as Constant nodes, and a pooler (row 0 → product → tanh) as a
    // second output that reads the output funes takes.
    const dir = join(t.dir, "constants");
    copyBert(dir, false);
    const vocab = testVocab().length;
    const d = 64;
    const g = new GraphBuilder();
    const ids = g.input("input_ids", "int64", ["batch", "seq"]);
    const x = g.op("Gather", [g.init([vocab, d], randomTensor(vocab * d, seededRandom(5), 1)), ids]);
    const y = g.op("MatMul", [x, g.init([d, d], randomTensor(d * d, seededRandom(6), 0.2))]);
    const two = g.op("Constant", [], { value_float: { f: 2 } });
    const h = g.op("Add", [x, g.op("Erf", [g.op("Div", [y, two])])]);
    g.op("Identity", [h], {}, 1, "last_hidden_state");
    const row0 = g.op("Gather", [h, g.ints([0], [])], { axis: 1 });
    const pooled = g.op("Tanh", [
      g.op("MatMul", [row0, g.init([d, d], randomTensor(d * d, seededRandom(7), 0.2))]),
    ]);
    g.op("Identity", [pooled], {}, 1, "pooler_output");
    g.output("last_hidden_state", "float", ["batch", "seq", d]);
    g.output("pooler_output", "float", ["batch", d]);
    writeFileSync(join(dir, "onnx", "model.onnx"), g.encode());
    const fp32 = await loadEmbedder(dir, EMBEDDER_SPEC, { threads: 1 }, d);
    const int8 = await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, d);
    try {
      const [a, b] = [await fp32.embed(TEXTS), await int8.embed(TEXTS)];
      for (let i = 0; i < TEXTS.length; i++)
        expect(cosine(a[i] as Float32Array, b[i] as Float32Array)).toBeGreaterThan(0.999);
    } finally {
      await fp32.close();
      await int8.close();
    }
  });

  it("removes a kept file that no longer loads, says to embed in fp32, and derives it again next time", async () => {
    const dir = join(t.dir, "damaged");
    copyBert(dir, true);
    await (await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden)).close();
    const [file] = derivedFiles(dir);
    // Bytes that match the hash in their name (so not damaged since kept) but do not load.
    const junk = "not a model";
    const hash = createHash("sha256").update(junk).digest("hex").slice(0, 32);
    rmSync(join(dir, "onnx", file as string));
    writeFileSync(join(dir, "onnx", (file as string).replace(/_[0-9a-f]+\.onnx$/, `_${hash}.onnx`)), junk);
    const err = await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as Error).message).toMatch(
      /^the int8 embedder derived from ".*damaged" does not run: .* — unset FUNES_EMBED_PRECISION to embed in fp32$/,
    );
    // One next step: re-pulling the fp32 files would not mend a derived file.
    expect((err as Error).message).not.toContain("models pull");
    expect(derivedFiles(dir)).toEqual([]);
    await (await loadEmbedder(dir, EMBEDDER_INT8_SPEC, { threads: 1 }, SHAPE.hidden)).close();
    expect(derivedFiles(dir)).toEqual([file]);
  });
});
