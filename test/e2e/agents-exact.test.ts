/**
 * `funes add` and `funes remove` are exact, for every agent, with the real CLIs from npm (Hermes, not on
 * npm, through a stand-in): the user's config files are written their own way (comments where the agent
 * reads them, their indentation, no final newline…); a second `add` leaves every file in the agent's
 * folders byte for byte and with its modification time; `remove` after `add` leaves every file there as
 * it was before `add`, byte for byte, and no file that was not there (docs/agents.md#what-add-and-remove-change).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUser, type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";

let t: { dir: string; cleanup: () => void };

beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

/** Every file under the given folders (and single files), by path: its bytes and modification time. */
function snapshot(paths: string[]): Map<string, { bytes: string; mtime: number }> {
  const out = new Map<string, { bytes: string; mtime: number }>();
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
    else out.set(p, { bytes: readFileSync(p).toString("base64"), mtime: st.mtimeMs });
  };
  for (const p of paths) walk(p);
  return out;
}

/** The paths (relative to the home) whose bytes differ between two snapshots, or that only one has. */
function changed(
  home: string,
  a: Map<string, { bytes: string; mtime: number }>,
  b: Map<string, { bytes: string; mtime: number }>,
  mtime = false,
): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys]
    .filter((k) => a.get(k)?.bytes !== b.get(k)?.bytes || (mtime && a.get(k)?.mtime !== b.get(k)?.mtime))
    .map((k) => relative(home, k))
    .sort();
}

interface Case {
  agent: string;
  /** Lays out the user's own files; returns the folders (and files) to compare, under the home. */
  setup: (home: string) => string[];
  /** More environment for the agent's CLI. */
  env?: Record<string, string>;
}

/** A stand-in agent CLI on PATH that records its arguments and exits 0 (Hermes is not on npm). */
function standIn(home: string, name: string): void {
  const bin = join(home, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, name), `#!/usr/bin/env bash\necho "$*" >> "${join(bin, `${name}.log`)}"\nexit 0\n`);
  chmodSync(join(bin, name), 0o755);
}

const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};

const CASES: Case[] = [
  {
    agent: "claude",
    setup: (home) => {
      write(
        join(home, ".claude", "settings.json"),
        '{\n    "permissions": {"allow": ["Bash(ls)"]},\n    "model": "opus",\n    "env": {"A": "1"}\n}',
      );
      write(join(home, ".claude.json"), '{\n  "theme": "dark",\n  "mcpServers": {}\n}\n');
      return [join(home, ".claude"), join(home, ".claude.json")];
    },
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
  },
  {
    agent: "codex",
    setup: (home) => {
      write(
        join(home, ".codex", "config.toml"),
        '# my codex config\nmodel = "o4"   # the usual\n\n[profiles.fast]\nmodel = "mini"\n',
      );
      write(
        join(home, ".codex", "hooks.json"),
        '{\n\t"hooks": {\n\t\t"PreToolUse": [{"hooks": [{"type": "command", "command": "echo mine"}]}]\n\t}\n}\n',
      );
      return [join(home, ".codex")];
    },
  },
  {
    agent: "gemini",
    setup: (home) => {
      write(
        join(home, ".gemini", "settings.json"),
        '{\n  // Gemini CLI reads comments here\n  "ui": { "theme": "ANSI" }, // mine\n  "mcpServers": {\n    "notes": { "command": "notes" }\n  }\n}\n',
      );
      return [join(home, ".gemini")];
    },
  },
  {
    agent: "qwen",
    setup: (home) => {
      write(
        join(home, ".qwen", "settings.json"),
        '{\n  // mine\n  "tools": { "visible": ["read_file"] },\n  "general": { "vimMode": true }\n}',
      );
      return [join(home, ".qwen")];
    },
  },
  {
    agent: "opencode",
    setup: (home) => {
      write(
        join(home, ".config", "opencode", "opencode.jsonc"),
        '{\n  "$schema": "https://opencode.ai/config.json",\n  // my models\n  "model": "stub/stub-model",\n}\n',
      );
      return [join(home, ".config", "opencode")];
    },
  },
  {
    agent: "copilot",
    setup: (home) => {
      write(
        join(home, ".copilot", "mcp-config.json"),
        '{\n\t"mcpServers": {\n\t\t"notes": { "type": "local", "command": "true", "args": [], "tools": ["*"] }\n\t}\n}',
      );
      return [join(home, ".copilot")];
    },
  },
  {
    agent: "pi",
    setup: (home) => {
      write(
        join(home, ".pi", "agent", "settings.json"),
        '{\n    "theme": "dark",\n    "defaultThinkingLevel": "low"\n}\n',
      );
      return [join(home, ".pi", "agent")];
    },
  },
  {
    agent: "hermes",
    setup: (home) => {
      standIn(home, "hermes");
      write(
        join(home, ".hermes", "config.yaml"),
        "# Hermes settings (mine)\nmodel:   hermes-3   # aligned\nhooks:\n  post_llm_call:\n  - command: 'echo mine'\n    timeout: 5\n",
      );
      write(join(home, ".hermes", "shell-hooks-allowlist.json"), '{"approvals": [], "version": 1}');
      return [join(home, ".hermes")];
    },
  },
];

describe("funes add and remove are exact", () => {
  for (const c of CASES)
    it(`${c.agent}: a second add changes no file, and remove leaves every file as it was before add`, async () => {
      const u: CliEnv & { env: Record<string, string> } = agentUser(t.dir, `${c.agent}-exact`, {
        HF_HUB_CACHE: TEST_HUB_CACHE,
        FUNES_SERVER: "0",
        ...(c.env ?? {}),
      });
      const paths = c.setup(u.home);
      if (c.agent === "hermes")
        u.extra = { ...u.extra, PATH: `${join(u.home, "bin")}:${u.extra?.PATH ?? ""}` };
      const before = snapshot(paths);

      const add = await runFunes(["add", c.agent, "--yes"], u);
      expect(add.code, `${add.stdout}${add.stderr}`).toBe(0);
      const added = snapshot(paths);
      expect(changed(u.home, before, added).length, "add changed nothing").toBeGreaterThan(0);

      const again = await runFunes(["add", c.agent, "--yes"], u);
      expect(again.code, `${again.stdout}${again.stderr}`).toBe(0);
      const second = changed(u.home, added, snapshot(paths), true);
      expect(second, `changed by the second add: ${second.join(", ")}`).toEqual([]);

      const rm = await runFunes(["remove", c.agent], u);
      expect(rm.code, `${rm.stdout}${rm.stderr}`).toBe(0);
      const after = changed(u.home, before, snapshot(paths));
      expect(after, `different from before add: ${after.join(", ")}`).toEqual([]);
      const left = join(u.home, ".funes", "integrations");
      expect(existsSync(left) ? readdirSync(left) : [], "integration files left").toEqual([]);
    }, 180_000);
});
