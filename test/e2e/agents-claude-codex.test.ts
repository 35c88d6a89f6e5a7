/**
 * `funes add` / `funes remove` for Claude Code and Codex, driven through the real `claude` (2.1.197) and
 * `codex` (0.171.0) CLIs from npm with a temporary HOME, offline: registrations the CLIs themselves
 * report, hooks that really fire (Codex, against a loopback Responses API stub, with no bypass flag), and a
 * home restored byte for byte by `remove`.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { LocalStore } from "../../src/local/index.js";
import { agentUser, type CliEnv, runFunes } from "../helpers/cli.js";
import { readTree, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { codexStubArgs, type ModelStub, startModelStub } from "../helpers/model-stubs.js";
import { hooksIdle, until } from "../helpers/wait.js";

/** The permission rules `funes add claude --yes` adds: every tool `funes mcp` serves, each read-only. */
const CLAUDE_TOOLS = [
  "mcp__funes__recall",
  "mcp__funes__get",
  "mcp__funes__sessions",
  "mcp__funes__scan",
  "mcp__funes__status",
];

let t: { dir: string; cleanup: () => void };
let stub: ModelStub;

function user(name: string): CliEnv & { env: Record<string, string> } {
  return agentUser(t.dir, name, {
    HF_HUB_CACHE: TEST_HUB_CACHE,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    FAKE_KEY: "stub-key",
    FUNES_SERVER: "0",
  });
}

async function rows(funesHome: string): Promise<number> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  try {
    return (await store?.table.countRows()) ?? 0;
  } finally {
    store?.close();
  }
}

beforeAll(async () => {
  t = tempDir();
  stub = await startModelStub("Answer from the loopback model.");
});
afterAll(async () => {
  await stub.close();
  t.cleanup();
});

describe("funes add claude", () => {
  it("installs a plugin Claude lists and an MCP server Claude connects to; remove takes exactly those out", async () => {
    const u = user("claude-user");
    mkdirSync(join(u.home, ".claude", "projects", "-home-dev-app"), { recursive: true });
    copyFileSync(
      join(TRACES, "claude", "claude_session.jsonl"),
      join(u.home, ".claude", "projects", "-home-dev-app", "s1.jsonl"),
    );
    const claude = (args: string[]) => runCli("claude", args, { env: u.env, cwd: u.home });
    // The user's own MCP server, which funes must leave alone.
    expect((await claude(["mcp", "add", "notes", "-s", "user", "--", "echo", "notes"])).kind).toBe("ran");
    mkdirSync(join(u.home, ".claude"), { recursive: true });
    writeFileSync(
      join(u.home, ".claude", "settings.json"),
      '{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n',
    );

    const off = await runFunes(["add", "claude"], u);
    expect(off.code).toBe(2);
    expect(off.stderr).toContain("can't ask with --quiet or off a terminal — pass --yes");
    const add = await runFunes(["add", "claude", "--yes"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("indexed 1 session (");
    expect(add.stdout).toContain("installed the funes hooks plugin into Claude Code");
    expect(await rows(u.funesHome)).toBeGreaterThan(0);

    // The read-only tools allowed (the user said yes), beside the user's own rule.
    const settingsPath = join(u.home, ".claude", "settings.json");
    const allowed = () => JSON.parse(readFileSync(settingsPath, "utf8")).permissions?.allow ?? [];
    expect(allowed()).toEqual(["Bash(ls)", ...CLAUDE_TOOLS]);
    // So a headless turn can recall: the loopback model asks for the tool, Claude runs it unprompted.
    const caller = await startModelStub("Recalled it.", {
      name: "mcp__funes__recall",
      arguments: { query: "fix the failing test", k: 2 },
    });
    try {
      const turn = await runCli("claude", ["-p", "what did we do last time?", "--output-format", "json"], {
        env: { ...u.env, ANTHROPIC_BASE_URL: caller.url, ANTHROPIC_API_KEY: "sk-ant-stub" },
        cwd: u.home,
      });
      expect(turn.kind === "ran" && turn.stdout, turn.kind === "ran" ? turn.stderr : "").toContain(
        "Recalled it.",
      );
      type Block = { type: string; is_error?: boolean; content?: { text?: string }[] };
      const results = caller.requests.flatMap((r) =>
        ((r.body.messages ?? []) as { content: Block[] | string }[]).flatMap((m) =>
          typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
        ),
      );
      expect(results.length).toBeGreaterThan(0);
      expect(results.at(-1)?.is_error).not.toBe(true);
      expect(results.at(-1)?.content?.[0]?.text).toContain("→ get ");
    } finally {
      await caller.close();
    }
    // That turn's Stop hook indexes in the background: let its worker finish before remove deletes its folder.
    const scripts = join(u.home, ".funes", "integrations", "claude-plugin", "funes", "scripts");
    const log = join(scripts, "funes-sync.log");
    expect(
      await until(
        () =>
          existsSync(log) &&
          /index\[claude\]: (ok|FAILED)/.test(readFileSync(log, "utf8")) &&
          hooksIdle(scripts),
        60_000,
      ),
    ).toBe(true);

    const list = await claude(["mcp", "list"]);
    expect(list.kind === "ran" && list.stdout).toMatch(/funes: .*main\.js mcp - ✔ Connected/);
    const plugins = await claude(["plugin", "list"]);
    expect(plugins.kind === "ran" && plugins.stdout).toContain("funes@huggingface");
    const hooks = JSON.parse(
      readFileSync(
        join(u.home, ".funes", "integrations", "claude-plugin", "funes", "hooks", "hooks.json"),
        "utf8",
      ),
    );
    expect(Object.keys(hooks.hooks)).toEqual(["Stop"]);
    expect(hooks.hooks.Stop[0].hooks[0].command).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the variable Claude expands, kept literally
      'bash "${CLAUDE_PLUGIN_ROOT}/scripts/funes-index.sh" "claude"',
    );

    // Again: nothing to index, same result.
    const again = await runFunes(["add", "claude"], u);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("funes's read-only tools were already allowed in Claude Code");

    const rm = await runFunes(["remove", "claude"], u);
    expect(rm.code, rm.stderr).toBe(0);
    const after = await claude(["mcp", "list"]);
    expect(after.kind === "ran" && after.stdout).not.toContain("funes:");
    expect(after.kind === "ran" && after.stdout).toContain("notes:");
    const pluginsAfter = await claude(["plugin", "list"]);
    expect(pluginsAfter.kind === "ran" && pluginsAfter.stdout).not.toContain("funes@huggingface");
    expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
    expect(allowed()).toEqual(["Bash(ls)"]);
    expect((await runFunes(["remove", "claude"], u)).code).toBe(0);
  });

  it("remove leaves Claude's files as add found them: the same bytes, or the user's later edits in their layout", async () => {
    const u = user("claude-restore");
    const dir = join(u.home, ".claude");
    mkdirSync(dir, { recursive: true });
    const settings = join(dir, "settings.json");
    const mine =
      '{\n    "permissions": { "allow": ["Bash(ls)"] },\n    "theme": "dark",\n    "env": {"FOO": "1"}\n}\n';
    writeFileSync(settings, mine);
    const before = readTree(u.home);
    expect((await runFunes(["add", "claude", "--yes"], u)).code).toBe(0);
    expect(existsSync(join(dir, "plugins", "cache", "huggingface"))).toBe(true);
    expect((await runFunes(["remove", "claude"], u)).code).toBe(0);
    // Claude's own plugin and MCP commands rewrote settings.json, ~/.claude.json and its plugin registries,
    // and cached the plugin: all of it is as it was, byte for byte.
    expect(readTree(u.home)).toEqual(before);

    // Edited meanwhile: the user's new key stays, in their key order and indentation, with nothing of funes.
    expect((await runFunes(["add", "claude", "--yes"], u)).code).toBe(0);
    const edited = JSON.parse(readFileSync(settings, "utf8"));
    writeFileSync(settings, `${JSON.stringify({ ...edited, model: "opus" }, null, 2)}\n`);
    expect((await runFunes(["remove", "claude"], u)).code).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(
      '{\n    "permissions": {\n        "allow": [\n            "Bash(ls)"\n        ]\n    },\n    "theme": "dark",\n    "env": {\n        "FOO": "1"\n    },\n    "model": "opus"\n}\n',
    );
    expect(existsSync(join(dir, "plugins"))).toBe(false);
  });

  it("with CLAUDE_CONFIG_DIR set, indexes, registers and allows in that folder, as Claude reads it", async () => {
    const u = user("claude-moved");
    const cfg = join(t.dir, "claude-config");
    const env = { ...u, extra: { ...u.extra, CLAUDE_CONFIG_DIR: cfg } };
    const cliEnv = { ...u.env, CLAUDE_CONFIG_DIR: cfg };
    mkdirSync(join(cfg, "projects", "-home-dev-app"), { recursive: true });
    copyFileSync(
      join(TRACES, "claude", "claude_session.jsonl"),
      join(cfg, "projects", "-home-dev-app", "s1.jsonl"),
    );
    writeFileSync(join(cfg, "settings.json"), '{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n');
    const add = await runFunes(["add", "claude", "--yes"], env);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("indexed 1 session (");
    expect(add.stdout).toContain(
      `allowed funes's read-only tools (recall, get, sessions, scan, status) in ${join(cfg, "settings.json")}`,
    );
    const allowed = () =>
      JSON.parse(readFileSync(join(cfg, "settings.json"), "utf8")).permissions?.allow ?? [];
    expect(allowed()).toEqual(["Bash(ls)", ...CLAUDE_TOOLS]);
    expect(existsSync(join(u.home, ".claude"))).toBe(false);
    const list = await runCli("claude", ["mcp", "list"], { env: cliEnv, cwd: u.home });
    expect(list.kind === "ran" && list.stdout).toMatch(/funes: .*main\.js mcp - ✔ Connected/);
    // doctor finds the registration where Claude keeps it.
    const doctor = await runFunes(["doctor", "--json"], env);
    const checks = JSON.parse(doctor.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === "agent claude")).toMatchObject({ status: "ok" });
    const rm = await runFunes(["remove", "claude"], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(allowed()).toEqual(["Bash(ls)"]);
    const after = await runCli("claude", ["mcp", "list"], { env: cliEnv, cwd: u.home });
    expect(after.kind === "ran" && after.stdout).not.toContain("funes:");
  });

  it("fails before changing anything when claude is not installed", async () => {
    const u = user("no-claude");
    const r = await runFunes(["add", "claude", "--yes"], {
      ...u,
      extra: { ...u.extra, PATH: "/usr/bin:/bin" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("`claude` isn't on PATH");
    expect(existsSync(join(u.home, ".funes", "integrations"))).toBe(false);
  });
});

describe("funes add codex", () => {
  const userHooks =
    '{\n    "hooks": {\n        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo mine" } ] } ]\n    }\n}\n';
  const userConfig =
    '# my settings\nmodel_reasoning_effort = "high"\n\n[profiles.quick]\nmodel = "gpt-mini"\n';

  it("merges trusted hooks that fire in codex exec with no bypass flag; remove restores the user's files", async () => {
    const u = user("codex-user");
    const codexDir = join(u.home, ".codex");
    mkdirSync(codexDir, { recursive: true });
    writeFileSync(join(codexDir, "hooks.json"), userHooks);
    writeFileSync(join(codexDir, "config.toml"), userConfig);

    const add = await runFunes(["add", "codex"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("no codex sessions found yet");
    const hooks = JSON.parse(readFileSync(join(codexDir, "hooks.json"), "utf8"));
    expect(hooks.hooks.PreToolUse).toEqual(JSON.parse(userHooks).hooks.PreToolUse);
    expect(hooks.hooks.Stop[0].hooks[0].command).toContain("funes-index.sh");
    const config = readFileSync(join(codexDir, "config.toml"), "utf8");
    expect(config.startsWith(userConfig)).toBe(true);
    expect(config).toContain(`[hooks.state."${join(codexDir, "hooks.json")}:stop:0:0"]`);
    const mcp = await runCli("codex", ["mcp", "get", "funes"], { env: u.env });
    expect(mcp.kind === "ran" && mcp.stdout).toContain("args: ");

    // A real turn against the loopback model: the Stop hook runs (trusted), its worker indexes the session.
    const work = join(u.home, "work");
    mkdirSync(work);
    const exec = await runCli(
      "codex",
      ["exec", "--json", "--skip-git-repo-check", ...codexStubArgs(stub.url), "--", "what is in this repo?"],
      { env: u.env, cwd: work },
    );
    expect(exec.kind === "ran" && exec.stdout).toContain("Answer from the loopback model.");
    const log = join(codexDir, "hooks", "funes-sync.log");
    expect(
      await until(() => existsSync(log) && readFileSync(log, "utf8").includes("index[codex]: ok"), 60_000),
    ).toBe(true);
    expect(await rows(u.funesHome)).toBeGreaterThan(0);

    // A turn whose model calls funes's recall: Codex runs the read-only tool without asking, though
    // `codex exec` never asks (approval policy "never" refuses any call that needs approval).
    const caller = await startModelStub("Recalled it.", {
      namespace: "mcp__funes",
      name: "recall",
      arguments: { query: "what is in this repo", k: 2 },
    });
    try {
      const turn = await runCli(
        "codex",
        ["exec", "--json", "--skip-git-repo-check", ...codexStubArgs(caller.url), "--", "what did we do?"],
        { env: u.env, cwd: work },
      );
      const events = (turn.kind === "ran" ? turn.stdout : "")
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { type: string; item?: Record<string, unknown> });
      const call = events.find((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")?.item;
      expect(call, turn.kind === "ran" ? turn.stdout : turn.kind).toMatchObject({
        server: "funes",
        tool: "recall",
        status: "completed",
        error: null,
      });
      expect(JSON.stringify(call?.result)).toContain("→ get ");
      expect(turn.kind === "ran" && turn.stdout).toContain("Recalled it.");
    } finally {
      await caller.close();
    }
    // That turn's Stop hook indexes too: let its worker finish before remove takes the hooks out.
    expect(await until(() => readFileSync(log, "utf8").split("index[codex]: ok").length > 2, 60_000)).toBe(
      true,
    );

    const rm = await runFunes(["remove", "codex"], u);
    expect(rm.code, rm.stderr).toBe(0);
    expect(readFileSync(join(codexDir, "hooks.json"), "utf8")).toBe(userHooks);
    // Codex's own `mcp add`/`mcp remove` and funes's trust edits all undone: the user's bytes remain.
    expect(readFileSync(join(codexDir, "config.toml"), "utf8")).toBe(userConfig);
    expect(existsSync(join(codexDir, "hooks"))).toBe(false);
  });

  it("refuses hooks files Codex itself would skip, leaving them as they are", async () => {
    const u = user("codex-bad");
    const codexDir = join(u.home, ".codex");
    mkdirSync(codexDir, { recursive: true });
    const commented = '{\n  // mine\n  "hooks": {}\n}\n';
    writeFileSync(join(codexDir, "hooks.json"), commented);
    const r = await runFunes(["add", "codex"], u);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("isn't plain JSON");
    expect(readFileSync(join(codexDir, "hooks.json"), "utf8")).toBe(commented);
    const themed = '{"theme": "dark", "hooks": {}}\n';
    writeFileSync(join(codexDir, "hooks.json"), themed);
    const r2 = await runFunes(["add", "codex"], u);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('top-level key(s) "theme" that Codex rejects');
    expect(readFileSync(join(codexDir, "hooks.json"), "utf8")).toBe(themed);
    expect(existsSync(join(codexDir, "hooks"))).toBe(false);
  });
});
