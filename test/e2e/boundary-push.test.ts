/**
 * Publishing at a session boundary, end to end: the real Claude Code CLI (2.1.197) against the loopback
 * model stub, the funes plugin's hooks firing for real, and the Hub stand-in. The session that just ended
 * must be readable from the Hub memory soon after `claude -p` returns, with no later session needed; only
 * the memory's own files are committed. Also the boundary push alone: nothing indexed yet and a memory
 * not created yet are not errors, and rows still waiting for vectors make the hook go again.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { agentUser, type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { codexStubArgs, type ModelStub, startModelStub } from "../helpers/model-stubs.js";
import { hooksIdle, until } from "../helpers/wait.js";

const TOKEN = "hf_standintokenforboundarytests";
const EMBEDDER = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
let t: { dir: string; cleanup: () => void };
let stub: ModelStub;
let hub: HubStandin;

/** A user with their own HOME, FUNES_HOME and HF cache, the test embedder, and the stand-ins' addresses. */
function user(name: string): CliEnv & { env: Record<string, string> } {
  return agentUser(t.dir, name, {
    HF_HUB_CACHE: join(t.dir, `${name}-hf`),
    HF_ENDPOINT: hub.url,
    HF_TOKEN: TOKEN,
    FUNES_EMBED_MODEL_DIR: EMBEDDER,
    LANCE_CPU_THREADS: "2",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ANTHROPIC_BASE_URL: stub.url,
    ANTHROPIC_API_KEY: "stub-key",
    FAKE_KEY: "stub-key",
  });
}

/** Every committed path is the card or a file of the table's own folders. */
function onlyMemoryFiles(paths: string[]): string[] {
  return paths.filter(
    (p) =>
      p !== "README.md" &&
      !/^chunks\.lance\/(?:data|_versions|_transactions|_indices|_deletions)\/[^/]/.test(p),
  );
}

beforeAll(async () => {
  t = tempDir();
  stub = await startModelStub("Noted: port 47888.");
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await stub.close();
  await hub.close();
  t.cleanup();
});

describe("publishing at a session boundary", () => {
  it("a one-shot claude -p session is readable from the Hub memory soon after it returns", async () => {
    const u = user("claude-boundary");
    const add = await runFunes(["add", "claude", "acme/mem", "--create", "--yes"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(hub.repos.get("acme/mem")?.private).toBe(true);

    const work = join(u.home, "work");
    mkdirSync(work);
    const turn = await runCli("claude", ["-p", "the nebula cluster uses port 47888"], {
      env: u.env,
      cwd: work,
    });
    expect(turn.kind === "ran" && turn.stdout).toContain("Noted: port 47888.");
    const returned = Date.now();

    // Another machine reads it from the Hub (its own FUNES_HOME and cache: nothing local to fall back on).
    const reader = user("claude-reader");
    let last = "";
    const readable = await until(async () => {
      const r = await runFunes(
        ["recall", "nebula cluster port", "--memory", "acme/mem", "--rerank-budget", "0"],
        reader,
      );
      last = `${r.stdout}${r.stderr}`;
      // The prompt, and the answer of the session's last turn (only a push after its Stop hook has it).
      return (
        r.code === 0 &&
        r.stdout.includes("the nebula cluster uses port 47888") &&
        r.stdout.includes("Noted: port 47888.")
      );
    });
    const log = join(u.home, ".funes", "integrations", "claude-plugin", "funes", "scripts", "funes-sync.log");
    expect(
      readable,
      `${last}\n--- hook log ---\n${existsSync(log) ? readFileSync(log, "utf8") : "(none)"}`,
    ).toBe(true);
    expect(Date.now() - returned).toBeLessThan(60_000);
    expect(onlyMemoryFiles(hub.committedPaths)).toEqual([]);

    // Once the hooks are done, status says everything from here is published and the last hook push was ok.
    expect(await until(() => !existsSync(join(log, "..", ".push.lock")), 60_000)).toBe(true);
    const status = await runFunes(["status", "--memory", "acme/mem"], u);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/\nlocal push: up to date \(1 session\)\n/);
    expect(status.stdout).toMatch(/\nlast hook push: ok, /);
    expect(readFileSync(log, "utf8")).not.toContain("FAILED");
  });

  it("codex publishes from its Stop hook; status names what waits and the hook's last failure", async () => {
    const u = user("codex-boundary");
    const add = await runFunes(["add", "codex", "acme/cx", "--create", "--yes"], u);
    expect(add.code, add.stderr).toBe(0);
    const work = join(u.home, "work");
    mkdirSync(work);
    const exec = (prompt: string, env: Record<string, string>) =>
      runCli("codex", ["exec", "--json", "--skip-git-repo-check", ...codexStubArgs(stub.url), "--", prompt], {
        env,
        cwd: work,
      });
    const log = join(u.home, ".codex", "hooks", "funes-sync.log");
    const logText = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    const idle = () => hooksIdle(dirname(log));

    // Codex has no session end: the turn's Stop hook indexes it, then publishes it.
    const first = await exec("the aurora service listens on port 52119", u.env);
    expect(first.kind === "ran" && first.stdout).toContain("Noted: port 47888.");
    const reader = user("codex-reader");
    const readable = await until(async () => {
      const r = await runFunes(
        ["recall", "aurora service port", "--memory", "acme/cx", "--rerank-budget", "0"],
        reader,
      );
      return r.code === 0 && r.stdout.includes("the aurora service listens on port 52119");
    });
    expect(readable, logText()).toBe(true);
    expect(await until(idle, 60_000)).toBe(true);

    // A session whose hooks can't embed (no embedder where they run): nothing of it is published, and
    // status says so, and why, from the hook's log.
    const second = await exec("the borealis queue drains every 90 seconds", {
      ...u.env,
      FUNES_EMBED_MODEL_DIR: join(t.dir, "no-embedder-here"),
    });
    expect(second.kind).toBe("ran");
    const failed = await until(
      () => /push\[acme\/cx\]: FAILED[^\n]*\n(?![\s\S]*push\[acme\/cx\]: start)/.test(logText()) && idle(),
      60_000,
    );
    // What the hooks wrote, and which lock is still held, when the failure is not logged in time.
    const held = [".push.lock", ".index-codex.lock"].filter((f) => existsSync(join(log, "..", f)));
    expect(failed, `${logText()}\nlocks held: ${held.join(", ") || "none"}`).toBe(true);
    const status = await runFunes(["status", "--memory", "acme/cx"], {
      ...u,
      extra: { ...u.extra, FUNES_EMBED_MODEL_DIR: join(t.dir, "no-embedder-here") },
    });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      /\n {2}\d+ chunk\(s\) of 1 session wait for vectors — not published until embedded/,
    );
    expect(status.stdout).toMatch(
      /\nlast hook push: failed, [^\n]*: \d+ chunks wait for vectors and can't be embedded here \([^\n]*no-embedder-here[^\n]*— log: [^\n]*funes-sync\.log\n/,
    );
    expect(onlyMemoryFiles(hub.committedPaths)).toEqual([]);
  }, 180_000);
});
