/**
 * The package's postinstall (scripts/prune-install.mjs) on generated install trees: what Node never loads
 * here goes, everything reachable from funes's dependencies stays, and a checkout is left alone.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script shipped as is, without types.
import { isInstalledPackage, planPrune, prune } from "../scripts/prune-install.mjs";
import { tempDir } from "./helpers/fixtures.js";

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
