/**
 * Picking a source for a path, the known agent directories, and the JSONL tree source shared by Claude
 * Code, Codex and pi (shared/spec/core.md §1.2–1.3).
 */
import { closeSync, type Dirent, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isSubagentId, type ParseContext, parseClaudeTranscript } from "./claude.js";
import { parseCodexRollout } from "./codex.js";
import { HermesSource } from "./hermes.js";
import { asString, parseJsonl, readTextLossy } from "./jsonl.js";
import { ParquetSource } from "./parquet.js";
import { parsePiSession } from "./pi.js";
import { fileStem } from "./text.js";
import type { Harness, TraceSource, Unit, UnitRead } from "./types.js";

/** An unknown `--harness` value. */
export class UnknownHarnessError extends Error {
  constructor(readonly value: string) {
    super(`unknown harness "${value}" (expected claude, codex, pi, or hermes)`);
  }
}

/** The CLI spelling of a harness to its stored facet (`claude` and `claude_code` are one). */
export function parseHarness(value: string): Harness {
  switch (value.trim().toLowerCase()) {
    case "claude":
    case "claude_code":
    case "claude-code":
      return "claude_code";
    case "codex":
      return "codex";
    case "pi":
      return "pi";
    case "hermes":
      return "hermes";
    default:
      throw new UnknownHarnessError(value);
  }
}

const PARSERS: Record<Exclude<Harness, "hermes">, (text: string, ctx: ParseContext) => UnitRead> = {
  claude_code: parseClaudeTranscript,
  codex: parseCodexRollout,
  pi: parsePiSession,
};

/** A directory (or one file) of JSONL transcripts of one harness: one unit per file. */
export class JsonlTreeSource implements TraceSource {
  readonly description: string;

  constructor(
    readonly kind: Exclude<Harness, "hermes">,
    private readonly root: string,
  ) {
    this.description = `scanning ${kind} transcripts under ${root}`;
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    const files = await walkTranscripts(this.root, this.kind === "codex");
    const stamped = await Promise.all(
      files.map(async (path) => {
        try {
          const s = await stat(path);
          return { path, mtime: s.mtimeMs, signature: `${s.size}:${Math.floor(s.mtimeMs / 1000)}` };
        } catch {
          return { path, mtime: 0, signature: null };
        }
      }),
    );
    stamped.sort((a, b) => b.mtime - a.mtime);
    const kept = limit === undefined ? stamped : stamped.slice(0, limit);
    const units = kept.map((f) => ({
      key: f.path,
      signature: f.signature,
      isSubagent: isSubagentId(fileStem(f.path)),
    }));
    // Sub-agent sessions go last: the main conversations are what recall needs first.
    return [...units.filter((u) => !u.isSubagent), ...units.filter((u) => u.isSubagent)];
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    return PARSERS[this.kind](await readTextLossy(unit.key), { path: unit.key });
  }
}

/** Transcript files under `root` (or `root` itself when it is a file), sorted by path; no symlinks. */
async function walkTranscripts(root: string, withJson: boolean): Promise<string[]> {
  const wanted = (name: string) => name.endsWith(".jsonl") || (withJson && /^rollout-.*\.json$/.test(name));
  const s = await stat(root);
  if (s.isFile()) return [root];
  const out: string[] = [];
  const visit = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await visit(p);
      else if (e.isFile() && wanted(e.name)) out.push(p);
    }
  };
  await visit(root);
  return out.sort();
}

/** Agent session roots under a home directory, in the order a no-path index walks them. */
export const KNOWN_ROOTS: readonly { harness: Harness; rel: string }[] = [
  { harness: "claude_code", rel: ".claude/projects" },
  { harness: "codex", rel: ".codex/sessions" },
  { harness: "pi", rel: ".pi/agent/sessions" },
  { harness: "hermes", rel: ".hermes/state.db" },
];

/** Sources for every known agent directory that exists under `home` (optionally one harness only). */
export function knownSources(home: string, only?: Harness): TraceSource[] {
  const out: TraceSource[] = [];
  for (const { harness, rel } of KNOWN_ROOTS) {
    if (only !== undefined && harness !== only) continue;
    const p = join(home, rel);
    const st = statOrNull(p);
    if (harness === "hermes") {
      if (st?.isFile()) out.push(new HermesSource(p));
    } else if (st?.isDirectory()) out.push(new JsonlTreeSource(harness, p));
  }
  return out;
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/**
 * The source for an explicit path: `.parquet` → parquet; `state.db`, `.hermes` or `--harness hermes` →
 * hermes; else a JSONL tree of the forced or detected harness.
 */
export function sourceForPath(path: string, forced?: Harness): TraceSource {
  if (/\.parquet$/i.test(path)) return new ParquetSource(path);
  const last = path.split(/[\\/]/).filter(Boolean).pop() ?? "";
  if (forced === "hermes" || last === "state.db" || last === ".hermes")
    return new HermesSource(last === "state.db" ? path : join(path, "state.db"));
  return new JsonlTreeSource(forced ?? detectHarness(path), path);
}

/**
 * Detects a tree's harness: a known directory tail wins; else the first record of the first transcript
 * file (`session_meta` → codex, `session` → pi, a bare Codex 2025 header → codex, else claude).
 */
export function detectHarness(path: string): Exclude<Harness, "hermes"> {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {}
  const norm = real.replaceAll("\\", "/").replace(/\/+$/, "");
  if (norm.endsWith(".claude/projects")) return "claude_code";
  if (norm.endsWith(".codex/sessions")) return "codex";
  if (norm.endsWith(".pi/agent/sessions")) return "pi";
  const first = firstTranscript(real);
  if (first === null) return "claude_code";
  if (first.endsWith(".json")) return "codex";
  let text: string;
  try {
    text = readHead(first);
  } catch {
    return "claude_code";
  }
  for (const rec of parseJsonl(text, {})) {
    const type = asString(rec.value.type);
    if (type === "session_meta") return "codex";
    if (type === "session") return "pi";
    if (type === null && "id" in rec.value && "instructions" in rec.value) return "codex";
    return "claude_code";
  }
  return "claude_code";
}

function firstTranscript(root: string): string | null {
  const st = statOrNull(root);
  if (st?.isFile()) return root;
  if (!st?.isDirectory()) return null;
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
      else if (e.isFile() && (e.name.endsWith(".jsonl") || /^rollout-.*\.json$/.test(e.name))) files.push(p);
    }
  };
  visit(root);
  files.sort();
  return files.find((f) => f.endsWith(".jsonl")) ?? files[0] ?? null;
}

/** The first 64 KiB of a file, enough for its first records. */
function readHead(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
