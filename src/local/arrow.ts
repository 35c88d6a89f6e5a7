/**
 * The one apache-arrow instance. lancedb is CommonJS and `require`s arrow; an ESM `import` would load a
 * second copy whose classes fail lancedb's instanceof checks (`add()` then throws; lance-facts §2.3).
 */
import { createRequire } from "node:module";
import type * as LanceNS from "@lancedb/lancedb";
import type * as ArrowNS from "apache-arrow";

const require = createRequire(import.meta.url);

// Library workarounds, set before lance's runtime starts (it starts lazily on the first call): on two
// cores the FTS build deadlocks with lance's default thread count (lance-facts §2.1), and lance logs
// per-query warnings to stderr that users should not see (§2.4).
process.env.LANCE_CPU_THREADS ??= "2";
process.env.LANCEDB_LOG ??= "error";

/** A batch of memory rows as Arrow columns: what layers above `local/` hold between two Lance calls. */
export type ArrowTable = ArrowNS.Table;

/** apache-arrow, loaded the way lancedb loads it. */
export const arrow: typeof ArrowNS = require("apache-arrow");
/** @lancedb/lancedb. */
export const lancedb: typeof LanceNS = require("@lancedb/lancedb");
