/**
 * `node --import tsx bench/forget-bench.ts [rows]`: what forgetting one session costs on a memory laid out as
 * published memories are (16k-row fragments, vectors, a text index; a local memory is usually compacted
 * into fewer, bigger fragments, so a local forget rewrites more). A Hub forget without a purge adds only
 * deletion files and a manifest; a purge (and every local forget) writes the touched fragments again and
 * removes old files. Prints one line per figure; not a pass/fail test.
 */
import "./native-env.js";
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  appendMissing,
  deleteIds,
  embeddedRows,
  LocalStore,
  purgeRows,
  refreshTextIndex,
  writeVectors,
} from "../src/local/index.js";
import { leakyRow } from "../test/helpers/leaky.js";

/** Rows per fragment, as a push writes them (local/publish-rows.ts). */
const FRAGMENT_ROWS = 16_384;

function sizes(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(relative(dir, p), st.size);
    }
  };
  walk(dir);
  return out;
}

function diff(before: Map<string, number>, after: Map<string, number>) {
  const added = [...after].filter(([p]) => !before.has(p) && !p.endsWith("latest_version_hint.json"));
  const removed = [...before].filter(([p]) => !after.has(p));
  return {
    added: added.length,
    addedBytes: added.reduce((n, [, s]) => n + s, 0),
    removed: removed.length,
    removedBytes: removed.reduce((n, [, s]) => n + s, 0),
  };
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 50_000);
  const dir = mkdtempSync(join(tmpdir(), "funes-forget-bench-"));
  try {
    // Rows with vectors written in a scratch memory, then added to `base` as a push adds them (16k-row
    // fragments, no deletion files), with the text index a push builds.
    const scratch = await LocalStore.openOrCreate(join(dir, "scratch"));
    const words = "the release checklist said to bump the version then tag and publish the notes ".repeat(6);
    for (let from = 0; from < rows; from += FRAGMENT_ROWS) {
      const n = Math.min(FRAGMENT_ROWS, rows - from);
      const chunks = Array.from({ length: n }, (_, k) => {
        const i = from + k;
        // Sessions of 20 chunks each.
        return leakyRow(`id-${i}`, `${words} ${i}`, i % 20, 0, `session-${Math.floor(i / 20)}`);
      });
      await scratch.append(chunks);
      const vectors = new Map(
        chunks.map((c, k) => {
          const v = new Float32Array(384);
          v[k % 384] = 1;
          return [c.id, v];
        }),
      );
      await writeVectors(scratch.table, vectors);
    }
    const base = join(dir, "base");
    await appendMissing(base, await embeddedRows(scratch));
    scratch.close();
    await refreshTextIndex(base, 0);
    const victim = new Set(Array.from({ length: 20 }, (_, k) => `id-${20 * 100 + k}`));
    const line = (s: string) => process.stdout.write(`${s}\n`);
    line(
      `memory: ${rows} rows, ${([...sizes(base).values()].reduce((a, b) => a + b, 0) / 1048576).toFixed(1)} MiB`,
    );

    for (const mode of ["delete (Hub forget)", "purge (local forget, --purge-history)"] as const) {
      const copy = join(dir, mode.startsWith("delete") ? "d" : "p");
      cpSync(base, copy, { recursive: true });
      const before = sizes(copy);
      const s = await LocalStore.open(copy);
      if (s === null) throw new Error("no table");
      const t0 = performance.now();
      let rewritten = 0;
      if (mode.startsWith("delete")) await deleteIds(s.table, [...victim]);
      else rewritten = (await purgeRows(s.table, copy, victim, () => Date.now())).rewritten;
      const ms = performance.now() - t0;
      const count = await s.table.countRows();
      s.close();
      const d = diff(before, sizes(copy));
      line(
        `${mode}: 20 rows of one session in ${ms.toFixed(0)} ms; ${count} rows left; ${rewritten} rows rewritten; ` +
          `files +${d.added} (${(d.addedBytes / 1024).toFixed(1)} KiB) −${d.removed} (${(d.removedBytes / 1048576).toFixed(1)} MiB)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
