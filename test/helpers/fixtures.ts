/** Paths to the real transcripts under test/fixtures and temp-dir helpers for tests. */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
