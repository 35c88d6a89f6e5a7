/**
 * What the local vector index costs at a given size (`npm run bench -- --vector-index`; BENCH_VECTOR_ROWS,
 * default 1,000,000): training IVF_RQ on every row (time, peak RSS), folding a tail of new rows into it as
 * `LocalStore.maintainVectorIndex` does (optimize: time, peak RSS, whether the indexed rows were
 * rewritten), and recall@20 against an exact scan after the fold, with the query settings of recall.
 * With BENCH_VECTOR_EARLY=n it also trains on the first n rows only and folds the rest in at once.
 * The table holds only ids and clustered unit vectors (the stand-in for bge-small's), so the figures are
 * Lance's own; each step runs in its own process so its peak RSS is its own.
 */
import "./native-env.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { arrow, lancedb } from "../src/local/arrow.js";
import type { Row } from "./models-bench.js";

const DIM = 384;
const TAIL = 20_000;
/** Rows trained on in the early-training variant (BENCH_VECTOR_EARLY). */
const EARLY = Number(process.env.BENCH_VECTOR_EARLY ?? 100_000);
const SELF = fileURLToPath(import.meta.url);

/** Deterministic clustered unit vectors: 256 centres plus noise. */
function makeBatch(start: number, n: number, seed: number) {
  let x = seed >>> 0;
  const rand = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
  let c = 7;
  const centre = (k: number) => {
    c = (k * 2654435761) >>> 0;
    return () => {
      c = (Math.imul(c, 1664525) + 1013904223) >>> 0;
      return c / 4294967296 - 0.5;
    };
  };
  const flat = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const next = centre(Math.floor((rand() + 0.5) * 256));
    let norm = 0;
    for (let j = 0; j < DIM; j++) {
      const v = next() + rand() * 0.6;
      flat[i * DIM + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < DIM; j++) flat[i * DIM + j] = (flat[i * DIM + j] as number) / norm;
  }
  const vt = new arrow.FixedSizeList(DIM, new arrow.Field("item", new arrow.Float32(), true));
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Utf8(), false),
    new arrow.Field("vector", vt, true),
  ]);
  const child = arrow.makeData({ type: new arrow.Float32(), length: n * DIM, data: flat });
  const vec = arrow.makeData({ type: vt, length: n, nullCount: 0, child });
  const ids = arrow.vectorFromArray(
    Array.from({ length: n }, (_, i) => `id-${start + i}`),
    new arrow.Utf8(),
  );
  const children = [ids.data[0] as NonNullable<(typeof ids.data)[0]>, vec];
  const rb = new arrow.RecordBatch(
    schema,
    arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, children }),
  );
  return { table: new arrow.Table([rb]), flat };
}

function peakMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

/** One step, in this process: prints one JSON line. */
async function step(name: string, dir: string, rows: number): Promise<void> {
  const db = await lancedb.connect(dir);
  const out: Record<string, unknown> = {};
  if (name === "make") {
    const t = await db.createTable("t", makeBatch(0, Math.min(rows, 50_000), 1).table);
    for (let s = 50_000; s < rows; s += 50_000)
      await t.add(makeBatch(s, Math.min(50_000, rows - s), s).table);
    await t.optimize({ cleanupOlderThan: new Date() });
  } else if (name === "make-early") {
    // The backfill's view: only the first EARLY rows have vectors when the index is trained.
    const t = await db.createTable("t", makeBatch(0, Math.min(rows, 50_000), 1).table);
    for (let s = 50_000; s < EARLY; s += 50_000)
      await t.add(makeBatch(s, Math.min(50_000, EARLY - s), s).table);
    await t.optimize({ cleanupOlderThan: new Date() });
  } else if (name === "grow") {
    // The rest of the rows arrive after training, in 50k writes; folded once at the end (optimize).
    const t = await db.openTable("t");
    for (let s = EARLY; s < rows; s += 50_000) await t.add(makeBatch(s, Math.min(50_000, rows - s), s).table);
  } else if (name === "fold-all") {
    const t = await db.openTable("t");
    out.unindexedBefore = (await t.indexStats("vector_idx"))?.numUnindexedRows;
    const t0 = performance.now();
    await t.optimize();
    out.seconds = (performance.now() - t0) / 1000;
    const st = await t.indexStats("vector_idx");
    out.unindexedAfter = st?.numUnindexedRows;
    out.segments = st?.numIndices;
  } else if (name === "train") {
    const t = await db.openTable("t");
    const t0 = performance.now();
    await t.createIndex("vector", {
      config: lancedb.Index.ivfRq({ distanceType: "l2", numBits: 4 }),
      name: "vector_idx",
    });
    out.seconds = (performance.now() - t0) / 1000;
  } else if (name === "fold") {
    const t = await db.openTable("t");
    await t.add(makeBatch(rows, TAIL, 99).table);
    out.fragmentsBefore = (await t.stats()).fragmentStats.numFragments;
    out.unindexedBefore = (await t.indexStats("vector_idx"))?.numUnindexedRows;
    const t0 = performance.now();
    await t.optimize();
    out.seconds = (performance.now() - t0) / 1000;
    out.unindexedAfter = (await t.indexStats("vector_idx"))?.numUnindexedRows;
    // Had compaction merged the indexed fragment with the tail (a rewrite of every row), there would be one.
    out.fragmentsAfter = (await t.stats()).fragmentStats.numFragments;
  } else if (name === "recall") {
    const t = await db.openTable("t");
    const probes = makeBatch(0, 40, 4242).flat;
    let agree = 0;
    const ms: number[] = [];
    for (let q = 0; q < 40; q++) {
      const v = probes.subarray(q * DIM, (q + 1) * DIM);
      const t0 = performance.now();
      const ann = await t
        .query()
        .nearestTo(v)
        .distanceType("l2")
        .nprobes(32)
        .refineFactor(10)
        .select(["id"])
        .limit(20)
        .toArray();
      ms.push(performance.now() - t0);
      const exact = await t
        .query()
        .nearestTo(v)
        .distanceType("l2")
        .bypassVectorIndex()
        .select(["id"])
        .limit(20)
        .toArray();
      const ids = new Set(exact.map((r) => String(r.id)));
      agree += ann.filter((r) => ids.has(String(r.id))).length;
    }
    ms.sort((a, b) => a - b);
    out.recall = agree / (40 * 20);
    out.p50 = ms[20];
  }
  out.peakMiB = peakMiB();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function run(name: string, dir: string, rows: number): Record<string, number | boolean> {
  const r = spawnSync(process.execPath, ["--import", "tsx", SELF, name, dir, String(rows)], {
    encoding: "utf8",
    env: { ...process.env, LANCE_CPU_THREADS: "2", LANCEDB_LOG: "error" },
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`vector-index bench step ${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}");
}

/** Runs the steps at BENCH_VECTOR_ROWS rows; returns the figures. */
export function benchVectorIndex(): Row[] {
  const rows = Number(process.env.BENCH_VECTOR_ROWS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), "funes-vindex-"));
  try {
    run("make", dir, rows);
    const train = run("train", dir, rows);
    const fold = run("fold", dir, rows);
    const recall = run("recall", dir, rows);
    const k = rows >= 1e6 ? `${rows / 1e6}M` : `${rows / 1e3}k`;
    const early: Row[] = [];
    if (process.env.BENCH_VECTOR_EARLY !== undefined) {
      // Trained on the first rows only, the rest folded in at once (what a backfill's first index does).
      rmSync(dir, { recursive: true, force: true });
      run("make-early", dir, rows);
      const t = run("train", dir, rows);
      run("grow", dir, rows);
      const f = run("fold-all", dir, rows);
      const r = run("recall", dir, rows);
      early.push([
        `[${k}] train on the first ${EARLY / 1000}k rows, fold the other ${(rows - EARLY) / 1000}k in at once`,
        `train ${Number(t.seconds).toFixed(0)} s (peak ${t.peakMiB} MiB), fold ${Number(f.seconds).toFixed(0)} s (peak ${f.peakMiB} MiB, ${f.segments} segment(s)); recall@20 ${Number(r.recall).toFixed(3)} of exact`,
        "≥ 0.98",
      ]);
    }
    return [
      [
        `[${k}] train IVF_RQ on every row`,
        `${Number(train.seconds).toFixed(0)} s, peak RSS ${train.peakMiB} MiB`,
        "",
      ],
      [
        `[${k}] fold a ${TAIL / 1000}k-row tail in (optimize)`,
        `${Number(fold.seconds).toFixed(1)} s, peak RSS ${fold.peakMiB} MiB; unindexed ${fold.unindexedBefore} → ${fold.unindexedAfter}; fragments ${fold.fragmentsBefore} → ${fold.fragmentsAfter} (indexed rows not rewritten)`,
        "",
      ],
      [
        `[${k}] recall@20 of exact after the fold`,
        `${Number(recall.recall).toFixed(3)} (40 queries, p50 ${Number(recall.p50).toFixed(0)} ms)`,
        "≥ 0.98",
      ],
      ...early,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF && process.argv[2] !== undefined) {
  await step(process.argv[2], process.argv[3] as string, Number(process.argv[4]));
}
