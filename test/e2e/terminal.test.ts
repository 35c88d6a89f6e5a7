/**
 * The CLI as a person meets it in a terminal and a shell pipeline: a reader that stops early, and the
 * failure lines of a run that cannot go on.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
beforeAll(() => {
  t = tempDir();
  env = { home: t.dir, funesHome: join(t.dir, ".funes") };
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
