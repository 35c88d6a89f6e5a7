/**
 * Runs at the end of `npm run build`: bundles what `funes mcp` loads before it can list its tools — the MCP
 * SDK, zod (three flavours of it) and ajv, ≈ 150 files — with the server's own two modules into one file,
 * `dist/cli/run-mcp.bundle.js`. An agent waits for that list before its session starts: resolving and
 * compiling the separate files cost ≈ 0.3 s of CPU, one file ≈ 0.14 s. Every other module of funes stays
 * external (imported from `dist/` as built, on first use), so the commands layer, Lance and the models
 * still load only when a tool is called. `cli/main.ts` uses the bundle when it is there, else run-mcp.js.
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outfile = join(dist, "cli", "run-mcp.bundle.js");
/** The modules of funes bundled with the SDK: the server and what starts it. */
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
