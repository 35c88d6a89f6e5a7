/**
 * Writing agent configuration safely: only when the content changes, atomically (a temp file beside the
 * target, then a rename), keeping the file's mode. A crash never leaves a half-written config.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { AgentSetupError } from "./setup.js";

/**
 * Writes `text` to `path` if it differs; returns whether it wrote. `mode` is applied on every call. A file
 * or folder that cannot be written is an AgentSetupError naming it.
 */
export function writeIfChanged(path: string, text: string, mode?: number): boolean {
  try {
    const same = existsSync(path) && readFileSync(path, "utf8") === text;
    if (!same) {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.funes-tmp`;
      const keep = existsSync(path) ? statSync(path).mode & 0o777 : undefined;
      writeFileSync(tmp, text, { mode: mode ?? keep ?? 0o644 });
      renameSync(tmp, path);
    }
    if (mode !== undefined) chmodSync(path, mode);
    return !same;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    throw new AgentSetupError(
      `can't write ${path} (${code}) — check that it and its folder are writable by you, then run this again`,
    );
  }
}

/** The file's text, or null when it does not exist. */
export function readTextOrNull(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/**
 * Remembers a user file's text (or its absence) before funes first edits it, in `record`; a later call
 * keeps the first record.
 */
export function rememberOriginal(record: string, text: string | null): void {
  if (!existsSync(record)) writeIfChanged(record, `${JSON.stringify({ text })}\n`);
}

/**
 * Puts back the user's file once funes's entries are gone: the exact original bytes (or no file) when its
 * content is the same as before funes touched it (`sameAsOriginal`), else `edited`. Forgets the record.
 */
export function restoreOriginal(
  path: string,
  record: string,
  sameAsOriginal: (original: string | null) => boolean,
  edited: string,
): void {
  const saved = readTextOrNull(record);
  const original = saved === null ? undefined : (JSON.parse(saved) as { text: string | null }).text;
  if (original !== undefined && sameAsOriginal(original)) {
    if (original === null) rmSync(path, { force: true });
    else writeIfChanged(path, original);
  } else writeIfChanged(path, edited);
  rmSync(record, { force: true });
}

/**
 * JSON with object keys sorted at every level and no whitespace: Codex's canonical form, and how funes tells
 * whether a config it edited changed otherwise.
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
