/**
 * The int8 embedder, derived here from the fp32 ONNX file funes downloads (the model's publisher ships fp32
 * only). Every MatMul by a constant 2-D weight becomes onnxruntime's dynamic quantization (int8 weights, one
 * scale per matrix; activations quantized to uint8 on the fly, one scale per call), which onnxruntime fuses
 * into its integer kernels; the pooled row's own stream also runs on that row alone in fp32
 * (pooled-row.ts). Everything else (embeddings, attention's own products, normalisation) stays fp32.
 * ≈ 0.5x fp32's backfill time on 2 cores (as fast as plain int8), ≈ 0.99 of fp32's top 10 on the bench
 * (`npm run bench -- --int8`).
 */

import { type PbField, PbWriter, pbDecode } from "../protobuf/index.js";
import {
  ATTR,
  asWeight,
  Emitter,
  FLOAT,
  fieldOf,
  fieldText,
  GRAPH,
  GraphView,
  INT8,
  INT64,
  i64,
  MODEL,
  NODE,
  OPSET,
  quantizeWeight,
  TENSOR,
  type Weight,
} from "./onnx-model.js";
import { pooledRowPlan } from "./pooled-row.js";

/** The output funes reads (row 0 of it: CLS pooling). */
const POOLED_OUTPUT = "last_hidden_state";

/** What a rewrite did. */
export interface QuantizeResult {
  bytes: Uint8Array;
  /** Products by weights computed in int8 on every row. */
  quantized: number;
  /** Nodes of the pooled row's stream (run on row 0 in fp32), and of those the ones run on every row too. */
  stream: number;
  streamAllRows: number;
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
  const g = new GraphView(
    graph.filter((f) => f.no === GRAPH.node && f.wire === 2).map((f) => pbDecode(f.bytes)),
  );
  const weights = new Map<string, Weight | null>();
  const weightOf = (name: string): Weight | null => {
    if (!weights.has(name)) {
      const t = inits.get(name);
      weights.set(name, t === undefined ? null : asWeight(t));
    }
    return weights.get(name) ?? null;
  };
  const weightFor = g.nodes.map((_, i) => {
    const ins = g.inputs(i);
    return g.op(i) === "MatMul" && ins.length === 2 && weightOf(ins[1] as string) !== null
      ? (ins[1] as string)
      : null;
  });
  if (weightFor.every((w) => w === null))
    throw new Error("the model has no MatMul by a constant weight to quantize");
  const graphOutputs = new Set(
    graph.filter((f) => f.no === GRAPH.output && f.wire === 2).map((f) => fieldText(f.bytes, 1)),
  );
  const plan = pooledRowPlan(g, POOLED_OUTPUT, (i) => weightFor[i] !== null, graphOutputs);
  const fixed = g.constants(new Set(inits.keys()));
  const { stream, allRows, merged } = plan;
  const inStream = (x: string) => stream.has(g.producer.get(x) ?? -1);
  // A merged tensor keeps its name (outside readers are left as they are); its int8 rows get another.
  const allName = (x: string) => (inStream(x) && merged.has(x) ? `${x}__funes_all` : x);
  const rowName = (x: string) => (x === POOLED_OUTPUT && !merged.has(x) ? x : `${x}__funes_row0`);
  // A merged pooled output is written by the merge; otherwise by its row copy alone.
  // Products by weights in int8 on every row: outside the stream, and the stream's every-row versions.
  const int8Products = new Set(
    g.nodes.map((_, i) => i).filter((i) => weightFor[i] !== null && (!stream.has(i) || allRows.has(i))),
  );

  const e = new Emitter("funes_q8_");
  const zeroI8 = e.init([], INT8, Uint8Array.of(0));
  const [i0, i1] = [e.init([1], INT64, i64([0])), e.init([1], INT64, i64([1]))];
  const [s0, s1, rowShape] = [
    e.init([], INT64, i64([0])),
    e.init([], INT64, i64([1])),
    e.init([3], INT64, i64([-1, 1, 1])),
  ];
  const int8Of = new Map<string, [string, string]>();
  const rowZero = new Map<string, string>();
  let scatterAt: string | null = null;

  /** x·W as onnxruntime's dynamic quantizer writes it (which it fuses into DynamicQuantizeMatMul). */
  const int8Product = (a: string, w: string, out: string): void => {
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
    const [aq, as, az] = e.op("DynamicQuantizeLinear", [a], { outputs: [e.name(), e.name(), e.name()] }) as [
      string,
      string,
      string,
    ];
    const [prod] = e.op("MatMulInteger", [aq, q[0], az, zeroI8]) as [string];
    const [prodF] = e.op("Cast", [prod], { ints: [["to", FLOAT]] }) as [string];
    const [scale] = e.op("Mul", [as, q[1]]) as [string];
    e.op("Mul", [prodF, scale], { outputs: [out] });
  };
  /** Row 0 (along axis 1) of a tensor from outside the stream, cut once. */
  const rowOf = (x: string): string => {
    let r = rowZero.get(x);
    if (r === undefined) {
      r = (e.op("Slice", [x, i0, i1, i1]) as [string])[0];
      rowZero.set(x, r);
    }
    return r;
  };
  /** Writes the fp32 row 0 over the int8 rows: ScatterND at [[b, 0]] for every b of the batch. */
  const merge = (all: string, row: string, out: string): void => {
    if (scatterAt === null) {
      const [shape] = e.op("Shape", [all]) as [string];
      const [batch] = e.op("Gather", [shape, s0], { ints: [["axis", 0]] }) as [string];
      const [rows] = e.op("Reshape", [e.op("Range", [s0, batch, s1])[0] as string, rowShape]) as [string];
      const [zeros] = e.op("Mul", [rows, s0]) as [string];
      scatterAt = (e.op("Concat", [rows, zeros], { ints: [["axis", 2]] }) as [string])[0];
    }
    e.op("ScatterND", [all, scatterAt, row], { outputs: [out] });
  };

  // Each node's replacement, as a range of e.nodes (nodes stay in topological order).
  const emittedFor = new Map<number, [number, number]>();
  g.nodes.forEach((_, i) => {
    const from = e.nodes.length;
    const w = weightFor[i] ?? null;
    if (!stream.has(i)) {
      if (w === null) return;
      int8Product(g.inputs(i)[0] as string, w, g.outputs(i)[0] as string);
    } else {
      if (allRows.has(i)) {
        if (w !== null) int8Product(allName(g.inputs(i)[0] as string), w, allName(g.outputs(i)[0] as string));
        else e.nodes.push(g.renamed(i, allName, allName));
      }
      const rowInput = (x: string) => (inStream(x) ? rowName(x) : fixed.has(x) || x === "" ? x : rowOf(x));
      e.nodes.push(g.renamed(i, rowInput, rowName, "__funes_row0"));
      for (const o of g.outputs(i)) if (merged.has(o)) merge(allName(o), rowName(o), o);
    }
    emittedFor.set(i, [from, e.nodes.length]);
  });

  // The fp32 weights left out: those only int8 products read (an old export also lists its initializers
  // as graph inputs, which would then need feeding: those stay). A subgraph may read any outer name.
  const subgraphs = g.nodes.some((n) =>
    n.some(
      (f) =>
        f.no === NODE.attribute && pbDecode(f.bytes).some((a) => a.no === ATTR.g || a.no === ATTR.graphs),
    ),
  );
  const stillRead = new Set<string>(
    graph.filter((f) => f.no === GRAPH.input && f.wire === 2).map((f) => fieldText(f.bytes, 1)),
  );
  g.nodes.forEach((_, i) => {
    if (weightFor[i] === null || stream.has(i)) for (const x of g.inputs(i)) stillRead.add(x);
  });
  const drop = new Set(
    subgraphs ? [] : weightFor.filter((w): w is string => w !== null && !stillRead.has(w)),
  );

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
  return {
    bytes: result.finish(),
    quantized: int8Products.size,
    stream: stream.size,
    streamAllRows: allRows.size,
  };
}
