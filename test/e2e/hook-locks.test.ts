/**
 * A hook worker's lock left by a worker that is gone, its pid since given to another process: the scripts
 * take it over (test/e2e/hook-scripts.test.ts), and `funes doctor` says which lock it is and that the job
 * waits on it, instead of "ok".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processStart } from "../../src/agents/hook-locks.js";
import { hookLogPaths } from "../../src/agents/hook-log.js";
import { runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";

let t: { dir: string; cleanup: () => void };
let other: ChildProcess;

beforeAll(() => {
  t = tempDir();
  other = spawn("sleep", ["120"], { stdio: "ignore" });
});
afterAll(() => {
  other.kill();
  t.cleanup();
});

describe("funes doctor and hook locks", () => {
  it("warns of a lock whose worker is gone though its pid runs another process, and passes a held one", async () => {
    const home = join(t.dir, "home");
    const env = {
      home,
      funesHome: join(home, ".funes"),
      extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_HUB_OFFLINE: "1" },
    };
    const scripts = dirname((await hookLogPaths({ home, env: {} }))[0] as string);
    const stale = join(scripts, ".push.lock");
    mkdirSync(stale, { recursive: true });
    // The worker this lock records started with this test's process; the pid now runs `sleep`.
    writeFileSync(join(stale, "pid"), `${other.pid} ${processStart(process.pid)}\n`);
    const held = join(scripts, ".index-claude.lock");
    mkdirSync(held);
    writeFileSync(join(held, "pid"), `${other.pid} ${processStart(other.pid as number)}\n`);
    const out = await runFunes(["doctor", "--json"], env);
    const checks = JSON.parse(out.stdout) as { name: string; status: string; detail: string; fix: string }[];
    const locks = checks.filter((c) => c.name === "hook lock");
    expect(locks).toEqual([
      {
        name: "hook lock",
        status: "warn",
        detail: `${stale} names a push worker that is gone (pid ${other.pid} is not running or is another process now); that job waits until a hook takes it over`,
        fix: `rm -r '${stale}' (the agent's next hook also takes it over)`,
      },
    ]);
  });
});
