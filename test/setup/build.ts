/**
 * Vitest global setup: the end-to-end tests spawn the built CLI, so build (and bundle) it once first; and generate the
 * tiny test models into a Hugging Face cache folder (test/fixtures/models/hub), as the tests load them.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../../scripts/make-models.js";
import { ROOT } from "../helpers/fixtures.js";

/** The generated test models' hub cache. */
export const TEST_HUB_CACHE = join(ROOT, "test", "fixtures", "models", "hub");

export default function setup(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.json")],
    {
      stdio: "inherit",
    },
  );
  // As `npm run build` does after tsc: the CLI and the MCP server's start bundled, so the tests run what ships.
  execFileSync(process.execPath, [join(ROOT, "scripts", "bundle.mjs")], { stdio: "inherit" });
  chmodSync(join(ROOT, "dist", "cli", "main.js"), 0o755);
  rmSync(TEST_HUB_CACHE, { recursive: true, force: true });
  writeTestModels(TEST_HUB_CACHE);
}
