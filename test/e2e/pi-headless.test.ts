/**
 * pi runs headless (`pi -p`) by letting Node run out of work: the pi extension's `funes mcp` child must
 * never keep it alive. Tested two ways: the extension loaded by a plain Node host with pi's event API (what
 * pi's loader gives it), which must exit on its own with or without the `session_shutdown` event and leave
 * no funes child behind; and, when `@mariozechner/pi-coding-agent` is installed, a real `pi -p` turn against
 * a loopback Anthropic-style model that calls `recall` and exits.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { ROOT, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { startModelStub } from "../helpers/model-stubs.js";
import { until } from "../helpers/wait.js";

const PI_BIN = join(ROOT, "node_modules", ".bin", "pi");
const HAS_PI = existsSync(join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "package.json"));
/** A hang is the failure this file looks for; a run that has not ended by then never will. */
const HANG_MS = 45_000;

let t: { dir: string; cleanup: () => void };
beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

/** A user with pi sessions indexed; `pi` on PATH is `piBin` (a recording stand-in when absent). */
async function piUser(name: string, piBin?: string): Promise<CliEnv & { env: Record<string, string> }> {
  const home = join(t.dir, name);
  const bin = join(home, "bin");
  mkdirSync(bin, { recursive: true });
  if (piBin === undefined) {
    writeFileSync(
      join(bin, "pi"),
      '#!/usr/bin/env bash\n[ "$1" = "--version" ] && echo "pi 0.0.0"\nexit 0\n',
    );
    chmodSync(join(bin, "pi"), 0o755);
  }
  const extra = {
    PATH: `${piBin === undefined ? bin : join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HF_HUB_CACHE: TEST_HUB_CACHE,
  };
  const funesHome = join(home, ".funes");
  const sessions = join(home, ".pi", "agent", "sessions", "--home-dev-app--");
  mkdirSync(sessions, { recursive: true });
  copyFileSync(join(TRACES, "pi", "pi_session.jsonl"), join(sessions, "s.jsonl"));
  const u = { home, funesHome, extra };
  expect((await runFunes(["index"], u)).code).toBe(0);
  const add = await runFunes(["add", "pi"], u);
  expect(add.code, add.stderr).toBe(0);
  return {
    ...u,
    env: { ...extra, HOME: home, FUNES_HOME: funesHome, FUNES_THREADS: "1", FUNES_SERVER: "0" },
  };
}

/** Runs a command; `code` is null when it had not ended after HANG_MS (then it is killed). */
function runUntilExit(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ code: null, stdout, stderr: `${stderr}\n(still running after ${HANG_MS} ms)` });
    }, HANG_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Pids of live `funes mcp` processes run for this funes home (Linux /proc; empty elsewhere). */
function funesChildren(funesHome: string): number[] {
  if (!existsSync("/proc")) return [];
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (cmd.includes("mcp") && env.includes(`FUNES_HOME=${funesHome}`)) found.push(Number(pid));
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return found;
}

/** A Node host that loads the extension the way pi does, calls `recall`, and then (maybe) shuts down. */
const HOST = `
import { pathToFileURL } from "node:url";
const [ext, shutdown] = process.argv.slice(2);
const tools = new Map();
const handlers = new Map();
const pi = {
  registerTool: (tool) => tools.set(tool.name, tool),
  on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
};
(await import(pathToFileURL(ext).href)).default(pi);
const hit = await tools.get("recall").execute("c1", { query: "hello", k: 1 });
process.stdout.write(hit.content[0].text.split("\\n")[1] + "\\n");
if (shutdown === "shutdown") for (const h of handlers.get("session_shutdown") ?? []) await h({ type: "session_shutdown" }, {});
`;

describe("the pi extension's funes child", () => {
  it("never keeps a headless host alive, with or without session_shutdown, and does not outlive it", async () => {
    const u = await piUser("pi-host");
    // The extension as installed: the built module, plain JavaScript.
    const ext = join(u.home, ".funes", "integrations", "pi", "index.js");
    const host = join(u.home, "host.mjs");
    writeFileSync(host, HOST);
    for (const mode of ["shutdown", "no-event"]) {
      const r = await runUntilExit(
        process.execPath,
        [host, ext, mode],
        { ...u.env, PATH: process.env.PATH ?? "" },
        ROOT,
      );
      expect(r.code, `${mode}: ${r.stderr}`).toBe(0);
      expect(r.stdout, mode).toMatch(/^ {2}→ get \S+ \S+/);
      expect(await until(() => funesChildren(u.funesHome).length === 0, 10_000), mode).toBe(true);
    }
  });
});

describe.skipIf(!HAS_PI)("a real pi -p turn (needs @mariozechner/pi-coding-agent)", () => {
  it("calls the extension's recall against a loopback model and exits on its own", async () => {
    const u = await piUser("pi-real", PI_BIN);
    const stub = await startModelStub("Recalled it.", {
      name: "recall",
      arguments: { query: "hello", k: 1 },
    });
    try {
      mkdirSync(join(u.home, ".pi", "agent"), { recursive: true });
      writeFileSync(
        join(u.home, ".pi", "agent", "models.json"),
        JSON.stringify({
          providers: {
            stub: {
              baseUrl: stub.url,
              api: "anthropic-messages",
              apiKey: "stub-key",
              models: [
                {
                  id: "claude-stub",
                  reasoning: false,
                  input: ["text"],
                  contextWindow: 200000,
                  maxTokens: 4096,
                },
              ],
            },
          },
        }),
      );
      const work = join(u.home, "work");
      mkdirSync(work, { recursive: true });
      const r = await runUntilExit(
        PI_BIN,
        ["--provider", "stub", "--model", "claude-stub", "-p", "what did we do last time?"],
        u.env,
        work,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Recalled it.");
      const results = stub.requests
        .map((q) => JSON.stringify(q.body.messages ?? []))
        .filter((m) => m.includes('"type":"tool_result"'));
      expect(results.at(-1)).toContain("→ get ");
      expect(await until(() => funesChildren(u.funesHome).length === 0)).toBe(true);
    } finally {
      await stub.close();
    }
  });
});
