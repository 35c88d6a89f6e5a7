/**
 * Picking sources: the `--harness` spelling, the known agent directories, and the sources for a path given
 * to `funes index` (docs/transcript-formats.md#sources-and-units).
 */
import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { readHead, sniffFile, sqliteHarness } from "./detect.js";
import {
  type AgentDirs,
  type AgentEnv,
  formatNamed,
  formatOf,
  movedFolders,
  TRACE_FORMATS,
} from "./formats.js";
import { HermesSource } from "./hermes.js";
import { HermesFilesSource, isHermesSessionFile } from "./hermes-legacy.js";
import { hermesProfileHomes } from "./hermes-profiles.js";
import { isLfsPointer } from "./jsonl.js";
import { type JsonlHarness, JsonlTreeSource } from "./jsonl-tree.js";
import { OpenCodeSource } from "./opencode.js";
import { ParquetSource } from "./parquet.js";
import type { Harness, TraceSource } from "./types.js";

/** An unknown `--harness` value. */
export class UnknownHarnessError extends Error {
  constructor(readonly value: string) {
    const names = TRACE_FORMATS.map((f) => f.names[0]);
    super(`unknown harness "${value}" (expected ${names.slice(0, -1).join(", ")}, or ${names.at(-1)})`);
  }
}

/** The CLI spelling of a harness to its stored facet (`claude` and `claude_code` are one). */
export function parseHarness(value: string): Harness {
  const f = formatNamed(value);
  if (f === null) throw new UnknownHarnessError(value);
  return f.harness;
}

/** Each format's agent folder: its variable's (in `env`), else its default under `home`. */
export function agentFolders(home: string, env?: AgentEnv | AgentDirs): Record<Harness, string> {
  const dirs = movedFolders(env);
  return Object.fromEntries(
    TRACE_FORMATS.map((f) => [f.harness, dirs[f.harness] ?? join(home, ...f.folder.under)]),
  ) as Record<Harness, string>;
}

/** Agent session roots, in the order a no-path index walks them (formats.ts's roots, with Claude Code's old folder and `$OPENCODE_DB`). */
export function knownRoots(home: string, env?: AgentEnv | AgentDirs): { harness: Harness; path: string }[] {
  const dirs = movedFolders(env);
  const folders = agentFolders(home, dirs);
  const out: { harness: Harness; path: string }[] = [];
  for (const f of TRACE_FORMATS) {
    for (const root of f.roots) out.push({ harness: f.harness, path: join(folders[f.harness], ...root) });
    if (f.harness === "claude_code") {
      // Claude Code 1.0.30 moved its folder to ~/.config/claude, and later releases went back to ~/.claude;
      // the sessions written meanwhile stay there (the reference does not walk it; ccusage does). Listed
      // once when CLAUDE_CONFIG_DIR is that folder.
      const xdg = join(home, ".config", "claude", "projects");
      if (!out.some((r) => r.path === xdg)) out.push({ harness: "claude_code", path: xdg });
    }
    if (f.harness === "opencode" && dirs.opencodeDb !== undefined && dirs.opencodeDb !== ":memory:")
      out.push({
        harness: "opencode",
        path: isAbsolute(dirs.opencodeDb) ? dirs.opencodeDb : join(folders.opencode, dirs.opencodeDb),
      });
  }
  return out;
}

/** Sources for every known agent directory that exists (optionally one harness only). */
export function knownSources(home: string, only?: Harness, env?: AgentEnv | AgentDirs): TraceSource[] {
  const out: TraceSource[] = [];
  const openCodeSeen = new Set<string>();
  const dirs = movedFolders(env);
  const hermesHome = agentFolders(home, dirs).hermes;
  const hermesDb = join(hermesHome, "state.db");
  for (const { harness, path: p } of knownRoots(home, dirs)) {
    if (only !== undefined && harness !== only) continue;
    const st = statOrNull(p);
    if (harness === "opencode") {
      // `$OPENCODE_DB` may name a database the data folder's listing already holds. The database it names
      // is the user's choice, read through its links; one in the data folder is read from that folder.
      for (const db of st?.isFile() ? [p] : openCodeDbs(p))
        if (!openCodeSeen.has(db)) {
          openCodeSeen.add(db);
          out.push(new OpenCodeSource(db, "opencode", st?.isFile() ? { root: db } : {}));
        }
    } else if (harness === "hermes") {
      if (p === hermesDb) {
        if (st?.isFile()) out.push(new HermesSource(p));
      } else if (st?.isDirectory()) out.push(new HermesFilesSource(p, hermesDb));
    } else if (st?.isDirectory()) out.push(new JsonlTreeSource(harness, p));
  }
  if (only === undefined || only === "hermes")
    for (const profile of hermesProfileHomes(hermesHome)) out.push(...hermesHomeSources(profile));
  return out;
}

/** A Hermes home's database and session files, each when present (no error when neither is). */
function hermesHomeSources(dir: string): TraceSource[] {
  const out: TraceSource[] = [];
  const db = join(dir, "state.db");
  if (statOrNull(db)?.isFile()) out.push(new HermesSource(db));
  const sessions = join(dir, "sessions");
  if (statOrNull(sessions)?.isDirectory()) out.push(new HermesFilesSource(sessions, db));
  return out;
}

/** The OpenCode databases in its data folder: `opencode.db`, and `opencode-<channel>.db`. */
function openCodeDbs(dir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => /^opencode(-[\w.-]+)?\.db$/.test(n));
  } catch {}
  return names.sort().map((n) => join(dir, n));
}

function notOpenCode(path: string): TracePathError {
  return new TracePathError(
    "not_transcript",
    path,
    `no OpenCode database at "${path}" — give its opencode.db (in ~/.local/share/opencode), or the folder holding it`,
  );
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** A path given to `index` that cannot be indexed as asked; `reason` lets the caller pick its answer. */
export class TracePathError extends Error {
  constructor(
    readonly reason: "missing" | "empty" | "not_transcript" | "no_hermes_db",
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The sources for an explicit path. `.parquet` → parquet; a SQLite file (whatever its name), a file named
 * `state.db`, or a folder holding `state.db` with `--harness hermes` or named `.hermes` → the Hermes
 * database (plus its session files); Hermes session files → those; else a JSONL tree of the forced or
 * detected harness. Throws TracePathError for a missing path, an empty file, a file no agent writes, and
 * a Hermes folder without a database or session files.
 */
export function sourcesForPath(path: string, forced?: Harness): TraceSource[] {
  if (/\.parquet$/i.test(path)) return [new ParquetSource(path)];
  const st = statOrNull(path);
  if (st === null) throw new TracePathError("missing", path, `no such file or folder: "${path}"`);
  const last = path.split(/[\\/]/).filter(Boolean).pop() ?? "";
  if (st.isFile()) return [fileSource(path, last, forced)];
  if (forced === "hermes" || last === formatOf("hermes").folder.under.at(-1))
    return hermesFolderSources(path);
  const openCode = openCodeDbs(path);
  if (openCode.length > 0) return openCode.map((db) => new OpenCodeSource(db));
  if (forced === undefined && !isAgentDir(path)) {
    // A home (or any folder) holding agent directories reads as `funes index` reads a home.
    const known = knownSources(path);
    if (known.length > 0) return known;
    const mixed = mixedTreeSources(path);
    if (mixed !== null) return mixed;
  }
  const harness = forced ?? detectHarness(path);
  if (harness === "opencode") throw notOpenCode(path);
  if (harness === "hermes") {
    const db = join(dirname(path), "state.db");
    return [new HermesFilesSource(path, last === "sessions" ? db : null)];
  }
  return [new JsonlTreeSource(harness, path)];
}

function isAgentDir(path: string): boolean {
  const norm = path.replaceAll("\\", "/").replace(/\/+$/, "");
  // The default layout's tails ("/.codex/sessions", …): a path given by hand is judged by its name.
  return knownRoots("").some(({ path }) => norm.endsWith(path));
}

/**
 * A folder holding transcripts of several agents (Claude Code, Codex and pi files copied together): one
 * source per agent, each reading the files whose content is that agent's. Files no agent's content matches
 * go to the agent with the most files, whose parser counts what it cannot read. Null when one agent (or
 * none) is found, so the usual single source applies.
 */
function mixedTreeSources(root: string): TraceSource[] | null {
  const byHarness = new Map<JsonlHarness, Set<string>>();
  const unclaimed: string[] = [];
  for (const file of transcriptFiles(root)) {
    let sniffed: ReturnType<typeof sniffFile> | null = null;
    try {
      sniffed = sniffFile(file);
    } catch {}
    const harness =
      sniffed?.kind === "transcript" && sniffed.harness !== "hermes" && sniffed.harness !== "opencode"
        ? sniffed.harness
        : null;
    if (harness === null) unclaimed.push(file);
    else byHarness.set(harness, (byHarness.get(harness) ?? new Set()).add(file));
  }
  if (byHarness.size < 2) return null;
  const ranked = [...byHarness.entries()].sort((a, b) => b[1].size - a[1].size);
  for (const f of unclaimed) ranked[0]?.[1].add(f);
  return ranked.map(([harness, files]) => new JsonlTreeSource(harness, root, files));
}

/** Every file under `root` whose name `wanted` accepts (a synchronous walk; unreadable folders skipped). */
function filesUnder(root: string, wanted: (name: string) => boolean): string[] {
  const files: string[] = [];
  const visit = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.isFile() && wanted(e.name)) files.push(p);
    }
  };
  visit(root);
  return files;
}

/** Every transcript-named file under `root` (`.jsonl`, Codex's `rollout-*.json`). */
function transcriptFiles(root: string): string[] {
  return filesUnder(root, (n) => n.endsWith(".jsonl") || /^rollout-.*\.json$/.test(n));
}

/** The one source for `sourcesForPath` (kept for callers that want exactly one). */
export function sourceForPath(path: string, forced?: Harness): TraceSource {
  const [first] = sourcesForPath(path, forced);
  if (first === undefined) throw new TracePathError("missing", path, `no such file or folder: "${path}"`);
  return first;
}

function fileSource(path: string, name: string, forced: Harness | undefined): TraceSource {
  const side = sqliteSideFile(path, name);
  if (side !== null)
    throw new TracePathError(
      "not_transcript",
      path,
      `"${path}" is SQLite's ${side.what}, not a transcript — index ${side.db === null ? "its database" : `"${side.db}"`} instead`,
    );
  const sniffed = sniffFile(path);
  // A database the user names is their choice: read through its links (its side files never are).
  const named = { root: path };
  if (sniffed.kind === "sqlite") {
    // The harness the user names wins over the tables' look; one that writes no SQLite is said so.
    if (forced === "opencode") return new OpenCodeSource(path, "opencode", named);
    if (forced === "hermes") return new HermesSource(path, named);
    if (forced !== undefined)
      throw new TracePathError(
        "not_transcript",
        path,
        `"${path}" is a SQLite database, which ${forced} does not write — name --harness hermes or opencode, or drop --harness`,
      );
    return sqliteHarness(path) === "opencode"
      ? new OpenCodeSource(path, "opencode", named)
      : new HermesSource(path, named);
  }
  if (name === "state.db") return new HermesSource(path, named);
  if (forced === "opencode") throw notOpenCode(path);
  if (sniffed.kind === "empty")
    throw new TracePathError("empty", path, `"${path}" is empty — nothing to index`);
  const harness =
    forced ??
    (sniffed.kind === "transcript"
      ? sniffed.harness
      : sniffed.kind === "undecided"
        ? detectHarness(path)
        : null);
  if (
    harness === null &&
    (statOrNull(path)?.size ?? 1024) < 1024 &&
    isLfsPointer(readFileSync(path, "latin1"))
  )
    throw new TracePathError(
      "not_transcript",
      path,
      `"${path}" is a Git LFS pointer, not the transcript — run \`git lfs pull\` where it was checked out`,
    );
  if (harness === null)
    throw new TracePathError(
      "not_transcript",
      path,
      `"${path}" is not a transcript funes can read — expected a Claude Code, Codex, pi, Gemini CLI, Qwen Code or ` +
        "Copilot CLI session (.jsonl), a Hermes state.db or session file, an OpenCode database, or a .parquet trace file",
    );
  if (harness === "hermes") return new HermesFilesSource(path, null);
  if (harness === "opencode") throw notOpenCode(path);
  return new JsonlTreeSource(harness, path);
}

/** SQLite's own files: a write-ahead log and a rollback journal open with these bytes. */
const WAL_MAGIC = [Buffer.from([0x37, 0x7f, 0x06, 0x82]), Buffer.from([0x37, 0x7f, 0x06, 0x83])];
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
const SIDE_WHAT = {
  wal: "write-ahead log",
  journal: "rollback journal",
  shm: "shared-memory index",
} as const;

/**
 * A file SQLite keeps beside a database (`<db>-wal`, `<db>-journal`, `<db>-shm`), known by its name when
 * the database is beside it, or by its first bytes: what it is, and its database (null when not found).
 * Its pages are read with the database, never as a transcript. Null for any other file.
 */
function sqliteSideFile(path: string, name: string): { what: string; db: string | null } | null {
  const m = /^(.+)-(wal|journal|shm)$/i.exec(name);
  const kind = m?.[2]?.toLowerCase() as keyof typeof SIDE_WHAT | undefined;
  const db = m === null ? null : path.slice(0, path.length - (kind?.length ?? 0) - 1);
  if (kind !== undefined && db !== null && statOrNull(db)?.isFile()) return { what: SIDE_WHAT[kind], db };
  let head: Buffer;
  try {
    head = readHead(path, 8);
  } catch {
    return null;
  }
  const found = db !== null && statOrNull(db)?.isFile() ? db : null;
  if (WAL_MAGIC.some((w) => head.subarray(0, 4).equals(w))) return { what: SIDE_WHAT.wal, db: found };
  if (head.equals(JOURNAL_MAGIC)) return { what: SIDE_WHAT.journal, db: found };
  return null;
}

function hermesFolderSources(dir: string): TraceSource[] {
  const out = hermesHomeSources(dir);
  // A Hermes home's named profiles are homes of their own (`profiles/<name>/`).
  for (const profile of hermesProfileHomes(dir)) out.push(...hermesHomeSources(profile));
  if (!statOrNull(join(dir, "sessions"))?.isDirectory() && hasFile(dir, isHermesSessionFile))
    out.push(
      new HermesFilesSource(dir, basename(dir) === "sessions" ? join(dirname(dir), "state.db") : null),
    );
  if (out.length === 0)
    throw new TracePathError(
      "no_hermes_db",
      dir,
      `no Hermes database in "${dir}" (looked for state.db and sessions/) — give the database file itself, ` +
        "e.g. `funes index ~/.hermes/state.db`",
    );
  return out;
}

function hasFile(dir: string, wanted: (name: string) => boolean): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).some((e) => e.isFile() && wanted(e.name));
  } catch {
    return false;
  }
}

/**
 * Detects a tree's harness: a known directory tail wins; else the first transcript file that its records
 * identify (Codex, pi, Hermes session files, Claude); else Claude, as the reference does.
 */
export function detectHarness(path: string): Harness {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {}
  const norm = real.replaceAll("\\", "/").replace(/\/+$/, "");
  for (const { harness, tail } of TRANSCRIPT_TAILS) if (norm.endsWith(tail)) return harness;
  for (const file of transcriptCandidates(real)) {
    let sniffed: ReturnType<typeof sniffFile>;
    try {
      sniffed = sniffFile(file);
    } catch {
      continue;
    }
    if (sniffed.kind === "transcript") return sniffed.harness;
  }
  return "claude_code";
}

/**
 * The default layout's transcript folders (`.claude/projects`, `.codex/sessions`, …): a folder given by
 * hand with one of these tails holds that format's transcripts. Databases and OpenCode's data folder are
 * known by their files instead.
 */
const TRANSCRIPT_TAILS = TRACE_FORMATS.flatMap((f) =>
  f.roots
    .filter((r) => r.length > 0 && !(r.at(-1) ?? "").endsWith(".db"))
    .map((r) => ({ harness: f.harness, tail: [...f.folder.under, ...r].join("/") })),
);

/** Candidate transcript files under `root`, `.jsonl` first, each group in path order (at most 20). */
function transcriptCandidates(root: string): string[] {
  const st = statOrNull(root);
  if (st?.isFile()) return [root];
  if (!st?.isDirectory()) return [];
  const files = filesUnder(
    root,
    (n) => n.endsWith(".jsonl") || /^(rollout|session|request_dump)[-_].*\.json$/.test(n),
  );
  files.sort();
  return [...files.filter((f) => f.endsWith(".jsonl")), ...files.filter((f) => !f.endsWith(".jsonl"))].slice(
    0,
    20,
  );
}
