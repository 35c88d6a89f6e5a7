/**
 * The memory's table schema: the reference's 17 columns in its order and types, all nullable, with the
 * `embedding_model` metadata (docs/memory-format.md#columns). `harness` and `repo` come after `vector`
 * because the reference added them later; a memory the reference wrote must open here and ours there.
 */
import type { Schema } from "apache-arrow";
import { arrow } from "./arrow.js";

/** Table name inside `chunks.lance`'s database directory. */
export const TABLE_NAME = "chunks";
/** The embedder every vector in a funes memory comes from. */
export const EMBEDDING_MODEL = "BAAI/bge-small-en-v1.5";
/** Vector width of that model. */
export const VECTOR_DIM = 384;

/** Column names in stored order. */
export const COLUMNS = [
  "id",
  "text",
  "session_id",
  "workdir",
  "turn_uuid",
  "parent_uuid",
  "seq",
  "ts",
  "role",
  "block_type",
  "tool_name",
  "source_path",
  "block_idx",
  "split_idx",
  "vector",
  "harness",
  "repo",
] as const;

/**
 * The columns every funes memory has: all but the `harness` and `repo` facets, which the reference added
 * later (appended with add_columns), so older memories, its own included, lack them and are still read.
 */
export const REQUIRED_COLUMNS: readonly string[] = COLUMNS.filter((c) => c !== "harness" && c !== "repo");

/** The vector column's type: FixedSizeList<Float32, 384> with a nullable child named `item`. */
export function vectorType() {
  return new arrow.FixedSizeList(VECTOR_DIM, new arrow.Field("item", new arrow.Float32(), true));
}

/** The full schema with its metadata. */
export function chunkSchema(project?: string): Schema {
  const int64 = new Set(["seq", "block_idx", "split_idx"]);
  const fields = COLUMNS.map((name) => {
    if (name === "vector") return new arrow.Field(name, vectorType(), true);
    return new arrow.Field(name, int64.has(name) ? new arrow.Int64() : new arrow.Utf8(), true);
  });
  const metadata = new Map([["embedding_model", EMBEDDING_MODEL]]);
  // A project memory (the sessions behind a repo, curated) says whose it is, as the reference does.
  if (project !== undefined) metadata.set("project", project);
  return new arrow.Schema(fields, metadata);
}

/** The integer columns; every other column but `vector` holds text. */
const INT_COLUMNS: ReadonlySet<string> = new Set(["seq", "block_idx", "split_idx"]);

/**
 * The columns of `schema` funes reads whose type is not one it reads them as (text as Utf8 or LargeUtf8,
 * `seq`/`block_idx`/`split_idx` as integers, `vector` as 384 Float32): a stranger's table with a `text` of
 * numbers or a binary `session_id` is not a funes memory, and Lance would fail on it mid-query.
 */
export function mistypedColumns(schema: Schema): string[] {
  const D = arrow.DataType;
  const fits = (name: string, type: unknown): boolean => {
    if (name === "vector") {
      if (!D.isFixedSizeList(type) || type.listSize !== VECTOR_DIM) return false;
      const item = type.children[0]?.type;
      return D.isFloat(item) && item.precision === arrow.Precision.SINGLE;
    }
    if (INT_COLUMNS.has(name)) return D.isInt(type);
    return D.isUtf8(type) || D.isLargeUtf8(type);
  };
  const known = new Set<string>(COLUMNS);
  return schema.fields.filter((f) => known.has(f.name) && !fits(f.name, f.type)).map((f) => f.name);
}
