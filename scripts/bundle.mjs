/**
 * Runs after `tsc` (`npm run build`, and the tests' global setup): bundles the CLI's own modules, so a
 * command starts from a few files rather than ≈ 180, and `funes mcp`'s start. Node resolves and compiles
 * every ES module separately: ≈ 0.1 s of a shell `funes recall`'s ≈ 0.4 s of CPU went to loading funes's
 * modules one by one, ≈ 0.15 s of `funes mcp`'s start to the MCP SDK's.
 *
 * - `dist/cli/main.js`: the CLI with funes's modules bundled, each lazily loaded part (a command, the
 *   agents layer, the models runtime) a chunk of its own under `dist/bundle/` (so `import.meta.url` is as
 *   deep as in `dist/cli/`), every package left to Node (Lance and apache-arrow must stay one instance).
 * - `dist/cli/run-mcp.bundle.js`: what `funes mcp` loads before it can list its tools — the MCP SDK, zod,
 *   ajv and the server's two modules — in one file; the rest of funes stays external (imported from
 *   `dist/` as `tsc` built it, on the first tool call). `cli/main.ts` uses it when it is there.
 * - `dist/vendor/lance.cjs`: @lancedb/lancedb's JavaScript and apache-arrow in one CommonJS file (Lance's
 *   native addon stays its own package), which `local/arrow.ts` loads when it is there: every funes
 *   process that reads or writes a memory loaded them as ≈ 140 files, ≈ 80 ms of a shell recall's start,
 *   ≈ 50 ms as one. Every copy of `local/arrow.ts` (tsc's, a bundle chunk's) requires this one file, so a
 *   process still holds one apache-arrow.
 *
 * Safe to run again: a `main.js` bundled already is left as it is.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const MARK = "// funes: bundled by scripts/bundle.mjs";

/** The MCP server's start: the SDK bundled with the server's own modules, the rest of funes external. */
async function bundleMcp() {
  const outfile = join(dist, "cli", "run-mcp.bundle.js");
  const inline = new Set(["cli/run-mcp.js", "mcp/index.js", "mcp/server.js"].map((p) => join(dist, p)));
  await build({
    entryPoints: [join(dist, "cli", "run-mcp.js")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    // ajv is CommonJS: its `require`s of Node's own modules need a require function in an ES module.
    banner: {
      js: 'import { createRequire as __funesRequire } from "node:module";\nconst require = __funesRequire(import.meta.url);',
    },
    plugins: [
      {
        name: "funes-modules-external",
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) => {
            const abs = resolve(args.resolveDir, args.path);
            if (!abs.startsWith(`${dist}/`) || inline.has(abs)) return null;
            const rel = relative(dirname(outfile), abs);
            return { path: rel.startsWith(".") ? rel : `./${rel}`, external: true };
          });
        },
      },
    ],
  });
}

/** The CLI: funes's modules bundled, split at every dynamic import, packages external. */
async function bundleCli() {
  const main = join(dist, "cli", "main.js");
  if (!existsSync(main) || readFileSync(main, "utf8").includes(MARK)) return;
  rmSync(join(dist, "bundle"), { recursive: true, force: true });
  await build({
    entryPoints: { "cli/main": main },
    outdir: dist,
    chunkNames: "bundle/[name]-[hash]",
    entryNames: "[dir]/[name]",
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    banner: { js: MARK },
  });
}

/** Lance's JavaScript and apache-arrow as one CommonJS module exporting `{ arrow, lancedb }`. */
async function bundleLance() {
  await build({
    stdin: {
      contents: 'module.exports = { arrow: require("apache-arrow"), lancedb: require("@lancedb/lancedb") };',
      resolveDir: root,
      sourcefile: "lance-entry.cjs",
      loader: "js",
    },
    outfile: join(dist, "vendor", "lance.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "warning",
    // The native addon: one package per platform, resolved at run time from the installed tree.
    external: ["@lancedb/lancedb-*"],
  });
}

/** Files shipped as they are (the hook scripts funes installs into agents: src/agents/shipped.ts). */
function copyShipped() {
  const from = join(root, "src", "agents", "hooks");
  const to = join(dist, "agents", "hooks");
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from).filter((n) => n.endsWith(".sh")))
    copyFileSync(join(from, name), join(to, name));
}

copyShipped();
await bundleMcp();
await bundleCli();
await bundleLance();
