import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { lockState, processStart, readHookLocks } from "./hook-locks.js";
import { hookLogPaths } from "./hook-log.js";
import { commonScript } from "./hook-scripts.js";

let t: { dir: string; cleanup: () => void };
let sleeper: ChildProcess;
let sleeperPid: number;

beforeAll(() => {
  t = tempDir();
  // A live process that is no hook worker: started after this test process, so not when a lock this
  // process wrote says its worker started.
  sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
  sleeperPid = sleeper.pid as number;
});
afterAll(() => {
  sleeper.kill();
  t.cleanup();
});

/** A lock folder at `path` whose pid file says `text`. */
function lock(path: string, text: string | null): string {
  mkdirSync(path, { recursive: true });
  if (text !== null) writeFileSync(join(path, "pid"), text);
  return path;
}

/** A pid no process has now. */
function deadPid(): number {
  const r = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

describe("hook worker locks", () => {
  it("reads a process's start time as the hook scripts do", () => {
    const script = join(t.dir, "script.sh");
    // The scripts' own `started` function, run on the sleeper's pid.
    const body = commonScript(["/bin/true"]);
    const fn = body.slice(
      body.indexOf("started() {"),
      body.indexOf("\n}\n", body.indexOf("started() {")) + 3,
    );
    writeFileSync(script, `${fn}started "$1"\n`);
    const fromShell = spawnSync("bash", [script, String(sleeperPid)], { encoding: "utf8" }).stdout.trim();
    expect(fromShell).not.toBe("");
    expect(processStart(sleeperPid)).toBe(fromShell);
    expect(processStart(deadPid())).toBeNull();
  });

  it("a lock naming a live but unrelated pid is stale; its own worker's is held; a dead pid's is stale", () => {
    const now = Date.now();
    const mine = processStart(process.pid) as string;
    expect(processStart(sleeperPid)).not.toBe(mine);
    // The pid was recycled: the process running under it now started after the worker the lock records.
    expect(lockState(lock(join(t.dir, "a", ".push.lock"), `${sleeperPid} ${mine}\n`), now)).toBe("stale");
    expect(
      lockState(lock(join(t.dir, "b", ".push.lock"), `${sleeperPid} ${processStart(sleeperPid)}\n`), now),
    ).toBe("held");
    expect(lockState(lock(join(t.dir, "c", ".push.lock"), `${deadPid()} 123\n`), now)).toBe("stale");
    // An older funes's lock (pid only): its pid alive is all there is, until it is an hour old.
    const old = lock(join(t.dir, "d", ".push.lock"), `${sleeperPid}\n`);
    expect(lockState(old, now)).toBe("held");
    utimesSync(old, new Date(now - 2 * 3600_000), new Date(now - 2 * 3600_000));
    expect(lockState(old, now)).toBe("stale");
    expect(lockState(lock(join(t.dir, "e", ".push.lock"), null), now)).toBe("held");
  });

  it("lists the locks beside each agent's hook scripts, stale ones said so", async () => {
    const home = join(t.dir, "home");
    const dir = dirname((await hookLogPaths({ home, env: {} }))[0] as string);
    lock(join(dir, ".index-claude.lock"), `${sleeperPid} ${processStart(process.pid)}\n`);
    lock(join(dir, ".push.lock"), `${sleeperPid} ${processStart(sleeperPid)}\n`);
    const locks = await readHookLocks({ home, env: {}, now: Date.now() });
    expect(locks.map((l) => [l.job, l.pid, l.state]).sort()).toEqual([
      ["index-claude", sleeperPid, "stale"],
      ["push", sleeperPid, "held"],
    ]);
  });
});
