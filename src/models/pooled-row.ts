/**
 * Which nodes of an encoder carry the pooled row's own stream. funes embeds row 0 (CLS) of
 * `last_hidden_state`; its value is built on the residual path: each layer's attention output projection,
 * feed-forward products, bias and residual sums and normalisations all work row by row. Rounding on that
 * path lands in the embedding directly, while the other rows reach row 0 only through attention, which
 * averages their rounding away (plain int8 keeps ≈ 0.93 of fp32's top 10 on the bench; this plan ≈ 0.99).
 *
 * The stream: every product by a weight that does not feed a split into attention heads, and every
 * row-by-row node downstream of one (up to the next op that mixes rows). The quantizer runs these nodes
 * twice: on every row with int8 products, and on row 0 alone in fp32 (a copy of the nodes reading row 0 of
 * what they take from outside the stream). Where something outside reads a stream tensor (the next
 * layer's query, key and value projections), row 0 of the int8 result is overwritten with the fp32 row;
 * the output funes reads is the fp32 row alone, so the last layer's stream never runs on other rows.
 */

import { type PbField, pbDecode, pbSigned, pbSignedVarints } from "../protobuf/index.js";
import { ATTR, fieldOf, type GraphView, NODE } from "./onnx-model.js";

/** Ops whose every output row depends only on the same input rows. */
const ELEMENTWISE = new Set([
  "Add",
  "Sub",
  "Mul",
  "Div",
  "Pow",
  "Erf",
  "Tanh",
  "Relu",
  "Sigmoid",
  "Sqrt",
  "Neg",
  "Abs",
  "Exp",
  "Reciprocal",
  "Cast",
  "Identity",
]);

/** Node n's attribute `name` (its decoded fields), or null. */
function attribute(n: PbField[], name: string): PbField[] | null {
  for (const f of n) {
    if (f.no !== NODE.attribute) continue;
    const a = pbDecode(f.bytes);
    if (fieldOf(a, ATTR.name) === name) return a;
  }
  return null;
}

/** An int attribute's value (negative ones included), or null. */
function intAttr(n: PbField[], name: string): number | null {
  const v = attribute(n, name)?.find((x) => x.no === ATTR.i);
  return v === undefined ? null : pbSigned(v);
}

/** An ints attribute's values (negative ones included), or null. */
function intsAttr(n: PbField[], name: string): number[] | null {
  return (
    attribute(n, name)
      ?.filter((x) => x.no === ATTR.ints)
      .flatMap(pbSignedVarints) ?? null
  );
}

/** The plan for the pooled row. */
export interface PooledRowPlan {
  /** The stream's nodes. */
  stream: Set<number>;
  /** Stream nodes whose every-row (int8) version something needs. */
  allRows: Set<number>;
  /** Stream tensors read from outside the stream: their row 0 is overwritten with the fp32 row. */
  merged: Set<string>;
}

/**
 * The stream of `g` ending at `output`, node `i` being a product by a weight when `isWeightProduct(i)`;
 * `graphOutputs` names every output of the graph. Empty when the model does not have `output`.
 */
export function pooledRowPlan(
  g: GraphView,
  output: string,
  isWeightProduct: (i: number) => boolean,
  graphOutputs: ReadonlySet<string>,
): PooledRowPlan {
  const rowWise = (i: number): boolean => {
    const op = g.op(i);
    const n = g.nodes[i] as PbField[];
    if (ELEMENTWISE.has(op)) return true;
    if (op === "MatMul") return isWeightProduct(i);
    if (op === "LayerNormalization") {
      const axis = intAttr(n, "axis") ?? -1;
      return axis === -1 || axis === 2;
    }
    if (op === "ReduceMean") {
      const axes = intsAttr(n, "axes") ?? [];
      return g.inputs(i).length === 1 && axes.length === 1 && (axes[0] === -1 || axes[0] === 2);
    }
    return false;
  };
  // A product into attention heads: its result, or that plus a bias, goes to a Reshape.
  const readBy = (t: string) => g.readers.get(t) ?? [];
  const intoHeads = (i: number): boolean =>
    g
      .outputs(i)
      .some((o) =>
        readBy(o).some(
          (r) =>
            g.op(r) === "Reshape" ||
            (g.op(r) === "Add" && g.outputs(r).some((o2) => readBy(o2).some((rr) => g.op(rr) === "Reshape"))),
        ),
      );
  const stream = new Set<number>();
  const last = g.producer.get(output);
  if (last === undefined) return { stream, allRows: new Set(), merged: new Set() };
  // Only the output's ancestors matter to the embedding (a pooler reading the output is not one).
  const ancestors = new Set<number>([last]);
  for (let i = last; i >= 0; i--)
    if (ancestors.has(i))
      for (const x of g.inputs(i)) {
        const p = g.producer.get(x);
        if (p !== undefined) ancestors.add(p);
      }
  g.nodes.forEach((_, i) => {
    if (!ancestors.has(i) || !rowWise(i)) return;
    const starts = isWeightProduct(i) && !intoHeads(i);
    const fed = !isWeightProduct(i) && g.inputs(i).some((x) => stream.has(g.producer.get(x) ?? -1));
    if (starts || fed) stream.add(i);
  });
  // Backwards (readers come later in topological order): which every-row versions are needed, and which
  // stream tensors something outside the stream takes — a node, or the graph as an output other than the
  // pooled one; the pooled output too when a stream node needs it on every row.
  const allRows = new Set<number>();
  const merged = new Set<string>();
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    if (!stream.has(i)) continue;
    for (const o of g.outputs(i)) {
      const outside = readBy(o).some((r) => !stream.has(r)) || (graphOutputs.has(o) && o !== output);
      const needed = outside || readBy(o).some((r) => allRows.has(r));
      if (outside || (needed && o === output)) merged.add(o);
      if (needed) allRows.add(i);
    }
  }
  return { stream, allRows, merged };
}
