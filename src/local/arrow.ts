/**
 * The one apache-arrow instance. lancedb is CommonJS and `require`s arrow; an ESM `import` would load a
 * second copy whose classes fail lancedb's instanceof checks (`add()` then throws; lance-facts §2.3).
 * Lance's thread count and log level come from the environment, set by the process's entry point
 * (`cli/native-env.ts`: without `LANCE_CPU_THREADS` the FTS build deadlocks on two cores).
 */
import { createRequire } from "node:module";
import type * as LanceNS from "@lancedb/lancedb";
import type * as ArrowNS from "apache-arrow";

const require = createRequire(import.meta.url);

/** A batch of memory rows as Arrow columns: what layers above `local/` hold between two Lance calls. */
export type ArrowTable = ArrowNS.Table;

/** apache-arrow, loaded the way lancedb loads it. */
export const arrow: typeof ArrowNS = require("apache-arrow");
/** @lancedb/lancedb. */
export const lancedb: typeof LanceNS = require("@lancedb/lancedb");
