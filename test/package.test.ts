/**
 * What `npm pack` would publish: the licence and the notices of the MIT transcripts it ships, and no source
 * map pointing at a `src/` the package does not contain.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/fixtures.js";

/** The lines of a bundle that load something: its static imports and its dynamic `import(…)`s. */
function bundleLoads(text: string): string {
  return text
    .split("\n")
    .filter((l) => /^import\s/.test(l) || /\bimport\s*\(\s*["']/.test(l))
    .join("\n");
}

describe("the package", () => {
  it("ships LICENSE and third-party notices, and no dangling source maps", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_loglevel: "silent" },
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toContain("LICENSE");
    expect(files).toContain("THIRD_PARTY_NOTICES.md");
    expect(files).toContain("dist/cli/main.js");
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.some((f) => f.startsWith("src/"))).toBe(false);
    // Every MIT-licensed example transcript has its notice.
    const notices = readFileSync(join(ROOT, "THIRD_PARTY_NOTICES.md"), "utf8");
    const examples = readFileSync(join(ROOT, "examples", "README.md"), "utf8");
    for (const row of examples.split("\n").filter((l) => l.endsWith("| MIT |"))) {
      const repo = /\| ([\w.-]+\/[\w.-]+), /.exec(row)?.[1];
      expect(repo, row).toBeDefined();
      expect(notices).toContain(`## ${repo} — MIT`);
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License");
    expect(pkg.license).toBe("Apache-2.0");
  });

  it("loads at run time only packages it depends on (no dev dependency such as transformers.js)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const load = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([^"'.][^"']*)["']/gm;
    const used = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".js"))
          // A bundle (scripts/bundle.mjs) carries its packages inside; it loads only what its
          // top-level imports and dynamic imports name (its texts quote `require("ajv/…")` as generated code).
          for (const m of (e.name.endsWith(".bundle.js")
            ? bundleLoads(readFileSync(p, "utf8"))
            : readFileSync(p, "utf8")
          ).matchAll(load)) {
            const spec = m[1] as string;
            // Template text that builds a path (`${dir}/…`) is not a package.
            if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/|$)/.test(spec)) continue;
            const parts = spec.split("/");
            used.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string));
          }
      }
    };
    walk(join(ROOT, "dist"));
    const builtins = new Set(builtinModules);
    const missing = [...used].filter(
      (n) => !n.startsWith("node:") && !builtins.has(n) && !(n in pkg.dependencies),
    );
    expect(missing).toEqual([]);
    expect(used).toContain("onnxruntime-node");
    expect(used).toContain("@huggingface/tokenizers");
    expect(used).not.toContain("@huggingface/transformers");
    // The MCP server's bundle holds the SDK it loads (built by `npm run build`).
    expect(readdirSync(join(ROOT, "dist", "cli"))).toContain("run-mcp.bundle.js");
  });
});
