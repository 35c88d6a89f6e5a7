/** Writes agent-trace parquet files (one row per session, `messages` a 3-level LIST of UTF8) for tests. */
import { writeFileSync } from "node:fs";
import { parquetWriteBuffer } from "hyparquet-writer";

/** One session row. */
export interface TraceRow {
  session_id: string | null;
  messages: (string | null)[] | null;
  sent_at?: string | null;
  harness?: string | null;
  file_path?: string | null;
  metadata?: string | null;
}

/** Writes rows to `path`; optional columns are present when any row sets them. */
export function writeTraceParquet(path: string, rows: TraceRow[]): void {
  const optional = (["sent_at", "harness", "file_path", "metadata"] as const).filter((c) =>
    rows.some((r) => c in r),
  );
  const utf8 = (name: string) => ({
    name,
    type: "BYTE_ARRAY",
    converted_type: "UTF8",
    repetition_type: "OPTIONAL",
  });
  const schema = [
    { name: "root", num_children: 2 + optional.length },
    utf8("session_id"),
    { name: "messages", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    utf8("element"),
    ...optional.map(utf8),
  ];
  const columnData = [
    { name: "session_id", data: rows.map((r) => r.session_id) },
    { name: "messages", data: rows.map((r) => r.messages) },
    ...optional.map((c) => ({ name: c, data: rows.map((r) => r[c] ?? null) })),
  ];
  // biome-ignore lint/suspicious/noExplicitAny: hyparquet-writer's schema element type is not exported
  const buf = parquetWriteBuffer({ columnData, schema: schema as any });
  writeFileSync(path, Buffer.from(buf));
}
