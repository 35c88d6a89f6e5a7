import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Three workers on two cores: most end-to-end time is spent waiting on child processes (whole suite on a
    // quiet 2-core machine: 411 s with two, 332 s with three).
    maxWorkers: 3,
    minWorkers: 1,
    globalSetup: ["test/setup/build.ts"],
    // The built CLI (test/helpers/cli.ts runs it in-process) is loaded by Node itself, as the executable
    // loads it, not evaluated again through the test runner's transform in every test file.
    server: { deps: { external: [/\/dist\//] } },
    // No test starts the shared model server unless it asks for one (FUNES_SERVER=1). The native libraries'
    // settings are what the CLI's entry point sets (src/cli/native-env.ts), for tests that load them in-process.
    env: { LANCE_CPU_THREADS: "2", LANCEDB_LOG: "error", ORT_DISABLE_TELEMETRY: "1", FUNES_SERVER: "0" },
  },
});
