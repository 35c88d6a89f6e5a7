/**
 * The layering of ARCHITECTURE.md, kept executable: imports go down only, never across, and other folders
 * are reached only through their index.ts; the heavy or protocol-bearing packages stay in the one layer that
 * owns them. Every way a module is loaded counts: static `import`/`export … from`, `import type`, dynamic
 * `import()` (the CLI's lazy command modules), `typeof import()` and `require()` through createRequire.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../src/agents/index.js";
import { ROOT } from "./helpers/fixtures.js";

/** Height of each layer; a folder may import only strictly lower ones. */
const LAYER: Record<string, number> = {
  // The CLI starts the MCP server (`funes mcp`), so it sits just above it; mcp never imports cli.
  cli: 9,
  mcp: 8,
  // The agent format and safe text: read by the CLI and the MCP server alike, without loading the SDK.
  format: 7,
  commands: 6,
  // The Hub memory written from here: built on what a memory is and how it is read.
  sync: 5,
  memory: 4,
  cache: 3,
  local: 2,
  remote: 2,
  card: 2,
  agents: 2,
  chunk: 1,
  search: 1,
  models: 1,
  redact: 0,
  traces: 0,
  quiet: 0,
  heap: 0,
  protobuf: 0,
  // Text as a reader takes it (look-alike characters), read by search/'s echo rule and format/'s safe text.
  lookalike: 0,
};

/**
 * Where each guarded package may be loaded: folders (`remote/`) or single files (`cli/run-mcp.ts`), relative
 * to src/. A package missing here may be used anywhere.
 */
const PACKAGE_HOME: Record<string, string[]> = {
  "@huggingface/hub": ["remote/"],
  undici: ["remote/"],
  "@lancedb/lancedb": ["local/"],
  "apache-arrow": ["local/"],
  // `funes mcp` wires the SDK's stdio transport to the server; everything else about MCP is in mcp/.
  "@modelcontextprotocol/sdk": ["mcp/", "cli/run-mcp.ts"],
  // SQLite (WebAssembly) runs in a worker thread the reader starts; the worker requires it by the path resolved here.
  "node-sqlite3-wasm": ["traces/sqlite-reader.ts"],
  "@huggingface/transformers": ["models/"],
  "@huggingface/tokenizers": ["models/"],
  "onnxruntime-node": ["models/"],
  // Only Hermes's install and removal parse YAML, and they load on `add hermes`/`remove hermes` alone.
  yaml: ["agents/hermes/setup.ts", "agents/hermes/config-yaml.ts"],
  // The agents' JSON and JSONC files are read and edited in place by one module.
  "jsonc-parser": ["agents/json-text.ts"],
};

const SRC = join(ROOT, "src");

/**
 * Every module specifier a file loads, in order. The keyword before the quote keeps prose in comments
 * ("uses @huggingface/hub") out; a specifier in a string literal passed to a variable is not seen.
 */
function specifiers(text: string): string[] {
  const load =
    /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|createRequire\([^)]*\)\s*(?:\.resolve\s*)?\(\s*)["']([^"']+)["']/g;
  return [...text.matchAll(load)].map((m) => m[1] ?? "");
}

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? "");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

/**
 * An agent's folder (`agents/<name>/`) is part of the agents layer, and holds everything about that agent:
 * the rest of the layer reaches it only through the registry (registry.ts imports its index.ts, the
 * descriptor), and it reaches the shared machinery at `agents/` top level, never another agent's folder.
 * `from` and `to` are paths relative to src/, split; the reason, or null when the import is fine.
 */
function agentFolderViolation(from: string[], to: string[]): string | null {
  if (from[0] !== "agents" || to[0] !== "agents") return null;
  const agentOf = (p: string[]) => (p.length > 2 ? (p[1] ?? null) : null);
  const [a, b] = [agentOf(from), agentOf(to)];
  if (b === null || a === b) return null;
  if (a !== null) return `agents/${a}/ may not reach another agent's folder`;
  if (to.length !== 3 || to[2] !== "index.js") return `not through agents/${b}/index.ts`;
  if (from.join("/") !== "agents/registry.ts") return `agents/${b}/ is reached only through registry.ts`;
  return null;
}

/** Every violation in a set of files: `file: import` strings. */
function layerViolations(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const rel = relative(SRC, path).split("/");
    const from = rel[0] ?? "";
    if (!(from in LAYER)) {
      out.push(`${rel.join("/")}: folder "${from}" is not a known layer`);
      continue;
    }
    const file = rel.join("/");
    for (const spec of specifiers(text)) {
      if (!spec.startsWith(".")) {
        const homes = PACKAGE_HOME[packageOf(spec)];
        if (homes !== undefined && !homes.some((h) => (h.endsWith("/") ? file.startsWith(h) : file === h)))
          out.push(`${file}: ${spec} (only ${homes.join(", ")} may load ${packageOf(spec)})`);
        continue;
      }
      const target = join(path, "..", spec);
      const to = relative(SRC, target).split("/");
      const toFolder = to[0] ?? "";
      if (toFolder === from) {
        const inside = agentFolderViolation(rel, to);
        if (inside !== null) out.push(`${file}: ${spec} (${inside})`);
        continue;
      }
      if (to.length !== 2 || to[1] !== "index.js")
        out.push(`${file}: ${spec} (not through ${toFolder}/index.ts)`);
      else if ((LAYER[toFolder] ?? 99) >= (LAYER[from] ?? -1))
        out.push(`${file}: ${spec} (${from} may not import ${toFolder})`);
    }
    if (/export \*/.test(text)) out.push(`${file}: export * publishes every helper`);
    // The Lance table of an open memory is local/'s: other layers call its named queries.
    if (from !== "local" && /\.table\b(?!\s*:)/.test(stripComments(text)))
      out.push(`${file}: reaches a LocalStore's table (use a named query in local/)`);
  }
  return out;
}

/**
 * Files outside cli/ that may name `process.env`, with the reason. The environment is read once in `cli/`
 * (`config.ts`, and `native-env.ts` for the native libraries' own variables) and handed down as values.
 */
const ENV_ALLOWED: Record<string, string> = {
  "agents/pi/extension.ts":
    "the text of the pi extension funes writes: pi runs it in its own process, where it reads FUNES_MEMORY",
};

/** Every file outside cli/ that reads or writes `process.env` (outside comments) and is not allowed to. */
function envViolations(files: { path: string; text: string }[]): string[] {
  return files
    .map(({ path, text }) => ({ file: relative(SRC, path), text }))
    .filter(({ file }) => !file.startsWith("cli/") && !(file in ENV_ALLOWED))
    .filter(({ text }) =>
      /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*["']env["']\s*\]/.test(stripComments(text)),
    )
    .map(({ file }) => `${file}: process.env (read it in cli/config.ts and pass the value down)`);
}

/**
 * Where an agent's name or harness may be spelled out in the generic code, with the reason. Everything
 * else about an agent is its folder's (`agents/<name>/`) or, for what its transcripts say, `traces/`'s.
 */
const AGENT_NAMES_ALLOWED: Record<string, string> = {};

/** Files of the generic code: agents/ top level (not its agents' folders), and every layer above it. */
const GENERIC = (file: string) =>
  (file.startsWith("agents/") && file.split("/").length === 2) ||
  ["commands/", "cli/", "mcp/", "format/", "memory/"].some((f) => file.startsWith(f));

/** Every agent name or harness spelled as a string in the generic code (outside comments), not allowed. */
function agentNameViolations(files: { path: string; text: string }[]): string[] {
  const agentOf = new Map<string, string>(
    AGENTS.flatMap((a) => [
      [a.name, a.name],
      [a.harness, a.name],
    ]),
  );
  const out: string[] = [];
  for (const { path, text } of files) {
    const file = relative(SRC, path);
    if (!GENERIC(file) || file in AGENT_NAMES_ALLOWED) continue;
    for (const m of stripComments(text).matchAll(/(["'`])([\w-]+)\1/g)) {
      const agent = agentOf.get(m[2] ?? "");
      if (agent !== undefined)
        out.push(`${file}: ${m[0]} (say it in agents/${agent}/ or derive it from the registry)`);
    }
  }
  return out;
}

/** The text without comments, so prose ("the table") does not count as code. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

/** Longest a source file may be, in lines (ARCHITECTURE.md: files stay small; this is the hard ceiling). */
const MAX_LINES = 500;

/**
 * Files allowed past MAX_LINES, relative to src/: rule catalogues and generated tables, one entry per rule
 * or row, which split along no seam worth having. Each says so in its header.
 */
const LONG_FILES_ALLOWED: ReadonlySet<string> = new Set(["redact/rules-keyed.ts"]);

/** Every file over MAX_LINES that the allow-list does not name: `file: N lines`. */
function overLong(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const file = relative(SRC, path);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES && !LONG_FILES_ALLOWED.has(file)) out.push(`${file}: ${lines} lines`);
  }
  return out;
}

describe("file size", () => {
  it(`no src file is over ${MAX_LINES} lines but the allowed catalogues`, () => {
    const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(20);
    expect(overLong(files)).toEqual([]);
    // Each allowed file exists and is still long: an entry left behind by a split is taken out.
    for (const file of LONG_FILES_ALLOWED) {
      const text = files.find((f) => relative(SRC, f.path) === file)?.text;
      expect(text, file).toBeDefined();
      expect((text ?? "").split("\n").length, file).toBeGreaterThan(MAX_LINES);
    }
  });

  it("counts lines, and spares only the allow-list", () => {
    const long = `${"x\n".repeat(MAX_LINES + 1)}`;
    const exact = `${"x\n".repeat(MAX_LINES)}`;
    expect(
      overLong([
        { path: join(SRC, "commands/big.ts"), text: long },
        { path: join(SRC, "commands/fits.ts"), text: exact },
        { path: join(SRC, "redact/rules-keyed.ts"), text: long },
      ]),
    ).toEqual([`commands/big.ts: ${MAX_LINES + 1} lines`]);
  });
});

describe("layering", () => {
  it("src imports go down only, through index.ts", () => {
    const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(20);
    expect(layerViolations(files)).toEqual([]);
  });

  it("reads the environment only in cli/", () => {
    const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(envViolations(files)).toEqual([]);
    // Each allowed file still names it (else its entry is stale).
    for (const file of Object.keys(ENV_ALLOWED))
      expect(readFileSync(join(SRC, file), "utf8")).toMatch(/process\.env/);
  });

  it("catches process.env outside cli/, however it is spelled", () => {
    const files = [
      { path: join(SRC, "local/x.ts"), text: 'process.env.LANCE_CPU_THREADS ??= "2";' },
      { path: join(SRC, "models/x.ts"), text: "const t = process['env'].ORT;" },
      { path: join(SRC, "memory/x.ts"), text: "const { HOME } = process.env;" },
      // Allowed: cli/, a comment, and the generated pi extension.
      { path: join(SRC, "cli/x.ts"), text: "const h = process.env.HOME;" },
      { path: join(SRC, "commands/x.ts"), text: "// reads process.env in cli/\n/* process.env */" },
      { path: join(SRC, "agents/pi/extension.ts"), text: "const env = process.env.FUNES_MEMORY;" },
    ];
    expect(envViolations(files)).toEqual([
      "local/x.ts: process.env (read it in cli/config.ts and pass the value down)",
      "models/x.ts: process.env (read it in cli/config.ts and pass the value down)",
      "memory/x.ts: process.env (read it in cli/config.ts and pass the value down)",
    ]);
  });

  it("catches an upward, a sideways and a deep import", () => {
    const bad = [
      { path: join(SRC, "traces/x.ts"), text: 'import { a } from "../commands/index.js";' },
      { path: join(SRC, "local/x.ts"), text: 'import { b } from "../remote/index.js";' },
      { path: join(SRC, "commands/x.ts"), text: 'import { c } from "../local/store.js";' },
      { path: join(SRC, "cli/x.ts"), text: 'import { d } from "../commands/index.js";' },
    ];
    expect(layerViolations(bad)).toEqual([
      "traces/x.ts: ../commands/index.js (traces may not import commands)",
      "local/x.ts: ../remote/index.js (local may not import remote)",
      "commands/x.ts: ../local/store.js (not through local/index.ts)",
    ]);
  });

  it("sees dynamic, type-only and require-style loads", () => {
    const bad = [
      { path: join(SRC, "traces/x.ts"), text: 'const m = await import("../commands/index.js");' },
      { path: join(SRC, "models/x.ts"), text: 'type T = typeof import("../memory/index.js");' },
      { path: join(SRC, "chunk/x.ts"), text: 'import type { A } from "../local/index.js";' },
      {
        path: join(SRC, "search/x.ts"),
        text: 'const m = createRequire(import.meta.url)("../cache/index.js");',
      },
      { path: join(SRC, "redact/x.ts"), text: 'export { e } from "../card/index.js";' },
      { path: join(SRC, "cli/x.ts"), text: 'const f = () => import ( "./run-x.js" ); // same folder' },
    ];
    expect(layerViolations(bad)).toEqual([
      "traces/x.ts: ../commands/index.js (traces may not import commands)",
      "models/x.ts: ../memory/index.js (models may not import memory)",
      "chunk/x.ts: ../local/index.js (chunk may not import local)",
      "search/x.ts: ../cache/index.js (search may not import cache)",
      "redact/x.ts: ../card/index.js (redact may not import card)",
    ]);
  });

  it("reaches an agent's folder only through the registry, and no agent's folder from another's", () => {
    const files = [
      { path: join(SRC, "agents/inspect.ts"), text: 'import { inspectClaude } from "./claude/agent.js";' },
      { path: join(SRC, "agents/hook-log.ts"), text: 'import { codex } from "./codex/index.js";' },
      { path: join(SRC, "agents/qwen/agent.ts"), text: 'import { claudeAsk } from "../claude/ask.js";' },
      { path: join(SRC, "commands/x.ts"), text: 'import { pi } from "../agents/pi/index.js";' },
      // Allowed: the registry's entries, a folder's own files, the shared machinery.
      { path: join(SRC, "agents/registry.ts"), text: 'import { claude } from "./claude/index.js";' },
      { path: join(SRC, "agents/claude/index.ts"), text: 'const m = () => import("./agent.js");' },
      { path: join(SRC, "agents/claude/agent.ts"), text: 'import { SYNC_LOG } from "../hook-scripts.js";' },
    ];
    expect(layerViolations(files)).toEqual([
      "agents/inspect.ts: ./claude/agent.js (not through agents/claude/index.ts)",
      "agents/hook-log.ts: ./codex/index.js (agents/codex/ is reached only through registry.ts)",
      "agents/qwen/agent.ts: ../claude/ask.js (agents/qwen/ may not reach another agent's folder)",
      "commands/x.ts: ../agents/pi/index.js (not through agents/index.ts)",
    ]);
  });

  it("names no agent in the generic code: each agent's specifics are in its folder", () => {
    const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(agentNameViolations(files)).toEqual([]);
    // Each allowed file still names one (else its entry is stale).
    const words = AGENTS.map((a) => a.name);
    for (const file of Object.keys(AGENT_NAMES_ALLOWED)) {
      const text = stripComments(readFileSync(join(SRC, file), "utf8"));
      expect(
        words.some((w) => text.includes(`"${w}"`)),
        file,
      ).toBe(true);
    }
  });

  it("catches an agent's name in a comparison, an argument or a harness, but not in prose or its folder", () => {
    const files = [
      { path: join(SRC, "commands/x.ts"), text: 'if (agent === "claude") allow();' },
      { path: join(SRC, "agents/inspect.ts"), text: "const dir = home(`codex`);" },
      { path: join(SRC, "cli/x.ts"), text: "const h = 'claude_code';" },
      // Allowed: comments, longer words, the agent's own folder, traces/.
      { path: join(SRC, "commands/y.ts"), text: '// as "claude" does\nconst s = "claude-plugin";' },
      { path: join(SRC, "agents/claude/agent.ts"), text: 'runCli("claude", []);' },
      { path: join(SRC, "traces/x.ts"), text: 'const h = "codex";' },
    ];
    expect(agentNameViolations(files)).toEqual([
      'commands/x.ts: "claude" (say it in agents/claude/ or derive it from the registry)',
      "agents/inspect.ts: `codex` (say it in agents/codex/ or derive it from the registry)",
      "cli/x.ts: 'claude_code' (say it in agents/claude/ or derive it from the registry)",
    ]);
  });

  it("keeps the Lance table inside local/", () => {
    const files = [
      { path: join(SRC, "commands/x.ts"), text: "const n = await store.table.countRows();" },
      { path: join(SRC, "memory/x.ts"), text: "await forgetCandidates(o.local.table);" },
      // Allowed: local/ itself, and the word in a comment.
      { path: join(SRC, "local/x.ts"), text: "return this.table.countRows();" },
      { path: join(SRC, "commands/y.ts"), text: "/** rows of the table */\n// store.table is local's" },
    ];
    expect(layerViolations(files)).toEqual([
      "commands/x.ts: reaches a LocalStore's table (use a named query in local/)",
      "memory/x.ts: reaches a LocalStore's table (use a named query in local/)",
    ]);
  });

  it("keeps each guarded package in its own layer, however it is loaded", () => {
    const files = [
      { path: join(SRC, "models/x.ts"), text: 'const { modelInfo } = await import("@huggingface/hub");' },
      { path: join(SRC, "memory/x.ts"), text: 'import type { Table } from "apache-arrow";' },
      { path: join(SRC, "commands/x.ts"), text: 'import * as lancedb from "@lancedb/lancedb";' },
      {
        path: join(SRC, "cli/x.ts"),
        text: 'import { Server } from "@modelcontextprotocol/sdk/server/index.js";',
      },
      {
        path: join(SRC, "agents/x.ts"),
        text: 'const D = createRequire(import.meta.url).resolve("node-sqlite3-wasm");',
      },
      { path: join(SRC, "commands/y.ts"), text: 'const ort = require("onnxruntime-node");' },
      // Allowed: each package in its home, and a mention in a comment.
      { path: join(SRC, "remote/x.ts"), text: 'import { modelInfo } from "@huggingface/hub";' },
      { path: join(SRC, "local/x.ts"), text: 'const a = require("apache-arrow");' },
      {
        path: join(SRC, "cli/run-mcp.ts"),
        text: 'import { S } from "@modelcontextprotocol/sdk/server/stdio.js";',
      },
      {
        path: join(SRC, "models/y.ts"),
        text: '// loads "@huggingface/hub" lazily\nimport("@huggingface/transformers");',
      },
    ];
    expect(layerViolations(files)).toEqual([
      "models/x.ts: @huggingface/hub (only remote/ may load @huggingface/hub)",
      "memory/x.ts: apache-arrow (only local/ may load apache-arrow)",
      "commands/x.ts: @lancedb/lancedb (only local/ may load @lancedb/lancedb)",
      "cli/x.ts: @modelcontextprotocol/sdk/server/index.js (only mcp/, cli/run-mcp.ts may load @modelcontextprotocol/sdk)",
      "agents/x.ts: node-sqlite3-wasm (only traces/sqlite-reader.ts may load node-sqlite3-wasm)",
      "commands/y.ts: onnxruntime-node (only models/ may load onnxruntime-node)",
    ]);
  });
});
