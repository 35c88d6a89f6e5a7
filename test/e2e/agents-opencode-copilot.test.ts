/**
 * `funes add` / `funes remove` for OpenCode (`opencode-ai` 1.18.33) and GitHub Copilot CLI (`@github/copilot`
 * 1.0.102), each through its real CLI from npm with a temporary HOME, offline but for the loopback stand-ins:
 * one chain per agent. funes is added bound to a Hub memory; a headless turn against the loopback OpenAI-chat
 * stub calls funes's recall and gets the passage back; the agent's hook indexes that turn and publishes it;
 * a second home bound to the same Hub stand-in recalls it; `funes ask` answers from the passages with no
 * tool and keeps no session; `remove` leaves the agent's files as they were.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { agentUser, type CliEnv, runFunes } from "../helpers/cli.js";
import { readTree, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { type ModelStub, type StubToolCall, startModelStub } from "../helpers/model-stubs.js";
import { hooksIdle, until } from "../helpers/wait.js";

const TOKEN = "hf_standintokenforagenttests";
const EMBEDDER = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

/** A user with their own HOME, FUNES_HOME and HF cache, the test embedder, and the Hub stand-in. */
function user(name: string): CliEnv & { env: Record<string, string> } {
  return agentUser(t.dir, name, {
    HF_HUB_CACHE: join(t.dir, `${name}-hf`),
    HF_ENDPOINT: hub.url,
    HF_TOKEN: TOKEN,
    FUNES_EMBED_MODEL_DIR: EMBEDDER,
    FUNES_SERVER: "0",
    LANCE_CPU_THREADS: "2",
  });
}

/** The tool results the model was sent (OpenAI chat `role: "tool"` messages), as text. */
function toolResults(stub: ModelStub): string[] {
  return stub.requests.flatMap((r) =>
    ((r.body.messages ?? []) as { role?: string; content?: unknown }[])
      .filter((m) => m.role === "tool")
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))),
  );
}

/**
 * A second machine's recall of `query` from the Hub memory holds `text` (its own home and cache). The turn
 * is a recall exchange (the question put to memory, the agent's restatement), which recall orders after
 * every original passage (search/echoes.ts): `-k` above the memory's size lets it in.
 */
async function readableElsewhere(
  reader: CliEnv,
  spec: string,
  query: string,
  text: string,
): Promise<boolean> {
  return until(async () => {
    const r = await runFunes(["recall", query, "--memory", spec, "--rerank-budget", "0", "-k", "50"], reader);
    return r.code === 0 && r.stdout.includes(text);
  });
}

/**
 * Runs `funes ask …` and returns what it printed, after checking the model got the recalled passages and
 * no tool at all (funes's own MCP server among those kept off).
 */
async function askedWithoutTools(stub: ModelStub, args: string[], env: CliEnv): Promise<string> {
  stub.requests.length = 0;
  const r = await runFunes(args, env);
  expect(r.code, r.stderr).toBe(0);
  const main = stub.requests.filter((q) =>
    JSON.stringify(q.body.messages).includes("== RECALLED PASSAGES =="),
  );
  expect(main.length).toBeGreaterThan(0);
  expect(JSON.stringify(main)).toMatch(/→ get \S+ \S+/);
  expect(main.map((q) => q.body.tools ?? [])).toEqual(main.map(() => []));
  return r.stdout;
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

/** The model stub asking for `call` once per turn, then answering. */
async function stubCalling(call: StubToolCall): Promise<ModelStub> {
  return startModelStub("Noted: the quasar relay listens on port 47123.", call);
}

describe("funes add opencode", () => {
  it("recall runs headless, the plugin indexes and publishes each turn, remove restores the config", async () => {
    const stub = await stubCalling({
      name: "funes_recall",
      arguments: { query: "esbuild custom banner", k: 2 },
    });
    try {
      const u = user("opencode-user");
      // An earlier OpenCode session to recall (the real store, its data in the WAL), and the user's config
      // (with the "$schema" OpenCode adds to a config that lacks it whenever it runs).
      const data = join(u.home, ".local", "share", "opencode");
      mkdirSync(data, { recursive: true });
      copyFileSync(join(TRACES, "opencode", "opencode.db"), join(data, "opencode.db"));
      copyFileSync(join(TRACES, "opencode", "opencode.db-wal"), join(data, "opencode.db-wal"));
      const configDir = join(u.home, ".config", "opencode");
      mkdirSync(configDir, { recursive: true });
      const userConfig = `{\n    "$schema": "https://opencode.ai/config.json",\n    "model": "stub/stub-model",\n    "provider": {"stub": {"npm": "@ai-sdk/openai-compatible", "name": "Stub", "options": {"baseURL": "${stub.url}/v1", "apiKey": "stub"}, "models": {"stub-model": {"name": "Stub"}}}}\n}\n`;
      writeFileSync(join(configDir, "opencode.json"), userConfig);
      const before = readTree(configDir);

      const add = await runFunes(["add", "opencode", "acme/oc", "--create", "--yes"], u);
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain("indexed 1 session (");
      const config = JSON.parse(readFileSync(join(configDir, "opencode.json"), "utf8"));
      expect(config.mcp.funes).toMatchObject({ type: "local", enabled: true });
      expect(config.mcp.funes.command.slice(-2)).toEqual(["mcp", "acme/oc"]);
      expect(readFileSync(join(configDir, "plugins", "funes.js"), "utf8")).toContain('"opencode","acme/oc"');

      const work = join(u.home, "work");
      mkdirSync(work);
      const env = { ...u.env, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
      const turn = await runCli(
        "opencode",
        ["run", "the quasar relay port, and what did we learn about the build?"],
        {
          env,
          cwd: work,
        },
      );
      expect(turn.kind === "ran" && turn.code, turn.kind === "ran" ? turn.stderr : "").toBe(0);
      // The model's recall ran without a prompt and got the earlier session's passage.
      const results = toolResults(stub);
      expect(
        results.some((r) => r.includes("The build uses esbuild with a custom banner.")),
        `${results.join("\n")}\n--- funes add said:\n${add.stdout}${add.stderr}`,
      ).toBe(true);
      expect(results.some((r) => r.includes("→ get "))).toBe(true);

      // The plugin's session.idle hook indexed that turn and published it: another home reads it from the Hub.
      const log = join(u.home, ".funes", "integrations", "opencode", "funes-sync.log");
      const reader = user("opencode-reader");
      expect(
        await readableElsewhere(reader, "acme/oc", "quasar relay port", "the quasar relay port"),
        existsSync(log) ? readFileSync(log, "utf8") : "(no hook log)",
      ).toBe(true);
      expect(readFileSync(log, "utf8")).toContain("index[opencode]: ok");
      const status = await runFunes(["status"], u);
      expect(status.stdout).toMatch(/opencode: 2 sessions/);
      expect(await until(() => hooksIdle(dirname(log)), 60_000)).toBe(true);

      // `funes ask opencode`: the passages in the prompt, no tool offered (funes's MCP server kept off), and no
      // session kept (OpenCode's store unchanged).
      const dbFiles = () => [...readTree(data)].filter(([p]) => p.startsWith("opencode.db"));
      const store = dbFiles();
      const asked = await askedWithoutTools(
        stub,
        ["ask", "opencode", "where does the quasar relay listen?"],
        {
          ...u,
          extra: { ...u.extra, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" },
        },
      );
      expect(asked).toBe("Noted: the quasar relay listens on port 47123.\n");
      expect(dbFiles()).toEqual(store);

      const rm = await runFunes(["remove", "opencode"], u);
      expect(rm.code, rm.stderr).toBe(0);
      // The user's files as they were (OpenCode's own additions — its plugin SDK install — aside).
      const after = readTree(configDir);
      for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
      expect(existsSync(join(configDir, "plugins"))).toBe(false);
      expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
    } finally {
      await stub.close();
    }
  }, 300_000);
});

describe("funes add copilot", () => {
  it("recall runs headless (read-only tools), agentStop indexes and publishes each turn, remove restores the config", async () => {
    const stub = await stubCalling({
      name: "funes-recall",
      arguments: { query: "deploy staging bucket", k: 2 },
    });
    try {
      const u = user("copilot-user");
      // An earlier Copilot session to recall, and the user's own MCP server in a file laid out their way.
      const dir = join(u.home, ".copilot");
      cpSync(join(TRACES, "copilot", "session-state"), join(dir, "session-state"), { recursive: true });
      const userConfig =
        '{\n\t"mcpServers": {\n\t\t"notes": { "type": "local", "command": "true", "args": [], "tools": ["*"] }\n\t}\n}\n';
      writeFileSync(join(dir, "mcp-config.json"), userConfig);

      const add = await runFunes(["add", "copilot", "acme/cp", "--create", "--yes"], u);
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain("indexed 1 session (");
      const config = JSON.parse(readFileSync(join(dir, "mcp-config.json"), "utf8"));
      expect(Object.keys(config.mcpServers)).toEqual(["notes", "funes"]);
      expect(config.mcpServers.funes.args.slice(-2)).toEqual(["mcp", "acme/cp"]);
      const hooks = JSON.parse(readFileSync(join(dir, "hooks", "funes.json"), "utf8"));
      expect(hooks.hooks.agentStop[0].bash).toMatch(/funes-index\.sh" "copilot" "acme\/cp"$/);

      const work = join(u.home, "work");
      mkdirSync(work);
      const byok = {
        COPILOT_PROVIDER_BASE_URL: `${stub.url}/v1`,
        COPILOT_PROVIDER_API_KEY: "stub",
        COPILOT_MODEL: "stub-model",
        COPILOT_OFFLINE: "true",
      };
      const env = { ...u.env, ...byok };
      // No --allow-all-tools: funes's tools are annotated read-only, which Copilot runs without asking.
      const turn = await runCli(
        "copilot",
        ["-p", "the quasar relay port, and where do deploys push first?"],
        {
          env,
          cwd: work,
        },
      );
      expect(turn.kind === "ran" && turn.code, turn.kind === "ran" ? turn.stderr : "").toBe(0);
      const results = toolResults(stub);
      expect(
        results.some((r) => r.includes("The deploy script pushes to the staging bucket first.")),
        results.join("\n"),
      ).toBe(true);
      expect(results.some((r) => r.includes("→ get "))).toBe(true);

      const log = join(u.home, ".funes", "integrations", "copilot", "funes-sync.log");
      const reader = user("copilot-reader");
      expect(
        await readableElsewhere(reader, "acme/cp", "quasar relay port", "the quasar relay port"),
        existsSync(log) ? readFileSync(log, "utf8") : "(no hook log)",
      ).toBe(true);
      expect(readFileSync(log, "utf8")).toContain("index[copilot]: ok");
      const status = await runFunes(["status"], u);
      expect(status.stdout).toMatch(/copilot: 2 sessions/);
      expect(await until(() => hooksIdle(dirname(log)), 60_000)).toBe(true);

      // `funes ask copilot`: no tool offered, and the session Copilot always writes deleted after.
      const sessions = readdirSync(join(dir, "session-state")).sort();
      const asked = await askedWithoutTools(stub, ["ask", "copilot", "where does the quasar relay listen?"], {
        ...u,
        extra: { ...u.extra, ...byok },
      });
      expect(asked).toBe("Noted: the quasar relay listens on port 47123.\n");
      expect(readdirSync(join(dir, "session-state")).sort()).toEqual(sessions);

      const rm = await runFunes(["remove", "copilot"], u);
      expect(rm.code, rm.stderr).toBe(0);
      expect(readFileSync(join(dir, "mcp-config.json"), "utf8")).toBe(userConfig);
      expect(existsSync(join(dir, "hooks"))).toBe(false);
      expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
    } finally {
      await stub.close();
    }
  }, 300_000);
});
