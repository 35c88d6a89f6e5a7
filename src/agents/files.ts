/**
 * Writing agent configuration safely: only when the content changes, atomically (a temp file beside the
 * target, then a rename), keeping the file's mode. A crash never leaves a half-written config.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
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

/** A user's file funes edits, and where funes keeps what it needs to put the file back. */
export interface KeptFile {
  path: string;
  /** Under `~/.funes/integrations`: the file's text before funes's edits, and as funes last left it. */
  record: string;
}

/**
 * What the record holds: the text to go back to (null: no file), the text funes last left, and the folders
 * the file's first write created (deepest last), which go again with a file funes created.
 */
interface Kept {
  text: string | null;
  after?: string | null;
  dirs?: string[];
}

/** The folders above `path` that do not exist yet, outermost first. */
function missingDirs(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); !existsSync(d) && dirname(d) !== d; d = dirname(d)) out.unshift(d);
  return out;
}

function readKept(record: string): Kept | null {
  const saved = readTextOrNull(record);
  return saved === null ? null : (JSON.parse(saved) as Kept);
}

function saveKept(record: string, kept: Kept): void {
  writeIfChanged(record, `${JSON.stringify(kept)}\n`);
}

/**
 * Before funes edits the file: remembers its text the first time, and again when it changed since funes
 * last left it (so what the user changed in between is part of what `remove` goes back to), each time
 * without funes's own entries (`strip`: the same text when there are none).
 */
export function keepBefore(f: KeptFile, strip: (text: string) => string): void {
  const current = readTextOrNull(f.path);
  const kept = readKept(f.record);
  if (kept !== null && (kept.after === undefined || kept.after === current)) return;
  const dirs = kept?.dirs ?? missingDirs(f.path);
  saveKept(f.record, {
    text: current === null ? null : strip(current),
    ...(dirs.length > 0 ? { dirs } : {}),
  });
}

/** After funes (and the agent's own commands it ran) changed the file: remembers how it was left. */
export function keepAfter(f: KeptFile): void {
  const kept = readKept(f.record);
  if (kept !== null) saveKept(f.record, { ...kept, after: readTextOrNull(f.path) });
}

/** Whether the file is still as funes last left it (asked before an agent's own removal commands run). */
export function untouchedSince(f: KeptFile): boolean {
  const kept = readKept(f.record);
  return kept?.after !== undefined && kept.after === readTextOrNull(f.path);
}

/** How `remove` puts a file back. */
export interface RestoreOptions {
  /** Nothing changed the file since funes left it (see untouchedSince). */
  untouched: boolean;
  /** The text without funes's entries. */
  strip: (text: string) => string;
  /** Whether a text holds nothing (a file funes created goes when this is all that is left of it). */
  empty: (text: string) => boolean;
}

/**
 * Puts the file back and forgets the record: the exact bytes it had before funes's edits (or no file)
 * when it is `untouched`, else the file as it is now without funes's entries — what the user changed is
 * kept — and no file when funes created it and nothing else is in it. Returns whether it changed the file.
 */
export function restoreKept(f: KeptFile, o: RestoreOptions): boolean {
  const kept = readKept(f.record);
  const current = readTextOrNull(f.path);
  let target: string | null;
  if (o.untouched && kept !== null) target = kept.text;
  else if (current === null) target = null;
  else {
    const stripped = o.strip(current);
    target = kept !== null && kept.text === null && o.empty(stripped) ? null : stripped;
  }
  if (target === null) {
    rmSync(f.path, { force: true });
    for (const d of [...(kept?.dirs ?? [])].reverse())
      if (existsSync(d) && readdirSync(d).length === 0) rmSync(d, { recursive: true, force: true });
  } else writeIfChanged(f.path, target);
  rmSync(f.record, { force: true });
  return target !== current;
}

/**
 * Edits a user's file: remembers it first (keepBefore), writes `edit`'s text only when it differs (an
 * edit that changes nothing leaves the file, and its modification time, alone), remembers how it was
 * left. Returns whether it wrote.
 */
export function editKept(
  f: KeptFile,
  o: { strip: (text: string) => string; edit: (text: string | null) => string },
): boolean {
  keepBefore(f, o.strip);
  const wrote = writeIfChanged(f.path, o.edit(readTextOrNull(f.path)));
  keepAfter(f);
  return wrote;
}

/** Takes funes's entries out of a file funes edited with editKept (see restoreKept). */
export function removeKept(f: KeptFile, o: Omit<RestoreOptions, "untouched">): boolean {
  return restoreKept(f, { ...o, untouched: untouchedSince(f) });
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
