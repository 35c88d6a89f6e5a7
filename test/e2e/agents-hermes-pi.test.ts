/**
 * `funes add` / `funes remove` for Hermes and pi, whose CLIs are not on npm: their configuration files get
 * the same scrutiny (comments, anchors, other keys, exact restore), the CLIs are recording stand-ins on PATH,
 * and the pi extension funes writes is loaded and its tools run against the real `funes mcp`.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { until } from "../helpers/wait.js";

let t: { dir: string; cleanup: () => void };

/** A stand-in agent CLI that appends its argv and stdin to `<log>` and prints `out` for `mcp remove`. */
function fakeCli(binDir: string, name: string, removeAbsent: string): string {
  const log = join(binDir, `${name}.log`);
  mkdirSync(binDir, { recursive: true });
  const script = `#!/usr/bin/env bash
echo "$*" >> "${log}"
if [ "$1" = "--version" ]; then echo "${name} 1.0.0"; exit 0; fi
if [ ! -t 0 ]; then input="$(cat)"; [ -n "$input" ] && printf 'stdin:%s\\n' "$input" | tr '\\n' ' ' >> "${log}" && echo >> "${log}"; fi
if [ "$2" = "remove" ] && [ -e "${binDir}/${name}.absent" ]; then echo "${removeAbsent}" >&2; exit 1; fi
exit 0
`;
  writeFileSync(join(binDir, name), script);
  chmodSync(join(binDir, name), 0o755);
  return log;
}

function user(name: string): CliEnv & { bin: string } {
  const home = join(t.dir, name);
  const bin = join(home, "bin");
  mkdirSync(bin, { recursive: true });
  return {
    home,
    bin,
    funesHome: join(home, ".funes"),
    extra: { PATH: `${bin}:/usr/bin:/bin`, HF_HUB_CACHE: TEST_HUB_CACHE },
  };
}

beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

const USER_YAML = `# Hermes settings (mine)
defaults: &defaults
  model: hermes-3
  temperature: 0.2
agent:
  <<: *defaults
hooks:
  post_llm_call:
    - command: "echo mine"   # my own hook
      timeout: 5
`;

describe("funes add hermes", () => {
  it("adds its hooks and approvals keeping comments and anchors, and remove restores both files exactly", async () => {
    const u = user("hermes-user");
    const log = fakeCli(u.bin, "hermes", "Server 'funes' not found in config");
    const dir = join(u.home, ".hermes");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.yaml"), USER_YAML);
    const allow = '{"approvals": [{"event": "post_llm_call", "command": "echo mine"}], "version": 1}';
    writeFileSync(join(dir, "shell-hooks-allowlist.json"), allow);

    const add = await runFunes(["add", "hermes"], u);
    expect(add.code, add.stderr).toBe(0);
    const yaml = readFileSync(join(dir, "config.yaml"), "utf8");
    expect(yaml).toContain("# Hermes settings (mine)");
    expect(yaml).toContain("defaults: &defaults");
    expect(yaml).toContain("<<: *defaults");
    expect(yaml).toContain("# my own hook");
    expect(yaml).toMatch(/- command: bash ".*\/\.hermes\/hooks\/funes-index\.sh" "hermes"\n\s+timeout: 30/);
    const approvals = JSON.parse(readFileSync(join(dir, "shell-hooks-allowlist.json"), "utf8"));
    expect(approvals.version).toBe(1);
    expect(approvals.approvals).toHaveLength(2);
    expect(approvals.approvals[1].command).toContain("funes-index.sh");
    expect(readFileSync(log, "utf8")).toMatch(
      /mcp add funes --command \S+ --args \S+main\.js mcp\nstdin:y y/,
    );
    expect(existsSync(join(dir, "hooks", "funes-index.sh"))).toBe(true);

    // Idempotent: a second add changes nothing.
    expect((await runFunes(["add", "hermes"], u)).code).toBe(0);
    expect(readFileSync(join(dir, "config.yaml"), "utf8")).toBe(yaml);

    const rm = await runFunes(["remove", "hermes"], u);
    expect(rm.code, rm.stderr).toBe(0);
    expect(readFileSync(join(dir, "config.yaml"), "utf8")).toBe(USER_YAML);
    expect(readFileSync(join(dir, "shell-hooks-allowlist.json"), "utf8")).toBe(allow);
    expect(existsSync(join(dir, "hooks"))).toBe(false);
    expect(readFileSync(log, "utf8")).toContain("mcp remove funes");
  });

  it("wires the Hermes that HERMES_HOME moved, and remove takes it out there", async () => {
    const u = user("hermes-moved");
    fakeCli(u.bin, "hermes", "Server 'funes' not found in config");
    const moved = join(t.dir, "hermes-elsewhere");
    mkdirSync(moved, { recursive: true });
    writeFileSync(join(moved, "config.yaml"), USER_YAML);
    const env = { ...u, extra: { ...u.extra, HERMES_HOME: moved } };
    const add = await runFunes(["add", "hermes"], env);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(`installed funes hooks into ${join(moved, "config.yaml")}`);
    const yaml = readFileSync(join(moved, "config.yaml"), "utf8");
    expect(yaml).toContain(`bash "${join(moved, "hooks", "funes-index.sh")}" "hermes"`);
    expect(existsSync(join(moved, "hooks", "funes-index.sh"))).toBe(true);
    expect(existsSync(join(u.home, ".hermes"))).toBe(false);
    const rm = await runFunes(["remove", "hermes"], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(readFileSync(join(moved, "config.yaml"), "utf8")).toBe(USER_YAML);
    expect(existsSync(join(moved, "hooks"))).toBe(false);
  });

  it("says what is wrong with a config it cannot edit, a missing CLI, and leaves files alone", async () => {
    const u = user("hermes-bad");
    fakeCli(u.bin, "hermes", "Server 'funes' not found in config");
    const dir = join(u.home, ".hermes");
    mkdirSync(dir, { recursive: true });
    const broken = "hooks: [unclosed\n";
    writeFileSync(join(dir, "config.yaml"), broken);
    const r = await runFunes(["add", "hermes"], u);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("isn't valid YAML");
    expect(readFileSync(join(dir, "config.yaml"), "utf8")).toBe(broken);
    const none = await runFunes(["add", "hermes"], { ...u, extra: { ...u.extra, PATH: "/usr/bin:/bin" } });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("`hermes` isn't on PATH");
  });
});

describe("funes add pi", () => {
  it("writes an extension whose tools answer from funes mcp, registers it, and remove takes it out", async () => {
    const u = user("pi-user");
    const log = fakeCli(u.bin, "pi", "No matching package found for");
    const sessions = join(u.home, ".pi", "agent", "sessions", "--home-dev-app--");
    mkdirSync(sessions, { recursive: true });
    copyFileSync(join(TRACES, "pi", "pi_session.jsonl"), join(sessions, "s.jsonl"));
    expect((await runFunes(["index"], u)).code).toBe(0);

    const add = await runFunes(["add", "pi"], u);
    expect(add.code, add.stderr).toBe(0);
    const dir = join(u.home, ".funes", "integrations", "pi");
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).pi.extensions).toEqual(["./index.js"]);
    expect(readFileSync(log, "utf8")).toContain(`install ${dir}`);

    // Load the extension as pi would and call its tools: they reach the real `funes mcp`.
    const tools = new Map<
      string,
      { execute: (id: string, p: Record<string, unknown>) => Promise<{ content: { text: string }[] }> }
    >();
    const saved = {
      HOME: process.env.HOME,
      FUNES_HOME: process.env.FUNES_HOME,
      HF_HUB_CACHE: process.env.HF_HUB_CACHE,
      HF_ENDPOINT: process.env.HF_ENDPOINT,
    };
    Object.assign(process.env, { HOME: u.home, FUNES_HOME: u.funesHome, HF_HUB_CACHE: TEST_HUB_CACHE });
    try {
      const mod = (await import(pathToFileURL(join(dir, "index.js")).href)) as {
        default: (pi: unknown) => void;
      };
      const handlers = new Map<string, () => void>();
      mod.default({
        registerTool: (tool: { name: string }) => tools.set(tool.name, tool as never),
        on: (event: string, fn: () => void) => handlers.set(event, fn),
      });
      expect([...tools.keys()].sort()).toEqual(["get", "recall"]);
      const hit = await tools.get("recall")?.execute("c1", { query: "hello", k: 2 });
      const text = hit?.content[0]?.text ?? "";
      expect(text).toMatch(/→ get (\S+) (\S+)/);
      const [, sid, turn] = /→ get (\S+) (\S+)/.exec(text) ?? [];
      const turnText = await tools.get("get")?.execute("c2", { session_id: sid, turn_uuid: turn, window: 0 });
      expect(turnText?.content[0]?.text).toContain(String(turn));

      // pi has no hooks: the extension's session_shutdown handler runs the index hook (no memory bound)…
      const hookLog = join(dir, "funes-sync.log");
      const logged = (s: string) =>
        until(() => existsSync(hookLog) && readFileSync(hookLog, "utf8").includes(s));
      handlers.get("session_shutdown")?.();
      expect(await logged("index[pi]: ok")).toBe(true);
      // …and with a memory bound, the boundary push for pi (here to a Hub nobody answers: it says why).
      writeFileSync(join(dir, "memory"), "acme/pi-mem\n");
      process.env.HF_ENDPOINT = "http://127.0.0.1:9";
      handlers.get("session_shutdown")?.();
      expect(
        await logged("push[acme/pi-mem]: FAILED (exit 1) — hf://datasets/acme/pi-mem is unreachable"),
      ).toBe(true);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }

    const rm = await runFunes(["remove", "pi"], u);
    expect(rm.code, rm.stderr).toBe(0);
    expect(readFileSync(log, "utf8")).toContain(`remove ${dir}`);
    expect(existsSync(dir)).toBe(false);
  });
});
