/**
 * What a process loads, measured on the built CLI (ARCHITECTURE.md states it): a keyword `funes recall` in a
 * shell on a local memory, and `funes mcp` up to its tool list. Every module is recorded as it loads
 * (test/helpers/load-recorder.mjs): packages by their node_modules folder, funes's own modules by the
 * `// dist/<layer>/<file>.js` marks esbuild leaves in each bundled file.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { type CliEnv, runFunes, spawnFunes } from "../helpers/cli.js";
import { copyFixture, ROOT, tempDir } from "../helpers/fixtures.js";
import { connectMcp } from "../helpers/mcp.js";

/** The variables that run a funes process under the recorder, writing what it loads to `out`. */
const recorderEnv = (out: string) => ({
  NODE_OPTIONS: `--import ${pathToFileURL(join(ROOT, "test", "helpers", "load-recorder.mjs")).href}`,
  FUNES_TEST_LOADS: out,
});

/** What one process loaded: package names, and funes's modules as `layer/file` (without `.js`). */
interface Loaded {
  packages: Set<string>;
  modules: Set<string>;
  /** The process ended normally, so its CommonJS modules (written at exit) are on file too. */
  exited: boolean;
  /** Every file it loaded. */
  paths: Set<string>;
}

/** The package a path inside node_modules belongs to. */
const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/** Reads the recorder's file: each URL once. */
function loadedFrom(file: string): Loaded {
  const lines = readFileSync(file, "utf8").split("\n");
  const paths = new Set(lines.filter((u) => u.startsWith("file:")).map((u) => fileURLToPath(u)));
  const packages = new Set<string>();
  const modules = new Set<string>();
  const addPackage = (pkg: string) =>
    // Lance's native addon is a package per platform (`@lancedb/lancedb-linux-x64-gnu`): one name for all.
    packages.add(pkg.startsWith("@lancedb/lancedb-") ? "@lancedb/lancedb (native)" : pkg);
  for (const p of paths) {
    const pkg = PACKAGE.exec(p)?.[1];
    if (pkg !== undefined) addPackage(pkg);
    else if (p.startsWith(join(ROOT, "dist"))) {
      const text = readFileSync(p, "utf8");
      const marks = [...text.matchAll(/^\/\/ dist\/(\S+)\.js$/gm)].map((m) => m[1] ?? "");
      // A file tsc built and nothing bundled is its own module; a chunk of re-exports only adds none, nor
      // does a bundle of packages (dist/vendor/).
      if (marks.length === 0 && !p.includes("/dist/bundle/") && !p.includes("/dist/vendor/"))
        marks.push(p.slice(join(ROOT, "dist").length + 1, -".js".length));
      for (const m of marks) modules.add(m);
      // A package bundled into the file (the MCP SDK into run-mcp.bundle.js) is loaded with it.
      for (const m of text.matchAll(/^\/\/ (node_modules\/\S+)$/gm))
        addPackage(PACKAGE.exec(m[1] ?? "")?.[1] ?? "");
    }
  }
  return { packages, modules, exited: lines.includes("exited"), paths };
}

/** The layers (folders) of a set of `layer/file` names. */
const layersOf = (modules: Set<string>) => new Set([...modules].map((m) => m.split("/")[0]));

/**
 * The agents layer's light part: its index and what that loads at once (agents/index.ts says why): the
 * registry with each agent's descriptor (its folder's index), none of an agent's own module.
 */
const AGENTS_INDEX = [
  "agents/index",
  "agents/registry",
  "agents/run-cli",
  ...AGENTS.map((a) => `agents/${a.name}/index`),
].sort();

/** The agents layer's modules a process loaded, sorted. */
const agentModules = (loaded: Loaded) => [...loaded.modules].filter((m) => m.startsWith("agents/")).sort();

/** Packages no shell recall or MCP start may load: each belongs to another command or a later step. */
const HEAVY = [
  "@huggingface/hub",
  "@modelcontextprotocol/sdk",
  "onnxruntime-node",
  "@huggingface/tokenizers",
  "node-sqlite3-wasm",
  "hyparquet",
  "yaml",
  "@secretlint/core",
];

describe("what a process loads", () => {
  const t = tempDir("funes-lazy-");
  let env: CliEnv;

  beforeAll(async () => {
    const home = join(t.dir, "home");
    const projects = join(home, ".claude", "projects", "-home-dev-app");
    mkdirSync(projects, { recursive: true });
    copyFixture("claude/claude_session.jsonl", join(projects, "s1.jsonl"));
    // No models in this cache: the recall is keyword-only, as on a machine that never pulled them.
    const emptyHub = join(t.dir, "hub");
    mkdirSync(emptyHub);
    env = { home, funesHome: join(t.dir, "funes"), extra: { HF_HUB_CACHE: emptyHub } };
    const index = await runFunes(["index", "--harness", "claude"], env);
    expect(index.code, index.stderr).toBe(0);
  });
  afterAll(() => t.cleanup());

  /** Runs `funes <args>` under the recorder; what it loaded. */
  async function recordRun(args: string[], name: string): Promise<{ loaded: Loaded; stdout: string }> {
    const out = join(t.dir, `${name}.loads`);
    const r = await spawnFunes(args, { ...env, extra: { ...env.extra, ...recorderEnv(out) } });
    expect(r.code, r.stderr).toBe(0);
    return { loaded: loadedFrom(out), stdout: r.stdout };
  }

  it("a keyword recall in a shell loads Lance and funes's layers (agents/ only as its registry) but mcp/, no other package", async () => {
    const { loaded, stdout } = await recordRun(["recall", "files", "--format", "agent"], "recall");
    expect(loaded.exited).toBe(true);
    expect(stdout).toContain("List files in working directory");
    expect([...loaded.packages].sort()).toEqual([
      "@lancedb/lancedb",
      "@lancedb/lancedb (native)",
      "apache-arrow",
      "cac",
      // Lance's own dependencies.
      "flatbuffers",
      "reflect-metadata",
      "tslib",
    ]);
    for (const pkg of HEAVY) expect(loaded.packages).not.toContain(pkg);
    // Lance's JavaScript and apache-arrow come as one file (scripts/bundle.mjs), not as their packages' files.
    expect(loaded.paths).toContain(join(ROOT, "dist", "vendor", "lance.cjs"));
    const fromPackages = [...loaded.paths].filter((p) =>
      /node_modules\/(apache-arrow|@lancedb\/lancedb)\//.test(p),
    );
    expect(fromPackages).toEqual([]);
    const layers = layersOf(loaded.modules);
    expect(layers).not.toContain("mcp");
    // The agents layer as its index: the registry of agents (help, checks) and running an agent's CLI.
    expect(agentModules(loaded)).toEqual(AGENTS_INDEX);
    // Every other layer: the commands layer is one module graph, so recall brings the others' modules.
    expect([...layers].sort()).toEqual([
      "agents",
      "cache",
      "card",
      "chunk",
      "cli",
      "commands",
      "format",
      "heap",
      "local",
      "lookalike",
      "memory",
      "models",
      "protobuf",
      "quiet",
      "redact",
      "remote",
      "search",
      "sync",
      "traces",
    ]);
    // Of the CLI's command modules, recall's alone (it can start the model server, so that one's too).
    expect([...loaded.modules].filter((m) => m.startsWith("cli/run-")).sort()).toEqual([
      "cli/run-recall",
      "cli/run-server",
    ]);
  });

  it("funes mcp lists its tools before Lance or a model runtime loads", async () => {
    const out = join(t.dir, "mcp.loads");
    const mcp = await connectMcp([], { ...env, extra: { ...env.extra, ...recorderEnv(out) } });
    const tools = await mcp.tools();
    expect(tools.tools.map((x) => x.name).sort()).toEqual(["get", "recall", "scan", "sessions", "status"]);
    await mcp.close();
    const loaded = loadedFrom(out);
    expect(loaded.exited).toBe(true);
    expect(loaded.packages).toContain("@modelcontextprotocol/sdk");
    for (const pkg of [
      "@lancedb/lancedb",
      "apache-arrow",
      "onnxruntime-node",
      "@huggingface/hub",
      "node-sqlite3-wasm",
    ])
      expect(loaded.packages).not.toContain(pkg);
    // The server and the settings it is started with (cli/config.ts names the model defaults, so models/'s
    // modules come too, without their runtime); the commands layer loads on the first tool call.
    expect([...layersOf(loaded.modules)].sort()).toEqual([
      "agents",
      "cli",
      "format",
      // The embedder's module names heap/'s collection (a few lines, nothing loaded with them).
      "heap",
      // format/'s safe text reads passages in the plain form the echo rule reads (lookalike/).
      "lookalike",
      "mcp",
      "models",
      "protobuf",
    ]);
    // The registry names the agents in the recall tool's description.
    expect(agentModules(loaded)).toEqual(AGENTS_INDEX);
  });

  it("status reads every agent's wiring and hook log from its folder, without Hermes's YAML library", async () => {
    const { loaded, stdout } = await recordRun(["status"], "status");
    expect(loaded.exited).toBe(true);
    expect(stdout).not.toBe("");
    expect(loaded.packages).not.toContain("yaml");
    const modules = agentModules(loaded);
    // Each agent's module (its wiring check and hook log), and of Hermes's folder not its setup.
    for (const a of AGENTS) expect(modules, a.name).toContain(`agents/${a.name}/agent`);
    expect(modules).toContain("agents/hermes/home");
    expect(modules).not.toContain("agents/hermes/setup");
  });
});
