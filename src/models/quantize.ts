/**
 * The int8 embedder, derived here from the fp32 ONNX file funes downloads (the model's publisher ships fp32
 * only). Every MatMul by a constant 2-D weight becomes onnxruntime's dynamic quantization (int8 weights, one
 * scale per matrix; activations quantized to uint8 on the fly, one scale per call), which onnxruntime fuses
 * into its integer kernels: ≈ 2x faster than fp32 on 2 cores.
 *
 * Plain dynamic quantization keeps only ≈ 0.93 of fp32's top 10 on the bench: the embedding is the first
 * (CLS) row's final state, and every product of that row adds rounding straight into it, while the other
 * rows reach it only through attention, which averages their rounding away. So the products on that row's
 * own path after attention — the attention output projection and the feed-forward layers, every MatMul not
 * split into attention heads — also compute row 0 in fp32 and write it over the int8 result (ScatterND):
 * one row in ≈ 40 in fp32, ≈ 0.99 of fp32's top 10, ≈ 10% dearer than plain int8 (bench: `--int8`). The
 * query, key and value projections (their output goes to a Reshape into heads) stay int8 on every row:
 * their rounding is mixed away too. Everything else (embeddings, attention's own products, normalisation)
 * stays fp32.
 */
import { type PbField, PbWriter, pbDecode, pbText, pbVarints } from "./protobuf.js";

// ONNX field numbers (onnx.proto3).
const MODEL = { opset: 8, graph: 7 } as const;
const OPSET = { domain: 1, version: 2 } as const;
const GRAPH = { node: 1, initializer: 5, input: 11 } as const;
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
const ATTR = { name: 1, f: 2, i: 3, g: 6, graphs: 11, type: 20 } as const;
const TENSOR = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9, dataLocation: 14 } as const;
const FLOAT = 1;
const INT8 = 3;
const INT64 = 7;
const ATTR_INT = 2;

/** A 2-D float initializer a MatMul can take as its weight. */
interface Weight {
  k: number;
  n: number;
  values: Float32Array;
}

function floatValues(fields: PbField[]): Float32Array | null {
  const raw = fields.find((f) => f.no === TENSOR.rawData);
  const packed = fields.filter((f) => f.no === TENSOR.floatData);
  if (raw !== undefined) {
    if (raw.bytes.length % 4 !== 0) return null;
    // A copy: the view may sit at any offset of the file, and Float32Array needs 4-byte alignment.
    return new Float32Array(Uint8Array.from(raw.bytes).buffer);
  }
  if (packed.length === 0) return null;
  const parts = packed.map((f) =>
    f.wire === 2
      ? new Float32Array(Uint8Array.from(f.bytes).buffer)
      : Float32Array.of(Buffer.from(f.bytes).readFloatLE()),
  );
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The initializer as a weight, or null when it is not a 2-D float tensor held in the file. */
function asWeight(fields: PbField[]): Weight | null {
  const type = fields.find((f) => f.no === TENSOR.dataType)?.num;
  const external = fields.some((f) => f.no === TENSOR.dataLocation && f.num === 1);
  const dims = fields.filter((f) => f.no === TENSOR.dims).flatMap(pbVarints);
  if (type !== FLOAT || external || dims.length !== 2) return null;
  const [k = 0, n = 0] = dims;
  const values = floatValues(fields);
  if (values === null || values.length !== k * n || k === 0 || n === 0) return null;
  return { k, n, values };
}

function tensor(name: string, dims: number[], type: number, data: Uint8Array): Uint8Array {
  const t = new PbWriter();
  for (const d of dims) t.varint(TENSOR.dims, d);
  return t.varint(TENSOR.dataType, type).bytes(TENSOR.name, name).bytes(TENSOR.rawData, data).finish();
}

function intAttr(name: string, v: number): Uint8Array {
  return new PbWriter().bytes(ATTR.name, name).varint(ATTR.i, v).varint(ATTR.type, ATTR_INT).finish();
}

const i64 = (values: number[]) => new Uint8Array(BigInt64Array.from(values, BigInt).buffer);

/** A graph's new nodes and initializers, under names that cannot meet the model's own. */
class Emitter {
  readonly nodes: Uint8Array[] = [];
  readonly inits: Uint8Array[] = [];
  private n = 0;
  constructor(private readonly prefix: string) {}

  name(): string {
    return `${this.prefix}${this.n++}`;
  }

  init(dims: number[], type: number, data: Uint8Array): string {
    const name = this.name();
    this.inits.push(tensor(name, dims, type, data));
    return name;
  }

  op(opType: string, inputs: string[], o: { outputs?: string[]; ints?: [string, number][] } = {}): string[] {
    const outputs = o.outputs ?? [this.name()];
    const node = new PbWriter();
    for (const x of inputs) node.bytes(NODE.input, x);
    for (const x of outputs) node.bytes(NODE.output, x);
    node.bytes(NODE.name, this.name()).bytes(NODE.opType, opType);
    for (const [k, v] of o.ints ?? []) node.bytes(NODE.attribute, intAttr(k, v));
    this.nodes.push(node.finish());
    return outputs;
  }
}

/** Int8 weights, one scale for the matrix (max |w| / 127), as onnxruntime's dynamic quantizer makes them. */
function quantizeWeight(w: Weight): { q: Int8Array; scale: number } {
  let max = 0;
  for (const v of w.values) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const q = new Int8Array(w.values.length);
  for (let i = 0; i < q.length; i++)
    q[i] = Math.max(-127, Math.min(127, Math.round((w.values[i] as number) / scale)));
  return { q, scale };
}

/** What a rewrite did. */
export interface QuantizeResult {
  bytes: Uint8Array;
  /** MatMuls now in int8, and of those the ones whose row 0 is computed in fp32 too. */
  quantized: number;
  pooledRowFp32: number;
}

/**
 * The int8 model for the fp32 ONNX `model` (the bytes of model.onnx). Throws when the file is not an ONNX
 * model, is older than opset 11, or holds no MatMul by a constant weight (not an encoder funes knows).
 */
export function quantizeOnnx(model: Uint8Array): QuantizeResult {
  const top = pbDecode(model);
  const graphField = top.find((f) => f.no === MODEL.graph && f.wire === 2);
  if (graphField === undefined) throw new Error("not an ONNX model (no graph)");
  const opset = top
    .filter((f) => f.no === MODEL.opset && f.wire === 2)
    .map((f) => pbDecode(f.bytes))
    .find((o) => fieldOf(o, OPSET.domain) === "" || fieldOf(o, OPSET.domain) === "ai.onnx");
  const version = opset?.find((f) => f.no === OPSET.version)?.num ?? 0;
  // DynamicQuantizeLinear, Range and ScatterND all exist from opset 11.
  if (version < 11) throw new Error(`the model's opset ${version} is older than 11`);
  const graph = pbDecode(graphField.bytes);

  const inits = new Map<string, PbField[]>();
  for (const f of graph)
    if (f.no === GRAPH.initializer && f.wire === 2)
      inits.set(fieldText(f.bytes, TENSOR.name), pbDecode(f.bytes));
  const nodes = graph.filter((f) => f.no === GRAPH.node && f.wire === 2).map((f) => pbDecode(f.bytes));
  const inputsOf = (n: PbField[]) => n.filter((f) => f.no === NODE.input).map(pbText);
  const outputsOf = (n: PbField[]) => n.filter((f) => f.no === NODE.output).map(pbText);
  // A node with a subgraph may read any outer name: then every initializer stays.
  const subgraphs = nodes.some((n) =>
    n.some(
      (f) =>
        f.no === NODE.attribute && pbDecode(f.bytes).some((a) => a.no === ATTR.g || a.no === ATTR.graphs),
    ),
  );
  const readers = new Map<string, PbField[][]>();
  for (const n of nodes)
    for (const x of inputsOf(n)) {
      const list = readers.get(x) ?? [];
      list.push(n);
      readers.set(x, list);
    }
  // A projection into attention heads: its product (or the product plus a bias) goes to a Reshape.
  const intoHeads = (out: string): boolean => {
    const next = readers.get(out) ?? [];
    return next.some(
      (r) =>
        fieldOf(r, NODE.opType) === "Reshape" ||
        (fieldOf(r, NODE.opType) === "Add" &&
          outputsOf(r).some((o) =>
            (readers.get(o) ?? []).some((rr) => fieldOf(rr, NODE.opType) === "Reshape"),
          )),
    );
  };

  const weights = new Map<string, Weight | null>();
  const weightOf = (name: string): Weight | null => {
    if (!weights.has(name)) {
      const t = inits.get(name);
      weights.set(name, t === undefined ? null : asWeight(t));
    }
    return weights.get(name) ?? null;
  };
  const rewrite = nodes.map((n) => {
    if (fieldOf(n, NODE.opType) !== "MatMul" || fieldOf(n, NODE.domain) !== "") return null;
    const ins = inputsOf(n);
    return ins.length === 2 && weightOf(ins[1] as string) !== null ? (ins[1] as string) : null;
  });
  const quantized = rewrite.filter((r) => r !== null).length;
  if (quantized === 0) throw new Error("the model has no MatMul by a constant weight to quantize");
  const pooled = nodes.map((n, i) => rewrite[i] != null && !intoHeads(outputsOf(n)[0] as string));

  // The fp32 weights left out: those only plain-int8 MatMuls read (an old export also lists its
  // initializers as graph inputs, which would then need feeding: those stay).
  const stillRead = new Set<string>(
    graph.filter((f) => f.no === GRAPH.input && f.wire === 2).map((f) => fieldText(f.bytes, 1)),
  );
  nodes.forEach((n, i) => {
    if (rewrite[i] === null || pooled[i]) for (const x of inputsOf(n)) stillRead.add(x);
  });
  const drop = new Set(subgraphs ? [] : rewrite.filter((w): w is string => w !== null && !stillRead.has(w)));

  const e = new Emitter("funes_q8_");
  const zeroI8 = e.init([], INT8, Uint8Array.of(0));
  const [i0, i1] = [e.init([1], INT64, i64([0])), e.init([1], INT64, i64([1]))];
  const [s0, s1, rowShape] = [
    e.init([], INT64, i64([0])),
    e.init([], INT64, i64([1])),
    e.init([3], INT64, i64([-1, 1, 1])),
  ];
  const int8Of = new Map<string, [string, string]>();
  // Each replaced MatMul's nodes, as a range of e.nodes.
  const emittedFor = new Map<number, [number, number]>();
  nodes.forEach((n, i) => {
    const w = rewrite[i];
    if (w === null || w === undefined) return;
    const from = e.nodes.length;
    emit(n, w, i);
    emittedFor.set(i, [from, e.nodes.length]);
  });
  function emit(n: PbField[], w: string, i: number): void {
    const [a, out] = [inputsOf(n)[0] as string, outputsOf(n)[0] as string];
    let q = int8Of.get(w);
    if (q === undefined) {
      const weight = weightOf(w) as Weight;
      const { q: values, scale } = quantizeWeight(weight);
      q = [
        e.init([weight.k, weight.n], INT8, new Uint8Array(values.buffer)),
        e.init([], FLOAT, new Uint8Array(Float32Array.of(scale).buffer)),
      ];
      int8Of.set(w, q);
    }
    // The pattern onnxruntime's dynamic quantizer writes, which it fuses into DynamicQuantizeMatMul.
    const [aq, as, az] = e.op("DynamicQuantizeLinear", [a], { outputs: [e.name(), e.name(), e.name()] }) as [
      string,
      string,
      string,
    ];
    const [prod] = e.op("MatMulInteger", [aq, q[0], az, zeroI8]) as [string];
    const [prodF] = e.op("Cast", [prod], { ints: [["to", FLOAT]] }) as [string];
    const [scale] = e.op("Mul", [as, q[1]]) as [string];
    if (!pooled[i]) {
      e.op("Mul", [prodF, scale], { outputs: [out] });
      return;
    }
    const [y8] = e.op("Mul", [prodF, scale]) as [string];
    // Row 0 of every batch row, in fp32, written over the int8 result at indices [[b, 0]] for each b.
    const [row0] = e.op("Slice", [a, i0, i1, i1]) as [string];
    const [y0] = e.op("MatMul", [row0, w]) as [string];
    const [shape] = e.op("Shape", [a]) as [string];
    const [batch] = e.op("Gather", [shape, s0], { ints: [["axis", 0]] }) as [string];
    const [rows] = e.op("Reshape", [e.op("Range", [s0, batch, s1])[0] as string, rowShape]) as [string];
    const [zeros] = e.op("Mul", [rows, s0]) as [string];
    const [idx] = e.op("Concat", [rows, zeros], { ints: [["axis", 2]] }) as [string];
    e.op("ScatterND", [y8, idx, y0], { outputs: [out] });
  }

  // The graph again: kept fields as they were, each replaced MatMul's nodes in its place (nodes stay in
  // topological order), the new initializers first.
  const out = new PbWriter();
  for (const t of e.inits) out.bytes(GRAPH.initializer, t);
  let nodeAt = 0;
  for (const f of graph) {
    if (f.no === GRAPH.node && f.wire === 2) {
      const range = emittedFor.get(nodeAt++);
      if (range === undefined) out.field(f);
      else for (const node of e.nodes.slice(...range)) out.bytes(GRAPH.node, node);
      continue;
    }
    if (f.no === GRAPH.initializer && f.wire === 2 && drop.has(fieldText(f.bytes, TENSOR.name))) continue;
    out.field(f);
  }

  const result = new PbWriter();
  for (const f of top) {
    if (f.no === MODEL.graph && f.wire === 2) result.bytes(MODEL.graph, out.finish());
    else result.field(f);
  }
  return { bytes: result.finish(), quantized, pooledRowFp32: pooled.filter(Boolean).length };
}

/** The text of field `no` of a decoded message, "" when absent. */
function fieldOf(fields: PbField[], no: number): string {
  const f = fields.find((x) => x.no === no);
  return f === undefined ? "" : pbText(f);
}

/** The text of field `no` of a message (a tensor's or value's name), "" when absent. */
function fieldText(message: Uint8Array, no: number): string {
  return fieldOf(pbDecode(message), no);
}
