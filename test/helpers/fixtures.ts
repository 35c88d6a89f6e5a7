/** Paths to the real transcripts under test/fixtures and temp-dir helpers for tests. */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** test/fixtures. */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
/** test/fixtures/traces. */
export const TRACES = join(FIXTURES, "traces");
/** The repository root. */
export const ROOT = join(FIXTURES, "..", "..");

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = "funes-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Copies a fixture file or folder to `dest`. */
export function copyFixture(rel: string, dest: string): string {
  cpSync(join(TRACES, rel), dest, { recursive: true });
  return dest;
}

/** The generated tiny models' Hugging Face cache (written by the global setup). */
export const TEST_HUB_CACHE = join(FIXTURES, "models", "hub");

/** The generated embedder's folder in that cache (for `FUNES_EMBED_MODEL_DIR`). */
export const TEST_EMBEDDER = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);

/** Every file under `dir`, by relative path. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}
