/**
 * Codex hands an MCP server only a few variables (HOME, PATH, LANG, SHELL, TERM…): `funes add codex` names
 * the ones funes reads in the server's `env_vars`, so a token kept only in `HF_TOKEN` reaches funes's recall
 * in a real `codex exec` turn, against a private memory on the loopback Hub stand-in.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { runFunes } from "../helpers/cli.js";
import { ROOT, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { codexStubArgs, startModelStub } from "../helpers/model-stubs.js";
import { hooksIdle } from "../helpers/wait.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes add codex, the server's environment", () => {
  it("lets a token set only in HF_TOKEN reach funes's MCP server under Codex", async () => {
    const home = join(t.dir, "codex-env");
    const sessions = join(home, ".codex", "sessions", "2026", "06", "23");
    mkdirSync(sessions, { recursive: true });
    copyFileSync(join(TRACES, "codex", "codex_session.jsonl"), join(sessions, "rollout-a.jsonl"));
    const extra = {
      PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      HF_HUB_CACHE: TEST_HUB_CACHE,
      HF_ENDPOINT: hub.url,
      HF_TOKEN: "hf_standintokenforcodexenv",
      FAKE_KEY: "stub-key",
    };
    const u = { home, funesHome: join(home, ".funes"), extra };
    const add = await runFunes(["add", "codex", "acme/codex-private", "--yes", "--create"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(hub.repos.get("acme/codex-private")?.private).toBe(true);
    // No token file anywhere: the variable is the only way the token can reach the server.
    expect(existsSync(join(home, ".cache", "huggingface", "token"))).toBe(false);
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toContain('env_vars = ["HF_TOKEN", ');

    const caller = await startModelStub("Recalled it.", {
      namespace: "mcp__funes",
      name: "recall",
      arguments: { query: "what is in this repo", k: 2 },
    });
    try {
      const work = join(home, "work");
      mkdirSync(work);
      const env = { ...extra, HOME: home, FUNES_HOME: u.funesHome, FUNES_SERVER: "0" };
      const turn = await runCli(
        "codex",
        ["exec", "--json", "--skip-git-repo-check", ...codexStubArgs(caller.url), "--", "what did we do?"],
        { env, cwd: work },
      );
      const call = (turn.kind === "ran" ? turn.stdout : "")
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { type: string; item?: Record<string, unknown> })
        .find((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")?.item;
      expect(call, turn.kind === "ran" ? turn.stdout : turn.kind).toMatchObject({
        status: "completed",
        error: null,
      });
      // Read from the private Hub memory (its hits point `get` at it), not refused, not the local fallback.
      const result = JSON.stringify(call?.result);
      expect(result).toContain("→ get ");
      expect(result).toContain("--memory hf://datasets/acme/codex-private");
      expect(result).not.toContain("not authorized");
    } finally {
      await caller.close();
    }
    // That turn's Stop hook indexes and publishes in the background: let it finish before the folder goes.
    const log = join(home, ".codex", "hooks", "funes-sync.log");
    const done = () =>
      existsSync(log) &&
      /push\[acme\/codex-private\]: (ok|WARN|FAILED)/.test(readFileSync(log, "utf8")) &&
      hooksIdle(join(home, ".codex", "hooks"));
    for (const end = Date.now() + 90_000; Date.now() < end && !done(); )
      await new Promise((r) => setTimeout(r, 250));
    expect(readFileSync(log, "utf8")).toMatch(/push\[acme\/codex-private\]: ok/);
  }, 180_000);
});
