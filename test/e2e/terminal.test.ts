/**
 * The CLI as a person meets it in a terminal and a shell pipeline: a reader that stops early, and the
 * failure lines of a run that cannot go on.
 */
import { spawn } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
beforeAll(() => {
  t = tempDir();
  env = { home: t.dir, funesHome: join(t.dir, ".funes"), extra: { HF_HUB_CACHE: TEST_HUB_CACHE } };
});
afterAll(() => t.cleanup());

describe("a pipe", () => {
  it("closed by its reader ends the run quietly with 0, as `rg | head` does", async () => {
    const child = spawn(process.execPath, [CLI, "completion", "bash"], {
      env: { PATH: process.env.PATH ?? "", HOME: env.home, FUNES_HOME: env.funesHome },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The reader is gone before funes writes a byte: every write meets EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("--quiet", () => {
  it("on a terminal prints neither progress nor summary, yet does the work; an error still shows", async () => {
    const file = join(t.dir, "s.jsonl");
    copyFileSync(join(TRACES, "claude", "claude_session.jsonl"), file);
    // A warning would still show (none here: the test models are present).
    const r = await runFunesInTerminal(["index", file, "--quiet"], env);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toBe("");
    const status = await runFunes(["status", "--json"], env);
    expect(JSON.parse(status.stdout).chunks).toBeGreaterThan(0);
    const missing = await runFunesInTerminal(["index", join(t.dir, "nope.jsonl"), "-q"], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout.replaceAll("\r", "")).toBe(
      `funes: no such file or folder: "${join(t.dir, "nope.jsonl")}" — check the path\n`,
    );
  });
});
