#!/usr/bin/env node
/**
 * The `funes` executable. `funes mcp` is started by agents, which wait for its tool list before a session
 * begins, so it is dispatched before the rest of the CLI (and every layer that loads) is imported.
 */
import { existsSync, readFileSync } from "node:fs";
import { setNativeEnv } from "./native-env.js";
import { guardStream } from "./output-guard.js";

// Before Lance or onnxruntime can load, in every process funes starts (each runs this file).
setNativeEnv(process.env);

// Nothing reaches the terminal (or an MCP client) with a control character funes did not put there itself.
guardStream(process.stdout);
guardStream(process.stderr);
// A reader that stops early (`funes recall … | head -1`) ends the run quietly with 0, as `rg | head` does:
// nothing more can be shown, and a stack trace about it would be noise.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });

const [, , command, ...rest] = process.argv;
if (command === "mcp" && rest.length <= 1 && !rest.some((a) => a.startsWith("-"))) {
  try {
    // The server with the MCP SDK in one file (scripts/bundle.mjs), when the build made it.
    const bundle = new URL("./run-mcp.bundle.js", import.meta.url);
    const [{ readConfig }, { runMcp }] = await Promise.all([
      import("./config.js"),
      (existsSync(bundle) ? import(bundle.href) : import("./run-mcp.js")) as Promise<
        typeof import("./run-mcp.js")
      >,
    ]);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    await runMcp(rest[0], readConfig(), pkg.version);
  } catch (err) {
    // The same one line and exit code as every other command (cli/error-policy.ts).
    const { failureReport } = await import("./error-policy.js");
    const report = failureReport(err, {
      debug: process.env.FUNES_DEBUG === "1",
      home: (await import("./home.js")).funesHomeOf(process.env),
    });
    process.stderr.write(report.text);
    process.exitCode = report.exitCode;
  }
} else if (command === "__index-step" && process.send !== undefined) {
  // A worker of `funes index` (cli/index-worker.ts): no CLI parsing, no output but its messages.
  (await import("./index-worker.js")).serveIndexStep();
} else {
  // Tests only: a signal at a named step of a write (cli/test-signal.ts).
  if (process.env.FUNES_TEST_SIGNAL_AT !== undefined)
    (await import("./test-signal.js")).installTestSignal(process.env);
  // A push of a large memory runs again with glibc's arenas capped (cli/capped-arenas.ts).
  const capped = await import("./capped-arenas.js");
  if (capped.wantsCappedArenas(command, process.env))
    process.exitCode = await capped.runWithCappedArenas(process.env);
  else process.exitCode = await (await import("./app.js")).runCli(process.argv);
}
