/**
 * Disk per session, funes beside obra/episodic-memory, broken down by what holds the bytes: for funes the
 * memory folder's data files (the fp32 vectors apart: 384 × 4 bytes a chunk, the reference's format), each
 * live index, files no live version references (left by an index replaced since), manifests and
 * transactions, and `state.json`; for the peer its SQLite database by table (its sqlite-vec vectors apart)
 * and the copy of every transcript it archives. Bytes on disk do not move with the machine's load.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { LocalStore } from "../src/local/index.js";
import type { Row } from "./models-bench.js";

/** Bytes of every file under `path` (a file: its size). */
function bytesUnder(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return 0;
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((s, f) => s + bytesUnder(join(path, f)), 0);
}

/** Bytes of funes's memory folder and state by part. */
async function funesParts(
  funesHome: string,
): Promise<{ parts: [string, number][]; rows: number; versions: number }> {
  const table = join(funesHome, "memory", "chunks.lance");
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) throw new Error(`no funes memory under "${funesHome}"`);
  try {
    const rows = await store.table.countRows();
    const vectors = await store.table.countRows("vector IS NOT NULL");
    const live = await store.table.listIndices();
    const data = bytesUnder(join(table, "data"));
    const vectorBytes = vectors * 384 * 4;
    // A live index's bytes (every segment of it) as Lance counts them; what else lies under `_indices` was
    // left by an index replaced since, referenced by no version kept.
    const index = (kind: (t: string) => boolean) =>
      live.filter((i) => kind(i.indexType)).reduce((s, i) => s + (i.sizeBytes ?? 0), 0);
    const superseded = Math.max(0, bytesUnder(join(table, "_indices")) - index(() => true));
    return {
      rows,
      versions: (await store.table.listVersions()).length,
      parts: [
        ["fp32 vectors (in the data files)", vectorBytes],
        ["the rest of the data files (text, ids, metadata)", data - vectorBytes],
        ["vector index (IVF_RQ 4-bit)", index((t) => t === "IvfRq")],
        ["full-text index", index((t) => t === "FTS")],
        ["other live indexes", index((t) => t !== "IvfRq" && t !== "FTS")],
        ["index files no live version uses", superseded],
        [
          "manifests, transactions, deletions",
          bytesUnder(join(table, "_versions")) +
            bytesUnder(join(table, "_transactions")) +
            bytesUnder(join(table, "_deletions")),
        ],
        ["state.json (the reference's format)", bytesUnder(join(funesHome, "state.json"))],
      ],
    };
  } finally {
    store.close();
  }
}

/** Bytes of the peer's database by part, and of its transcript archive. */
function peerParts(configDir: string): { parts: [string, number][]; archive: number } {
  const file = join(configDir, "conversation-index", "db.sqlite");
  const db = new Database(file, { readonly: true });
  try {
    const pages = db.prepare("SELECT name, SUM(pgsize) AS n FROM dbstat GROUP BY name").all() as {
      name: string;
      n: number;
    }[];
    const vec = pages.filter((p) => p.name.startsWith("vec_exchanges")).reduce((s, p) => s + p.n, 0);
    const total = bytesUnder(file) + bytesUnder(`${file}-wal`);
    return {
      parts: [
        ["sqlite-vec vectors (fp32)", vec],
        ["the rest of db.sqlite (exchanges, tool calls, indexes, free pages)", total - vec],
      ],
      archive: bytesUnder(join(configDir, "conversation-archive")),
    };
  } finally {
    db.close();
  }
}

/** Disk rows for the bench table: each tool's parts per session, totals and the ratio. */
export async function diskRows(funesHome: string, peerCfg: string, sessions: number): Promise<Row[]> {
  const f = await funesParts(funesHome);
  const p = peerParts(peerCfg);
  const kb = (n: number) => `${(n / sessions / 1000).toFixed(2)} KB`;
  const sum = (parts: [string, number][]) => parts.reduce((s, [, n]) => s + n, 0);
  const funesTotal = sum(f.parts);
  const peerTotal = sum(p.parts);
  const funesVectors = f.parts[0]?.[1] ?? 0;
  const peerVectors = p.parts[0]?.[1] ?? 0;
  return [
    [
      `disk per session (${sessions} sessions): funes`,
      `${kb(funesTotal)} (${f.rows} chunks, ${f.versions} table version${f.versions === 1 ? "" : "s"} kept): ${f.parts
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${kb(n)}`)
        .join("; ")}`,
      "",
    ],
    [
      "disk per session: episodic-memory",
      `${kb(peerTotal)}: ${p.parts.map(([k, n]) => `${k} ${kb(n)}`).join("; ")}; and its transcript archive ${kb(p.archive)}`,
      "",
    ],
    [
      "disk per session, funes ÷ peer",
      `${(funesTotal / peerTotal).toFixed(2)}x; without the vectors ${((funesTotal - funesVectors) / (peerTotal - peerVectors)).toFixed(2)}x; counting the peer's archive ${(funesTotal / (peerTotal + p.archive)).toFixed(2)}x`,
      "",
    ],
  ];
}
