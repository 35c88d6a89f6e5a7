#!/usr/bin/env node
/**
 * The `funes` executable. `funes mcp` is started by agents, which wait for its tool list before a session
 * begins, so it is dispatched before the rest of the CLI (and every layer that loads) is imported.
 */
import { readFileSync } from "node:fs";

const [, , command, ...rest] = process.argv;
if (command === "mcp" && rest.length <= 1 && !rest.some((a) => a.startsWith("-"))) {
  try {
    const [{ readConfig }, { runMcp }] = await Promise.all([import("./config.js"), import("./run-mcp.js")]);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    await runMcp(rest[0], readConfig(), pkg.version);
  } catch (err) {
    process.stderr.write(`funes: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
} else await import("./app.js");
