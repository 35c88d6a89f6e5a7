/**
 * The layering of shared/STYLE.md, kept executable: imports go down only, never across, and other folders
 * are reached only through their index.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/fixtures.js";

/** Height of each layer; a folder may import only strictly lower ones. */
const LAYER: Record<string, number> = {
  // The CLI starts the MCP server (`funes mcp`), so it sits just above it; mcp never imports cli.
  cli: 7,
  mcp: 6,
  commands: 5,
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
};

const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
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
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g)) {
      const spec = m[1] ?? "";
      if (!spec.startsWith(".")) continue;
      const target = join(path, "..", spec);
      const to = relative(SRC, target).split("/");
      const toFolder = to[0] ?? "";
      if (toFolder === from) continue;
      if (to.length !== 2 || to[1] !== "index.js")
        out.push(`${rel.join("/")}: ${spec} (not through ${toFolder}/index.ts)`);
      else if ((LAYER[toFolder] ?? 99) >= (LAYER[from] ?? -1))
        out.push(`${rel.join("/")}: ${spec} (${from} may not import ${toFolder})`);
    }
    if (/export \*/.test(text)) out.push(`${rel.join("/")}: export * publishes every helper`);
  }
  return out;
}

describe("layering", () => {
  it("src imports go down only, through index.ts", () => {
    const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(20);
    expect(layerViolations(files)).toEqual([]);
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
});
