/**
 * `funes add` / `funes remove` for Gemini CLI (0.61.0) and Qwen Code, through the real CLIs from npm with a
 * temporary HOME, offline, one test per agent for the whole chain: add (first index, a Hub memory created on
 * the loopback stand-in) → a headless turn whose model (a loopback stub of the agent's API) calls funes's
 * recall, which runs without a prompt and hands back a passage → the agent's hooks index that turn and
 * publish it → a second home bound to the same Hub memory recalls it → remove leaves the agent's files as
 * they were, byte for byte.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { agentUser, type CliEnv, runFunes } from "../helpers/cli.js";
import { copyFixture, readTree, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { startModelStub } from "../helpers/model-stubs.js";
import { hooksIdle, until } from "../helpers/wait.js";

const TOKEN = "hf_standintokenforgeminiqwen";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function user(name: string): CliEnv & { env: Record<string, string> } {
  return agentUser(t.dir, name, {
    HF_HUB_CACHE: TEST_HUB_CACHE,
    HF_ENDPOINT: hub.url,
    HF_TOKEN: TOKEN,
    FUNES_SERVER: "0",
  });
}

/**
 * What a second home bound to the same Hub memory recalls for `phrase` (agent format), once the phrase is
 * among its passages (the hooks publish in the background) or two minutes pass. The turn it looks for is itself
 * a recall (its prompt is a question put to memory, which ranks at a quarter of its relevance), so it reads
 * deep enough to find it whatever else the memory holds.
 */
async function recallElsewhere(memory: string, phrase: string): Promise<string> {
  const other = user(`other-${memory.replace("/", "-")}`);
  let out = "";
  await until(
    async () => {
      const r = await runFunes(
        ["recall", phrase, "--memory", memory, "--format", "agent", "--rerank-budget", "0", "-k", "20"],
        other,
      );
      out = r.code === 0 ? r.stdout : `exit ${r.code}: ${r.stderr}`;
      return out.includes(phrase);
    },
    120_000,
    500,
  );
  return out;
}

/** What `funes doctor` says of an agent's wiring. */
async function doctorSays(u: CliEnv, agent: string): Promise<unknown> {
  const checks = JSON.parse((await runFunes(["doctor", "--json"], u)).stdout) as { name: string }[];
  return checks.find((c) => c.name === `agent ${agent}`);
}

/**
 * `funes ask <agent>` against a fresh stub: the answer printed is the stub's; returns what the agent sent
 * the model (the prompt with the recalled passages).
 */
async function askWith(
  u: CliEnv,
  agent: string,
  modelEnv: (url: string) => Record<string, string>,
): Promise<string> {
  const stub = await startModelStub("Grounded answer.");
  try {
    const r = await runFunes(["ask", agent, "what is a digital twin?"], {
      ...u,
      extra: { ...u.extra, ...modelEnv(stub.url) },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Grounded answer.");
    return JSON.stringify(stub.requests.map((q) => q.body));
  } finally {
    await stub.close();
  }
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes add gemini", () => {
  it("recalls in a headless turn, indexes and publishes it from the hooks, and remove restores the files", async () => {
    const u = user("gemini-user");
    const gemini = join(u.home, ".gemini");
    copyFixture("gemini/tmp", join(gemini, "tmp"));
    // The user's settings, in their own layout, which remove must give back byte for byte.
    const settings =
      '{\n    "security": { "auth": { "selectedType": "gemini-api-key" } },\n    "ui": {"theme": "ANSI"}\n}\n';
    writeFileSync(join(gemini, "settings.json"), settings);
    // Gemini withholds *TOKEN* variables from MCP servers: its recall reads the token file.
    mkdirSync(join(u.home, ".cache", "huggingface"), { recursive: true });
    writeFileSync(join(u.home, ".cache", "huggingface", "token"), TOKEN);
    const before = readTree(gemini);

    const add = await runFunes(["add", "gemini", "acme/gemini-memory", "--yes", "--create"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("indexed 2 sessions");
    expect(add.stdout).toContain("withholds variables named like *TOKEN*");
    expect(await doctorSays(u, "gemini")).toMatchObject({ status: "ok" });
    const hooks = JSON.parse(readFileSync(join(gemini, "settings.json"), "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(["AfterAgent", "SessionEnd"]);
    expect(hooks.AfterAgent[0].hooks[0].command).toMatch(/funes-index\.sh" "gemini"$/);

    const stub = await startModelStub("Recalled it.", {
      name: "mcp_funes_recall",
      arguments: { query: "what is a digital twin", k: 2 },
    });
    try {
      const work = join(u.home, "work");
      mkdirSync(work);
      const turn = await runCli(
        "gemini",
        ["-m", "gemini-2.5-flash", "-p", "USE-FUNES: recall the zebra-17 migration plan"],
        {
          env: {
            ...u.env,
            GEMINI_API_KEY: "stub",
            GOOGLE_GEMINI_BASE_URL: stub.url,
            GEMINI_CLI_NO_RELAUNCH: "true",
            GEMINI_CLI_TRUST_WORKSPACE: "true",
          },
          cwd: work,
        },
      );
      expect(turn.kind === "ran" && turn.stdout, JSON.stringify(turn)).toContain("Recalled it.");
      // The model got funes's passage back: the policy let the read-only tool run headless.
      const answers = stub.requests
        .flatMap((r) => (r.body.contents ?? []) as { parts?: { functionResponse?: unknown }[] }[])
        .flatMap((c) => c.parts ?? [])
        .filter((p) => p.functionResponse !== undefined);
      expect(JSON.stringify(answers)).toContain("digital twin");
      expect(JSON.stringify(answers)).toContain("→ get ");
    } finally {
      await stub.close();
    }
    // AfterAgent indexed the turn, SessionEnd published it; both workers are done before remove.
    const log = join(gemini, "hooks", "funes-sync.log");
    const text = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    const elsewhere = await recallElsewhere("acme/gemini-memory", "zebra-17 migration plan");
    expect(elsewhere, text()).toContain("zebra-17 migration plan");
    expect(await until(() => hooksIdle(join(gemini, "hooks")), 120_000), text()).toBe(true);
    expect(text()).toMatch(/index\[gemini\]: ok/);
    expect(text()).toMatch(/push\[acme\/gemini-memory\]: ok/);
    expect(elsewhere).toContain("gemini");

    // ask: Gemini answers from the passages alone, and leaves no session and fires no hook.
    const sessions = () => readdirSync(join(gemini, "tmp"), { recursive: true }).length;
    const [files, lines] = [sessions(), text()];
    const asked = await askWith(u, "gemini", (url) => ({
      GEMINI_API_KEY: "stub",
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_CLI_NO_RELAUNCH: "true",
    }));
    expect(asked).toContain("RECALLED PASSAGES");
    expect(sessions()).toBe(files);
    expect(text()).toBe(lines);

    const rm = await runFunes(["remove", "gemini"], u);
    expect(rm.code, rm.stderr).toBe(0);
    const after = readTree(gemini);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    expect(existsSync(join(gemini, "policies"))).toBe(false);
    expect(existsSync(join(gemini, "hooks"))).toBe(false);
    expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
  }, 240_000);
});

describe("funes add qwen", () => {
  it("recalls in a headless turn, indexes and publishes it from the Stop hook, and remove restores the files", async () => {
    const u = user("qwen-user");
    const qwen = join(u.home, ".qwen");
    copyFixture("qwen/projects", join(qwen, "projects"));
    // The user's settings (already at Qwen's settings version, which Qwen would otherwise migrate).
    const settings =
      '{\n  "$version": 4,\n  "security": {"auth": {"selectedType": "openai"}},\n  "tools": {"visible": ["read_file"]}\n}\n';
    writeFileSync(join(qwen, "settings.json"), settings);
    const before = readTree(qwen);

    const add = await runFunes(["add", "qwen", "acme/qwen-memory", "--yes", "--create"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("indexed 2 sessions");
    const written = JSON.parse(readFileSync(join(qwen, "settings.json"), "utf8"));
    expect(written.tools.visible).toEqual([
      "read_file",
      "mcp__funes__recall",
      "mcp__funes__get",
      "mcp__funes__sessions",
      "mcp__funes__scan",
      "mcp__funes__status",
    ]);
    expect(written.mcpServers.funes.trust).toBe(true);
    expect(await doctorSays(u, "qwen")).toMatchObject({ status: "ok" });
    expect(written.hooks.Stop[0].hooks[0].command).toMatch(/funes-index\.sh" "qwen" "acme\/qwen-memory"$/);

    const stub = await startModelStub("Recalled it.", {
      name: "mcp__funes__recall",
      arguments: { query: "what is a digital twin", k: 2 },
    });
    try {
      const work = join(u.home, "work");
      mkdirSync(work);
      const turn = await runCli("qwen", ["USE-FUNES: recall the zebra-17 migration plan"], {
        env: {
          ...u.env,
          OPENAI_API_KEY: "stub",
          OPENAI_BASE_URL: `${stub.url}/v1`,
          OPENAI_MODEL: "gpt-stub",
        },
        cwd: work,
      });
      expect(turn.kind === "ran" && turn.stdout, JSON.stringify(turn)).toContain("Recalled it.");
      // The model got funes's passage back: trusted and visible, the tool ran without asking.
      const answers = stub.requests.flatMap((r) =>
        ((r.body.messages ?? []) as { role: string; content?: unknown }[]).filter((m) => m.role === "tool"),
      );
      expect(JSON.stringify(answers)).toContain("digital twin");
      expect(JSON.stringify(answers)).toContain("→ get ");
    } finally {
      await stub.close();
    }
    // Stop indexed the turn (named qwen, though Qwen exports CLAUDE_PROJECT_DIR), then published it.
    const log = join(qwen, "hooks", "funes-sync.log");
    const text = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    const elsewhere = await recallElsewhere("acme/qwen-memory", "zebra-17 migration plan");
    expect(elsewhere, text()).toContain("zebra-17 migration plan");
    expect(await until(() => hooksIdle(join(qwen, "hooks")), 120_000), text()).toBe(true);
    expect(text()).toMatch(/index\[qwen\]: ok/);
    expect(text()).toMatch(/push\[acme\/qwen-memory\]: ok/);
    expect(text()).not.toContain("index[claude]");
    expect(elsewhere).toContain("qwen");

    const [files, lines] = [readdirSync(join(qwen, "projects"), { recursive: true }).length, text()];
    const asked = await askWith(u, "qwen", (url) => ({
      OPENAI_API_KEY: "stub",
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_MODEL: "gpt-stub",
    }));
    expect(asked).toContain("RECALLED PASSAGES");
    expect(readdirSync(join(qwen, "projects"), { recursive: true }).length).toBe(files);
    expect(text()).toBe(lines);

    const rm = await runFunes(["remove", "qwen"], u);
    expect(rm.code, rm.stderr).toBe(0);
    const after = readTree(qwen);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    expect(existsSync(join(qwen, "hooks"))).toBe(false);
    expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
  }, 240_000);
});
