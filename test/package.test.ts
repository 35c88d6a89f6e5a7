/**
 * What `npm pack` publishes, packed as a fresh clone packs it (no `dist/`, which git ignores): the built
 * program its `bin` names (the `prepack` script builds it), the licence and the notices of the MIT
 * transcripts it ships, and no source map pointing at a `src/` the package does not contain.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempDir } from "./helpers/fixtures.js";

/** What `npm pack --json` says about the one package it wrote. */
interface Packed {
  filename: string;
  size: number;
  entryCount: number;
  files: { path: string; mode: number }[];
}

let t: { dir: string; cleanup: () => void };
let packed: Packed;

/**
 * Packs a copy of the checkout holding only what git tracks (and new files it does not ignore), as a fresh
 * clone has it: no `dist/`. `node_modules` is the checkout's, linked (a clone runs `npm ci` first).
 */
beforeAll(() => {
  t = tempDir("funes-pack-");
  const clone = join(t.dir, "clone");
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  for (const rel of listed.split("\0").filter((p) => p !== "")) {
    if (!existsSync(join(ROOT, rel))) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(clone, rel)), { recursive: true });
    copyFileSync(join(ROOT, rel), join(clone, rel));
  }
  expect(existsSync(join(clone, "dist"))).toBe(false);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", t.dir], {
    cwd: clone,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "silent", npm_config_update_notifier: "false" },
  });
  // An older npm prints the prepack script's own output on stdout before the JSON.
  packed = (JSON.parse(out.slice(out.search(/^\[\s*\{/m))) as Packed[])[0] as Packed;
});
afterAll(() => t.cleanup());

/** The lines of a bundle that load something: its static imports and its dynamic `import(…)`s. */
function bundleLoads(text: string): string {
  return text
    .split("\n")
    .filter((l) => /^import\s/.test(l) || /\bimport\s*\(\s*["']/.test(l))
    .join("\n");
}

describe("the package", () => {
  it("packed in a fresh clone, holds the built program its bin names, executable", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.funes).toBe("dist/cli/main.js");
    const main = packed.files.find((f) => f.path === "dist/cli/main.js");
    expect(main, "dist/cli/main.js is not in the package — is the prepack script gone?").toBeDefined();
    expect((main?.mode ?? 0) & 0o111).not.toBe(0);
    // What main.js loads: the MCP server's bundle and Lance's vendored JavaScript are built too.
    expect(packed.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        "dist/cli/run-mcp.bundle.js",
        "dist/vendor/lance.cjs",
        "scripts/prune-install.mjs",
      ]),
    );
    expect(existsSync(join(t.dir, packed.filename))).toBe(true);
  });

  it("runs once unpacked: its bin answers --version (the checkout's packages stand in for npm's install)", () => {
    const unpacked = join(t.dir, "unpacked");
    mkdirSync(unpacked);
    execFileSync("tar", ["-xzf", join(t.dir, packed.filename), "-C", unpacked]);
    symlinkSync(join(ROOT, "node_modules"), join(unpacked, "package", "node_modules"), "dir");
    const version = execFileSync(join(unpacked, "package", "dist", "cli", "main.js"), ["--version"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: t.dir, FUNES_HOME: join(t.dir, "funes") },
    });
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version.trim()).toBe(pkg.version);
  });

  it("ships LICENSE and third-party notices, and no dangling source maps", () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toContain("LICENSE");
    expect(files).toContain("THIRD_PARTY_NOTICES.md");
    expect(files).toContain("dist/cli/main.js");
    // The README links its deeper pages: they travel with it.
    for (const link of readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/\]\((docs\/[\w.-]+\.md)/g))
      expect(files, `README links ${link[1]}`).toContain(link[1]);
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
