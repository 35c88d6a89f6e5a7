/**
 * The settings the native libraries read from the process environment, not from an argument: set by
 * `cli/main.ts` before anything loads Lance or onnxruntime, so every process funes starts (a command, the
 * MCP server, an index worker, the model server) runs with them. The layers that load these libraries
 * (`local/`, `models/`) read no environment.
 */

/** Sets Lance's and onnxruntime's environment knobs in `env` (`process.env`); a value the user set wins. */
export function setNativeEnv(env: NodeJS.ProcessEnv): void {
  // Lance reads both when its runtime starts (lazily, on the first call): on two cores the FTS build
  // deadlocks with lance's default thread count (lance-facts §2.1), and lance logs per-query warnings to
  // stderr that users should not see (§2.4).
  env.LANCE_CPU_THREADS ??= "2";
  env.LANCEDB_LOG ??= "error";
  // onnxruntime 1.30's Linux and macOS builds carry a telemetry client that this switches off when set
  // before the native library loads; transformers.js, which funes ran on before, set it the same way.
  env.ORT_DISABLE_TELEMETRY = "1";
}
