/**
 * The hook scripts agents run: the foreground part returns at once with no output, and the worker runs
 * funes one job at a time — a hook that arrives while its job runs is not lost, it makes the running
 * worker go once more.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processStart } from "../../src/agents/hook-locks.js";
import { writeHookScripts } from "../../src/agents/hook-scripts.js";
import { tempDir } from "../helpers/fixtures.js";
import { until } from "../helpers/wait.js";

let t: { dir: string; cleanup: () => void };
let calls: string;

/** Runs a hook script as an agent would: payload on stdin; returns its output and how long it took. */
function runHook(script: string, arg: string | string[], payload: string, env: Record<string, string> = {}) {
  const t0 = performance.now();
  const child = spawn("bash", [script, ...(Array.isArray(arg) ? arg : [arg])], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  child.stdin.end(payload);
  return new Promise<{ code: number | null; out: string; ms: number }>((resolve) =>
    child.on("close", (code) => resolve({ code, out, ms: performance.now() - t0 })),
  );
}

beforeAll(() => {
  t = tempDir();
  calls = join(t.dir, "calls.log");
  // A stand-in funes that takes a while and records when each run starts and ends. `push x/held` exits 2;
  // `push x/more` has more to publish twice (75), then is done; `push x/fail` fails, saying why.
  const fake = join(t.dir, "fake-funes");
  const rounds = join(t.dir, "rounds");
  writeFileSync(
    fake,
    `#!/usr/bin/env bash
echo "start $*" >> "${calls}"
echo "\${MALLOC_ARENA_MAX:-unset}" >> "${calls}.arenas"
[ "$1" = index ] && sleep 1
echo "end $*" >> "${calls}"
case "$2" in
  x/held) echo "funes: nothing was published: held back" >&2; exit 2 ;;
  x/fail) echo "pushed nothing"; echo "funes: x/fail is unreachable — run the push again" >&2; exit 1 ;;
  x/more)
    echo r >> "${rounds}"
    [ "$(wc -l < "${rounds}")" -lt 3 ] && { echo "funes: 5 chunks still wait for vectors" >&2; exit 75; }
    ;;
esac
exit 0
`,
  );
  chmodSync(fake, 0o755);
  writeHookScripts(join(t.dir, "hooks"), [fake]);
});
afterAll(() => t.cleanup());

describe("hook scripts", () => {
  it("return at once, print nothing, and run one worker per job with a rerun for hooks that came meanwhile", async () => {
    const script = join(t.dir, "hooks", "funes-index.sh");
    const payload = JSON.stringify({
      session_id: "s",
      hook_event_name: "Stop",
      last_assistant_message: "x".repeat(5000),
    });
    const runs = await Promise.all([runHook(script, "claude", payload), runHook(script, "claude", payload)]);
    await new Promise((r) => setTimeout(r, 200));
    runs.push(await runHook(script, "claude", payload));
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.out).toBe("");
      expect(r.ms).toBeLessThan(1000);
    }
    const log = join(t.dir, "hooks", "funes-sync.log");
    expect(
      await until(
        () => existsSync(log) && readFileSync(log, "utf8").split("index[claude]: ok").length === 3,
        15_000,
      ),
    ).toBe(true);
    // Exactly two runs (the first, and one more for the hooks that arrived during it), never overlapping.
    const lines = readFileSync(calls, "utf8").trim().split("\n");
    expect(lines).toEqual([
      "start index --harness claude",
      "end index --harness claude",
      "start index --harness claude",
      "end index --harness claude",
    ]);
    // Each run with glibc held to two malloc arenas (a long index run keeps less memory).
    expect(readFileSync(`${calls}.arenas`, "utf8").trim().split("\n")).toEqual(["2", "2"]);
    expect(existsSync(join(t.dir, "hooks", ".index-claude.lock"))).toBe(false);
  });

  it("do nothing inside `funes ask` (FUNES_ASK): the agent's one-shot answer is not indexed", async () => {
    const script = join(t.dir, "hooks", "funes-index.sh");
    const log = join(t.dir, "hooks", "funes-sync.log");
    expect((await runHook(script, "asked", "{}", { FUNES_ASK: "1" })).out).toBe("");
    // A hook run after it, outside an ask, is worked as usual; the ask's never was.
    expect((await runHook(script, "after", "{}")).out).toBe("");
    expect(
      await until(() => existsSync(log) && readFileSync(log, "utf8").includes("index[after]: ok"), 15_000),
    ).toBe(true);
    expect(readFileSync(log, "utf8")).not.toContain("index[asked]");
    expect(readFileSync(calls, "utf8")).not.toContain("--harness asked");
  });

  it("logs what a push worker's exit means, with funes's reason on the outcome line", async () => {
    const script = join(t.dir, "hooks", "funes-push.sh");
    const log = join(t.dir, "hooks", "funes-sync.log");
    const has = (s: string) => existsSync(log) && readFileSync(log, "utf8").includes(s);
    expect((await runHook(script, "x/held", "{}")).out).toBe("");
    expect(await until(() => has("push[x/held]: WARN — nothing was published: held back"))).toBe(true);
    expect((await runHook(script, "", "{}")).out).toBe("");
    expect(await until(() => has("push: skipped (no memory bound to this hook)"))).toBe(true);
    expect((await runHook(script, ["x/fail", "codex"], "{}")).out).toBe("");
    expect(
      await until(
        () => has("push[x/fail]: FAILED (exit 1) — x/fail is unreachable — run the push again"),
        10_000,
      ),
    ).toBe(true);
    expect(readFileSync(calls, "utf8")).toContain("start push x/fail --hook --harness codex\n");
  });

  it("goes again while a push has more to publish, then logs ok", async () => {
    const script = join(t.dir, "hooks", "funes-push.sh");
    const log = join(t.dir, "hooks", "funes-sync.log");
    expect((await runHook(script, ["x/more", "claude"], "{}")).out).toBe("");
    expect(await until(() => readFileSync(log, "utf8").includes("push[x/more]: ok"))).toBe(true);
    const outcomes = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.includes("push[x/more]: ") && !l.endsWith(": start"))
      .map((l) => l.replace(/^\S+ /, ""));
    expect(outcomes).toEqual([
      "push[x/more]: again — 5 chunks still wait for vectors",
      "push[x/more]: again — 5 chunks still wait for vectors",
      "push[x/more]: ok",
    ]);
  });

  it("an index hook given a memory publishes after its last pass (agents with no session end)", async () => {
    const script = join(t.dir, "hooks", "funes-index.sh");
    const log = join(t.dir, "hooks", "funes-sync.log");
    const before = readFileSync(calls, "utf8").length;
    expect((await runHook(script, ["codex", "x/pub"], "{}")).out).toBe("");
    expect(await until(() => readFileSync(log, "utf8").includes("push[x/pub]: ok"))).toBe(true);
    expect(readFileSync(calls, "utf8").slice(before).trim().split("\n")).toEqual([
      "start index --harness codex",
      "end index --harness codex",
      "start push x/pub --hook --harness codex",
      "end push x/pub --hook --harness codex",
    ]);
    expect(existsSync(join(t.dir, "hooks", ".index-codex.lock"))).toBe(false);
  });

  it("takes over a lock whose worker is gone though its pid now runs another process; waits on a live one", async () => {
    const script = join(t.dir, "hooks", "funes-push.sh");
    const log = join(t.dir, "hooks", "funes-sync.log");
    const lock = join(t.dir, "hooks", ".push.lock");
    // A live process that is no worker, started after the one the lock records (this test's process):
    // as if the worker had been killed and the system had given its pid to something else.
    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), `${other.pid} ${processStart(process.pid)}\n`);
      expect((await runHook(script, "x/taken", "{}")).out).toBe("");
      expect(await until(() => readFileSync(log, "utf8").includes("push[x/taken]: ok"))).toBe(true);
      expect(readFileSync(log, "utf8")).toContain(
        `push: took over ${lock} (its worker, pid ${other.pid}, is gone)`,
      );
      expect(readFileSync(calls, "utf8")).toContain("start push x/taken --hook\n");
      expect(await until(() => !existsSync(lock))).toBe(true);
      // The same pid recorded with its own start is a worker at work: the hook leaves a note and goes.
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), `${other.pid} ${processStart(other.pid as number)}\n`);
      await runHook(script, ["--worker", "x/waits"], "{}");
      expect(existsSync(join(t.dir, "hooks", ".push.again"))).toBe(true);
      expect(readFileSync(calls, "utf8")).not.toContain("x/waits");
    } finally {
      other.kill();
      rmSync(lock, { recursive: true, force: true });
    }
  });
});
