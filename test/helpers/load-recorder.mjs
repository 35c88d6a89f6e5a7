/**
 * A `node --import` preload that records every module a process loads, for test/e2e/lazy-load.test.ts: ES
 * modules through a resolve hook (run on the loader's thread, appending each URL to the file named by
 * FUNES_TEST_LOADS), CommonJS modules and native addons from require's cache when the process exits.
 */
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const out = process.env.FUNES_TEST_LOADS;
if (out !== undefined && out !== "") {
  register("./load-recorder-hooks.mjs", import.meta.url, { data: { out } });
  const cache = createRequire(import.meta.url).cache;
  process.on("exit", () => {
    const urls = Object.keys(cache).map((p) => pathToFileURL(p).href);
    // The last line says the process ended normally, so its CommonJS modules are on file too.
    appendFileSync(out, `${urls.map((u) => `${u}\n`).join("")}exited\n`);
  });
  // A client that stops waiting sends SIGTERM (the MCP SDK's after 2 s): end as the signal would, on file.
  process.once("SIGTERM", () => process.exit(143));
}
