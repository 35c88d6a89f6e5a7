/**
 * The package's postinstall (scripts/prune-install.mjs) on generated install trees: what Node never loads
 * here goes, everything reachable from funes's dependencies stays, and a checkout is left alone.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script shipped as is, without types.
import { isInstalledPackage, ownsTree, planPrune, prune } from "../scripts/prune-install.mjs";
import { ROOT, tempDir } from "./helpers/fixtures.js";

type Deps = Record<string, string>;

function pkg(dir: string, name: string, fields: { dependencies?: Deps; optionalDependencies?: Deps } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", ...fields }));
  writeFileSync(join(dir, "index.js"), "x".repeat(1000));
}

/** A global install of funes as npm lays it out, LanceDB's optional embedding extras included. */
function installTree(root: string) {
  const nm = join(root, "node_modules");
  pkg(root, "funes", { dependencies: { "@lancedb/lancedb": "1", "onnxruntime-node": "1", shared: "1" } });
  pkg(join(nm, "@lancedb", "lancedb"), "@lancedb/lancedb", {
    dependencies: { flatbuffers: "1" },
    optionalDependencies: {
      "@huggingface/transformers": "3",
      openai: "4",
      "@lancedb/lancedb-linux-x64-gnu": "1",
      "@lancedb/lancedb-darwin-arm64": "1",
    },
  });
  pkg(join(nm, "@lancedb", "lancedb-linux-x64-gnu"), "@lancedb/lancedb-linux-x64-gnu");
  pkg(join(nm, "flatbuffers"), "flatbuffers");
  pkg(join(nm, "@huggingface", "transformers"), "@huggingface/transformers", {
    dependencies: { "onnxruntime-web": "1", "onnxruntime-node": "1.19", shared: "1", sharp: "1" },
  });
  // transformers' own older onnxruntime-node sits nested; funes's newer one at the top.
  pkg(join(nm, "@huggingface", "transformers", "node_modules", "onnxruntime-node"), "onnxruntime-node");
  pkg(join(nm, "onnxruntime-web"), "onnxruntime-web");
  pkg(join(nm, "sharp"), "sharp", { dependencies: { "@img/sharp-linux-x64": "1" } });
  pkg(join(nm, "@img", "sharp-linux-x64"), "@img/sharp-linux-x64");
  pkg(join(nm, "openai"), "openai");
  pkg(join(nm, "shared"), "shared");
  pkg(join(nm, "onnxruntime-node"), "onnxruntime-node", { dependencies: { "onnxruntime-common": "1" } });
  pkg(join(nm, "onnxruntime-common"), "onnxruntime-common");
  for (const build of ["linux/x64", "linux/arm64", "darwin/arm64", "win32/x64"]) {
    const dir = join(nm, "onnxruntime-node", "bin", "napi-v6", build);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "onnxruntime_binding.node"), "b".repeat(5000));
  }
  mkdirSync(join(nm, ".bin"), { recursive: true });
  symlinkSync("../openai/index.js", join(nm, ".bin", "openai"));
  symlinkSync("../shared/index.js", join(nm, ".bin", "shared"));
}

describe("prune-install", () => {
  it("leaves out LanceDB's unused extras, what only they use, and other platforms' builds", () => {
    const t = tempDir();
    try {
      const root = join(t.dir, "lib", "node_modules", "funes");
      installTree(root);
      expect(isInstalledPackage(root)).toBe(true);
      const nm = join(root, "node_modules");
      const freed = prune(root, planPrune(root, "linux", "x64"));
      for (const gone of [
        "@huggingface/transformers",
        "onnxruntime-web",
        "sharp",
        "@img/sharp-linux-x64",
        "openai",
        "onnxruntime-node/bin/napi-v6/linux/arm64",
        "onnxruntime-node/bin/napi-v6/darwin",
        "onnxruntime-node/bin/napi-v6/win32",
        ".bin/openai",
      ])
        expect(existsSync(join(nm, gone)), gone).toBe(false);
      for (const kept of [
        "@lancedb/lancedb",
        "@lancedb/lancedb-linux-x64-gnu",
        "flatbuffers",
        "shared",
        "onnxruntime-node/package.json",
        "onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node",
        "onnxruntime-common",
        ".bin/shared",
      ])
        expect(existsSync(join(nm, kept)), kept).toBe(true);
      expect(freed).toBeGreaterThan(3 * 5000);
      // A second run finds nothing more to leave out.
      expect(planPrune(root, "linux", "x64").remove).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("removes nothing when a kept package's manifest cannot be read", () => {
    const t = tempDir();
    try {
      const root = join(t.dir, "lib", "node_modules", "funes");
      installTree(root);
      writeFileSync(join(root, "node_modules", "onnxruntime-node", "package.json"), "{ not json");
      expect(() => planPrune(root, "linux", "x64")).toThrow(/cannot read .*onnxruntime-node/);
      expect(existsSync(join(root, "node_modules", "openai"))).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it("keeps a package the extras share with funes, and does nothing in a checkout", () => {
    const t = tempDir();
    try {
      const checkout = join(t.dir, "funes");
      installTree(checkout);
      expect(isInstalledPackage(checkout)).toBe(false);
      const plan = planPrune(checkout, "linux", "x64");
      expect(plan.keep.map((d: string) => d.slice(checkout.length + 1)).sort()).toContain(
        "node_modules/shared",
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("prune-install acts only where funes owns the tree", () => {
  it("a global install is funes's own; a project's dependency, npx's folder and a checkout are not", () => {
    const t = tempDir();
    try {
      const global = join(t.dir, "prefix", "lib", "node_modules", "funes");
      const project = join(t.dir, "project");
      const dep = join(project, "node_modules", "funes");
      for (const d of [global, dep]) mkdirSync(d, { recursive: true });
      writeFileSync(join(project, "package.json"), "{}");
      expect(ownsTree(global, { npm_config_global: "true" })).toBe(true);
      expect(ownsTree(global, {})).toBe(false);
      expect(ownsTree(dep, { npm_config_global: "true" })).toBe(false);
      expect(ownsTree(dep, {})).toBe(false);
      expect(ownsTree(join(t.dir, "checkout"), { npm_config_global: "true" })).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  /**
   * The real `npm install` of funes's packed tarball (`npm pack` of this checkout, its postinstall and
   * script as published), offline: its dependencies are swapped for small local packages with the same
   * shape (LanceDB's optional `openai`, onnxruntime-node's builds for four platforms), so the install takes
   * seconds and needs no registry.
   */
  it("installed with npm as a dependency, it changes nothing in the project's tree; installed globally, it prunes its own", () => {
    const t = tempDir();
    try {
      const npm = (args: string[], cwd: string, env: Record<string, string> = {}) => {
        const r = spawnSync("npm", [...args, "--offline", "--no-audit", "--no-fund"], {
          cwd,
          encoding: "utf8",
          env: { ...process.env, npm_config_cache: join(t.dir, "npm-cache"), ...env },
        });
        return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
      };
      const packOf = (dir: string) => {
        const r = npm(["pack", "--pack-destination", t.dir, "--ignore-scripts"], dir);
        expect(r.code, r.out).toBe(0);
        const name = r.stdout.trim().split("\n").pop() as string;
        return join(t.dir, name);
      };
      // The stand-ins for funes's dependencies.
      const stubs = join(t.dir, "stubs");
      pkg(join(stubs, "openai"), "openai");
      const ort = join(stubs, "onnxruntime-node");
      pkg(ort, "onnxruntime-node");
      for (const build of ["linux/x64", "linux/arm64", "darwin/arm64", "win32/x64"]) {
        mkdirSync(join(ort, "bin", "napi-v6", build), { recursive: true });
        writeFileSync(join(ort, "bin", "napi-v6", build, "onnxruntime_binding.node"), "b".repeat(5000));
      }
      const openaiTgz = packOf(join(stubs, "openai"));
      const ortTgz = packOf(ort);
      // The project's own onnxruntime-node is another version: npm nests funes's under funes's folder.
      const theirs = join(t.dir, "stubs-theirs", "onnxruntime-node");
      cpSync(ort, theirs, { recursive: true });
      writeFileSync(
        join(theirs, "package.json"),
        JSON.stringify({ name: "onnxruntime-node", version: "2.0.0" }),
      );
      const theirOrtTgz = packOf(theirs);
      pkg(join(stubs, "lancedb"), "@lancedb/lancedb", {
        optionalDependencies: { openai: `file:${openaiTgz}` },
      });
      const lanceTgz = packOf(join(stubs, "lancedb"));

      // funes's own tarball, its dependencies pointed at the stand-ins.
      const packed = packOf(ROOT);
      const unpacked = join(t.dir, "funes-unpacked");
      mkdirSync(unpacked);
      execFileSync("tar", ["-xzf", packed, "-C", unpacked]);
      const manifestPath = join(unpacked, "package", "package.json");
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      expect(manifest.scripts.postinstall).toBe("node scripts/prune-install.mjs");
      manifest.dependencies = {
        "@lancedb/lancedb": `file:${lanceTgz}`,
        "onnxruntime-node": `file:${ortTgz}`,
      };
      writeFileSync(manifestPath, JSON.stringify(manifest));
      const funesTgz = packOf(join(unpacked, "package"));

      // Someone's project, which uses openai and onnxruntime-node itself.
      const project = join(t.dir, "project");
      mkdirSync(project);
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({
          name: "someones-project",
          version: "1.0.0",
          dependencies: { openai: `file:${openaiTgz}`, "onnxruntime-node": `file:${theirOrtTgz}` },
        }),
      );
      expect(npm(["install"], project).code).toBe(0);
      expect(npm(["ls", "--all"], project).code).toBe(0);
      const added = npm(["install", funesTgz], project);
      expect(added.code, added.out).toBe(0);
      expect(added.out).not.toContain("left out");
      const nm = join(project, "node_modules");
      for (const kept of [
        "openai/package.json",
        "onnxruntime-node/bin/napi-v6/darwin/arm64",
        "onnxruntime-node/bin/napi-v6/win32/x64",
        "funes/scripts/prune-install.mjs",
      ])
        expect(existsSync(join(nm, kept)), kept).toBe(true);
      // funes's own copy, nested in the project's tree, keeps every platform's build too (it may be copied).
      const nested = join(nm, "funes", "node_modules", "onnxruntime-node", "bin", "napi-v6");
      expect(existsSync(join(nested, "darwin", "arm64")), "nested").toBe(true);
      expect(existsSync(join(nested, "win32", "x64"))).toBe(true);
      expect(existsSync(join(nested, "linux", "arm64"))).toBe(true);
      const ls = npm(["ls", "--all"], project);
      expect(ls.code, ls.out).toBe(0);

      // A global install is funes's own tree: there the same script leaves out what Node never loads here.
      const prefix = join(t.dir, "global");
      const g = npm(["install", "-g", "--prefix", prefix, funesTgz], t.dir);
      expect(g.code, g.out).toBe(0);
      const own = join(prefix, "lib", "node_modules", "funes", "node_modules");
      expect(existsSync(join(own, "openai"))).toBe(false);
      expect(
        existsSync(join(own, "onnxruntime-node", "bin", "napi-v6", process.platform, process.arch)),
      ).toBe(true);
      expect(
        existsSync(
          join(own, "onnxruntime-node", "bin", "napi-v6", process.platform === "win32" ? "darwin" : "win32"),
        ),
      ).toBe(false);
      expect(existsSync(join(own, "@lancedb", "lancedb", "package.json"))).toBe(true);
    } finally {
      t.cleanup();
    }
  }, 300_000);
});
