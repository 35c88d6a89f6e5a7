/**
 * A small ONNX graph builder over onnx-proto, for generating test and benchmark models.
 */
import onnxProto, { type onnx } from "onnx-proto";

const P = onnxProto.onnx;

type TensorData = Float32Array | BigInt64Array | Uint8Array | Int8Array;

const DTYPE = (d: TensorData): number =>
  d instanceof Float32Array
    ? P.TensorProto.DataType.FLOAT
    : d instanceof BigInt64Array
      ? P.TensorProto.DataType.INT64
      : d instanceof Uint8Array
        ? P.TensorProto.DataType.UINT8
        : P.TensorProto.DataType.INT8;

/** Node attributes: numbers (int or float by `floats`), int lists. */
export type Attrs = Record<string, number | number[] | { f: number }>;

/** Builds one graph. */
export class GraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly inits: onnx.ITensorProto[] = [];
  private readonly inputs: onnx.IValueInfoProto[] = [];
  private readonly outputs: onnx.IValueInfoProto[] = [];
  private n = 0;
  private usesMicrosoft = false;

  /** Declares a graph input; dims are numbers or symbolic names. */
  input(name: string, elemType: "int64" | "float", dims: (number | string)[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  /** Declares a graph output. */
  output(name: string, elemType: "int64" | "float", dims: (number | string)[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** Adds a constant tensor. */
  init(dims: number[], data: TensorData, name = `w${this.n++}`): string {
    this.inits.push({
      name,
      dims,
      dataType: DTYPE(data),
      rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
    return name;
  }

  /** An int64 constant. */
  ints(values: number[], dims: number[] = [values.length]): string {
    return this.init(dims, BigInt64Array.from(values, BigInt));
  }

  /** A float constant. */
  float(v: number): string {
    return this.init([], Float32Array.of(v));
  }

  /** Adds a node; returns its first output's name (or the given output names). */
  op(
    opType: string,
    inputs: string[],
    attrs: Attrs = {},
    outputs = 1,
    outName?: string,
    domain?: "com.microsoft",
  ): string {
    const outs = Array.from({ length: outputs }, (_, i) => (i === 0 && outName ? outName : `t${this.n++}`));
    const attribute = Object.entries(attrs).map(([name, v]) =>
      Array.isArray(v)
        ? { name, type: P.AttributeProto.AttributeType.INTS, ints: v }
        : typeof v === "object"
          ? { name, type: P.AttributeProto.AttributeType.FLOAT, f: v.f }
          : { name, type: P.AttributeProto.AttributeType.INT, i: v },
    );
    if (domain !== undefined) this.usesMicrosoft = true;
    this.nodes.push({
      opType,
      input: inputs,
      output: outs,
      attribute,
      name: `n${this.n++}`,
      domain: domain ?? "",
    });
    return outs[0] as string;
  }

  /** Like `op`, returning every output. */
  opN(opType: string, inputs: string[], outputs: number, attrs: Attrs = {}): string[] {
    const first = this.op(opType, inputs, attrs, outputs);
    const node = this.nodes[this.nodes.length - 1] as onnx.INodeProto;
    return (node.output as string[]) ?? [first];
  }

  /** Serializes the model (opset 17, IR 8; onnxruntime's contrib domain when a node uses it). */
  encode(): Uint8Array {
    const model = P.ModelProto.create({
      irVersion: 8,
      opsetImport: [
        { domain: "", version: 17 },
        ...(this.usesMicrosoft ? [{ domain: "com.microsoft", version: 1 }] : []),
      ],
      producerName: "funes-model-gen",
      graph: {
        name: "g",
        node: this.nodes,
        initializer: this.inits,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return P.ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, elem: "int64" | "float", dims: (number | string)[]): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: elem === "int64" ? P.TensorProto.DataType.INT64 : P.TensorProto.DataType.FLOAT,
        shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** A seeded generator of floats in [-1, 1). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s / 4294967296) * 2 - 1;
  };
}

/** A float tensor of random values scaled by `scale`. */
export function randomTensor(n: number, rand: () => number, scale: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rand() * scale;
  return out;
}
