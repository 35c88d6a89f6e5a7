/** Vitest global setup: the end-to-end tests spawn the built CLI, so build it once first. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../helpers/fixtures.js";

export default function setup(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.json")],
    {
      stdio: "inherit",
    },
  );
}
