/**
 * Reading and writing the parts of an ONNX model funes rewrites: field numbers (onnx.proto3), weights held
 * in the file, new tensors and nodes under names that cannot meet the model's own.
 */
import { type PbField, PbWriter, pbDecode, pbText, pbVarints } from "../protobuf/index.js";

// ONNX field numbers (onnx.proto3).
export const MODEL = { opset: 8, graph: 7 } as const;
export const OPSET = { domain: 1, version: 2 } as const;
export const GRAPH = { node: 1, initializer: 5, input: 11, output: 12 } as const;
export const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
export const ATTR = { name: 1, f: 2, i: 3, g: 6, ints: 8, graphs: 11, type: 20 } as const;
export const TENSOR = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9, dataLocation: 14 } as const;
export const FLOAT = 1;
export const INT8 = 3;
export const INT64 = 7;
const ATTR_INT = 2;

/** A 2-D float initializer a MatMul can take as its weight. */
export interface Weight {
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
export function asWeight(fields: PbField[]): Weight | null {
  const type = fields.find((f) => f.no === TENSOR.dataType)?.num;
  const external = fields.some((f) => f.no === TENSOR.dataLocation && f.num === 1);
  const dims = fields.filter((f) => f.no === TENSOR.dims).flatMap(pbVarints);
  if (type !== FLOAT || external || dims.length !== 2) return null;
  const [k = 0, n = 0] = dims;
  const values = floatValues(fields);
  if (values === null || values.length !== k * n || k === 0 || n === 0) return null;
  return { k, n, values };
}

export function tensor(name: string, dims: number[], type: number, data: Uint8Array): Uint8Array {
  const t = new PbWriter();
  for (const d of dims) t.varint(TENSOR.dims, d);
  return t.varint(TENSOR.dataType, type).bytes(TENSOR.name, name).bytes(TENSOR.rawData, data).finish();
}

function intAttr(name: string, v: number): Uint8Array {
  return new PbWriter().bytes(ATTR.name, name).varint(ATTR.i, v).varint(ATTR.type, ATTR_INT).finish();
}

export const i64 = (values: number[]) => new Uint8Array(BigInt64Array.from(values, BigInt).buffer);

/** A graph's new nodes and initializers, under names that cannot meet the model's own. */
export class Emitter {
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
export function quantizeWeight(w: Weight): { q: Int8Array; scale: number } {
  let max = 0;
  for (const v of w.values) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const q = new Int8Array(w.values.length);
  for (let i = 0; i < q.length; i++)
    q[i] = Math.max(-127, Math.min(127, Math.round((w.values[i] as number) / scale)));
  return { q, scale };
}

/** The text of field `no` of a decoded message, "" when absent. */
export function fieldOf(fields: PbField[], no: number): string {
  const f = fields.find((x) => x.no === no);
  return f === undefined ? "" : pbText(f);
}

/** The text of field `no` of a message (a tensor's or value's name), "" when absent. */
export function fieldText(message: Uint8Array, no: number): string {
  return fieldOf(pbDecode(message), no);
}

/** A graph's nodes (decoded, in the file's topological order) and who produces and reads each tensor. */
export class GraphView {
  readonly producer = new Map<string, number>();
  readonly readers = new Map<string, number[]>();

  constructor(readonly nodes: PbField[][]) {
    nodes.forEach((_, i) => {
      for (const o of this.outputs(i)) this.producer.set(o, i);
      for (const x of this.inputs(i)) this.readers.set(x, [...(this.readers.get(x) ?? []), i]);
    });
  }

  inputs(i: number): string[] {
    return (this.nodes[i] as PbField[]).filter((f) => f.no === NODE.input).map(pbText);
  }

  outputs(i: number): string[] {
    return (this.nodes[i] as PbField[]).filter((f) => f.no === NODE.output).map(pbText);
  }

  /** Node i's op type, prefixed by its domain unless that is ONNX's own (`""` or `ai.onnx`). */
  op(i: number): string {
    const n = this.nodes[i] as PbField[];
    const domain = fieldOf(n, NODE.domain);
    const type = fieldOf(n, NODE.opType);
    return domain === "" || domain === "ai.onnx" ? type : `${domain}.${type}`;
  }

  /**
   * Tensors whose value is fixed: initializers, `Constant` outputs, and what a node computes from those
   * alone (a cast or square root of a constant).
   */
  constants(initializers: ReadonlySet<string>): Set<string> {
    const fixed = new Set(initializers);
    this.nodes.forEach((_, i) => {
      const ins = this.inputs(i).filter((x) => x !== "");
      if (this.op(i) === "Constant" || (ins.length > 0 && ins.every((x) => fixed.has(x))))
        for (const o of this.outputs(i)) fixed.add(o);
    });
    return fixed;
  }
  /** Node i with its inputs and outputs renamed, and its own name suffixed (a copy's must differ). */
  renamed(i: number, inputs: (x: string) => string, outputs: (x: string) => string, suffix = ""): Uint8Array {
    const w = new PbWriter();
    for (const f of this.nodes[i] as PbField[]) {
      if (f.no === NODE.input) w.bytes(NODE.input, inputs(pbText(f)));
      else if (f.no === NODE.output) w.bytes(NODE.output, outputs(pbText(f)));
      else if (f.no === NODE.name) w.bytes(NODE.name, `${pbText(f)}${suffix}`);
      else w.field(f);
    }
    return w.finish();
  }
}
