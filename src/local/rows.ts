/**
 * Chunks to Arrow record batches in the memory's schema. Vectors are null here (keyword-first indexing);
 * the embedder fills them later.
 */
import type { Data, RecordBatch, Table } from "apache-arrow";
import type { Chunk } from "../chunk/index.js";
import { arrow } from "./arrow.js";
import { COLUMNS, chunkSchema, VECTOR_DIM, vectorType } from "./schema.js";

function utf8(values: (string | null)[]): Data {
  return arrow.vectorFromArray(values, new arrow.Utf8()).data[0] as Data;
}

function int64(values: number[]): Data {
  return arrow.makeData({
    type: new arrow.Int64(),
    length: values.length,
    data: BigInt64Array.from(values, BigInt),
  });
}

function nullVectors(n: number): Data {
  const child = arrow.makeData({
    type: new arrow.Float32(),
    length: n * VECTOR_DIM,
    data: new Float32Array(n * VECTOR_DIM),
  });
  return arrow.makeData({
    type: vectorType(),
    length: n,
    nullCount: n,
    nullBitmap: new Uint8Array(Math.ceil(n / 8)),
    child,
  });
}

/** One Arrow table holding `chunks`, columns in stored order. */
export function chunksToArrow(chunks: Chunk[]): Table {
  const schema = chunkSchema();
  const col = <K extends keyof Chunk>(k: K) => chunks.map((c) => c[k]);
  const children = [
    utf8(col("id")),
    utf8(col("text")),
    utf8(col("sessionId")),
    utf8(col("workdir")),
    utf8(col("turnUuid")),
    utf8(col("parentUuid")),
    int64(col("seq")),
    utf8(col("ts")),
    utf8(col("role")),
    utf8(col("blockType")),
    utf8(col("toolName")),
    utf8(col("sourcePath")),
    int64(col("blockIdx")),
    int64(col("splitIdx")),
    nullVectors(chunks.length),
    utf8(col("harness")),
    utf8(col("repo")),
  ];
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: chunks.length, children });
  return new arrow.Table([new arrow.RecordBatch(schema, struct)]);
}

/**
 * A batch read from a memory table (every column of COLUMNS, one data chunk each) as a batch of the
 * memory's schema, its columns' data shared, not copied; `vector` replaced when given.
 */
export function memoryBatch(b: RecordBatch, vector?: Data): RecordBatch {
  const schema = chunkSchema();
  const children = COLUMNS.map((c) => {
    if (c === "vector" && vector !== undefined) return vector;
    const child = b.getChild(c);
    if (child === null || child.data.length !== 1)
      throw new Error(`column ${c} is missing from the rows read`);
    return child.data[0] as Data;
  });
  return new arrow.RecordBatch(
    schema,
    arrow.makeData({ type: new arrow.Struct(schema.fields), length: b.numRows, children }),
  );
}

/**
 * A function that returns one shared copy of each distinct string it is given: row listings of a million
 * rows keep the strings many rows share (a session, a turn, a block type) once instead of once per row.
 */
export function sharedStrings(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    seen.set(s, s);
    return s;
  };
}
