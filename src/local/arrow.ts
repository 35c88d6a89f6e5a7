/**
 * The one apache-arrow instance. lancedb is CommonJS and `require`s arrow; an ESM `import` would load a
 * second copy whose classes fail lancedb's instanceof checks (`add()` then throws; lance-facts §2.3).
 * Built, both come from `dist/vendor/lance.cjs` (scripts/bundle.mjs: one file where the packages are ≈ 140,
 * ≈ 30 ms less at every start); from the sources (tests, bench), from the packages.
 * Lance's thread count and log level come from the environment, set by the process's entry point
 * (`cli/native-env.ts`: without `LANCE_CPU_THREADS` the FTS build deadlocks on two cores).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as LanceNS from "@lancedb/lancedb";
import type * as ArrowNS from "apache-arrow";

const require = createRequire(import.meta.url);

/** A batch of memory rows as Arrow columns: what layers above `local/` hold between two Lance calls. */
export type ArrowTable = ArrowNS.Table;

const vendored = fileURLToPath(new URL("../vendor/lance.cjs", import.meta.url));
const loaded: { arrow: typeof ArrowNS; lancedb: typeof LanceNS } = existsSync(vendored)
  ? require(vendored)
  : { arrow: require("apache-arrow"), lancedb: require("@lancedb/lancedb") };

/** apache-arrow, loaded the way lancedb loads it. */
export const arrow: typeof ArrowNS = loaded.arrow;
/** @lancedb/lancedb. */
export const lancedb: typeof LanceNS = loaded.lancedb;
