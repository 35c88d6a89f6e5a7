/**
 * The README's shell examples, run as a reader runs them: each `funes …` line, in the README's order, on a
 * terminal (answering yes to what it asks), by a shell that finds the built CLI as `funes` on PATH, for a
 * user whose home holds one Claude Code session, against the loopback Hub stand-in (the models to pull, the
 * datasets to publish to and read) and a loopback model for `funes ask claude`. Lines that run another
 * program (the install) are listed with why they are not run here. Every `funes` example of the docs/
 * pages names a command and flags the built CLI has (checked against its `--help`, not run).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedModelDir, EMBEDDER_SPEC, RERANKER_SPECS } from "../src/models/index.js";
import { CLI, hubUser, runFunes } from "./helpers/cli.js";
import { ROOT, readTree, TEST_HUB_CACHE, tempDir } from "./helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "./helpers/hub-standin.js";
import { type ModelStub, startModelStub } from "./helpers/model-stubs.js";
import { funesWords, type ShellExample, shellExamples } from "./helpers/shell-examples.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const EXAMPLES = shellExamples(README);
const TOKEN = "hf_standintokenforreadmetests";
const ANSWER = "We pinned it for the deadlock on two cores.";

/** README lines that run another program than funes, and why this test does not run them. */
const NOT_RUN: Record<string, string> = {
  "export ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip":
    "sets the variables for the npm lines below; .ci/run installs with the same two",
  "npm ci": "installs the lock, which .ci/run does before this test runs",
  "npm pack":
    "test/package.test.ts packs a copy of the checkout without dist/ and finds dist/cli/main.js in it",
  "npm install -g ./funes-0.1.0.tgz":
    "a global install is not done by a test; the file name is checked below, the package's contents by test/package.test.ts",
};

/** The session the README's recall, get, ask and forget examples find. */
const SESSION = "6f1c2a4e-8b1d-4c3e-9a7f-2d5e8c1b4a90";
const TURNS: [string, "user" | "assistant", string][] = [
  ["c41e9b2a-5d7f-4e1a-8c3b-9f2e6d1a7b54", "user", "why did we pin lancedb to 0.31.0?"],
  [
    "d2a7f3c1-6b8e-4f2d-9a1c-3e5b7d9f1a23",
    "assistant",
    "We pinned @lancedb/lancedb to 0.31.0 because 0.30 hit a deadlock building the full-text index on two cores unless LANCE_CPU_THREADS was set to 2 or more.",
  ],
  ["e8b4c2d6-1f3a-4b5c-8d7e-6a9f0b2c4d81", "user", "what is on the release checklist?"],
  [
    "f1c3e5a7-9b2d-4c6e-8f1a-2b4d6e8f0a13",
    "assistant",
    "The release checklist: run npm run check, bump the version in package.json, npm pack, then install the tarball globally and run funes doctor.",
  ],
  [
    "a3d5f7b9-2c4e-4a6b-9d8f-1e3a5c7b9d02",
    "user",
    "the staging token is sk-proj-abc123, use it for the deploy",
  ],
  ["b7e9a1c3-5d2f-4b8a-8c6e-0f2a4b6d8e91", "assistant", "Noted: only for the staging deploy."],
];

/** A Claude Code transcript of `turns`, two days old, one minute apart. */
function claudeSession(session: string, turns: [string, "user" | "assistant", string][]): string {
  const start = Date.now() - 2 * 86_400_000;
  return turns
    .map(([uuid, role, text], i) =>
      JSON.stringify({
        parentUuid: i === 0 ? null : turns[i - 1]?.[0],
        isSidechain: false,
        type: role,
        sessionId: session,
        uuid,
        timestamp: new Date(start + i * 60_000).toISOString(),
        cwd: "/home/dev/app",
        message:
          role === "user"
            ? { role, content: text }
            : { role, type: "message", id: `msg_${i}`, model: "claude-x", content: [{ type: "text", text }] },
      }),
    )
    .map((l) => `${l}\n`)
    .join("");
}

/** What a README line must print beyond exiting 0 without an error line (by the line's start). */
const EXPECT: [RegExp, (out: string) => void][] = [
  [/^funes models pull/, (o) => expect(o).toContain("ready")],
  [/^funes add claude/, (o) => expect(o).toContain("Claude Code")],
  [/^funes add codex acme\/funes-memory/, (o) => expect(o).toContain("acme/funes-memory")],
  [/^funes status$/, (o) => expect(o).toMatch(/agents: .*claude.*codex/)],
  [/^funes recall /, (o) => expect(o).toContain("→ funes get")],
  [/^funes get /, (o) => expect(o).toContain("deadlock building the full-text index")],
  [/^funes ask claude /, (o) => expect(o).toContain(ANSWER)],
  [/^funes forget /, (o) => expect(o).toContain("forget from hf://datasets/acme/funes-memory")],
  [/^funes --help/, (o) => expect(o).toContain("Usage:")],
];

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let stub: ModelStub;
let env: Record<string, string>;

/** Runs one README line with bash on a pseudo-terminal, answering `y` to every question it asks. */
function runLine(line: string): Promise<{ code: number | null; out: string }> {
  const child = spawn("script", ["-qefc", line, "/dev/null"], {
    env: { ...env, SHELL: "/bin/bash" },
    cwd: env.HOME,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let asked = 0;
  const timer = setTimeout(() => child.kill("SIGKILL"), 170_000);
  const read = (d: Buffer) => {
    out += d;
    const prompts = out.split(/\[(?:y\/N|Y\/n)\] /).length - 1;
    while (asked < prompts) {
      asked++;
      child.stdin?.write("y\n");
    }
  };
  child.stdout?.on("data", read);
  child.stderr?.on("data", read);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      child.stdin?.end();
      resolve({ code, out: out.replaceAll("\r", "") });
    }),
  );
}

beforeAll(async () => {
  t = tempDir("funes-readme-");
  const minilm = RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"];
  hub = await startHubStandin(
    new Map([
      [
        EMBEDDER_SPEC.repo,
        {
          commit: EMBEDDER_SPEC.revision,
          files: readTree(cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string),
        },
      ],
      [
        minilm.repo,
        { commit: minilm.revision, files: readTree(cachedModelDir(TEST_HUB_CACHE, minilm) as string) },
      ],
    ]),
  );
  stub = await startModelStub(ANSWER);

  // A teammate has published acme/team-memory (the README reads it beside the local memory).
  const mate = hubUser({ dir: t.dir, name: "mate", hubUrl: hub.url, token: TOKEN });
  const mateProjects = join(mate.home, ".claude", "projects", "-home-mate-app");
  mkdirSync(mateProjects, { recursive: true });
  writeFileSync(
    join(mateProjects, "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e.jsonl"),
    claudeSession("0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", [
      ["1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "user", "should we pin lancedb in the app too?"],
      ["2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", "assistant", "Yes: pin lancedb exactly, as the CLI does."],
    ]),
  );
  expect((await runFunes(["index", "--yes"], mate)).code).toBe(0);
  const pushed = await runFunes(["push", "acme/team-memory", "--create", "--yes"], mate);
  expect(pushed.code, pushed.stderr).toBe(0);

  // The reader: one Claude Code session, `funes` on PATH, the agents' CLIs beside it.
  const home = join(t.dir, "reader");
  const projects = join(home, ".claude", "projects", "-home-dev-app");
  mkdirSync(projects, { recursive: true });
  writeFileSync(join(projects, `${SESSION}.jsonl`), claudeSession(SESSION, TURNS));
  const bin = join(t.dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "funes"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "funes"), 0o755);
  env = {
    PATH: `${bin}:${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    HOME: home,
    FUNES_HOME: join(home, ".funes"),
    HF_ENDPOINT: hub.url,
    HF_TOKEN: TOKEN,
    TERM: "dumb",
    NO_COLOR: "1",
    FUNES_THREADS: "1",
    // No model server left running after the test (recall loads the models in its own process instead).
    FUNES_SERVER: "0",
    ANTHROPIC_BASE_URL: stub.url,
    ANTHROPIC_API_KEY: "sk-ant-stub",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
});
afterAll(async () => {
  await stub?.close();
  await hub?.close();
  t?.cleanup();
});

describe("README.md's shell examples", () => {
  it("are all either run below or listed with why not", () => {
    const other = EXAMPLES.filter((e) => funesWords(e) === null).map((e) => e.line);
    expect(other.filter((l) => !(l in NOT_RUN))).toEqual([]);
    expect(Object.keys(NOT_RUN).filter((l) => !other.includes(l))).toEqual([]);
    // Enough of the README is exercised for this test to mean something.
    expect(EXAMPLES.filter((e) => funesWords(e) !== null).length).toBeGreaterThanOrEqual(12);
  });

  it("name the tarball npm pack writes", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    expect(README).toContain(`npm install -g ./${pkg.name}-${pkg.version}.tgz`);
  });

  for (const example of EXAMPLES.filter((e) => funesWords(e) !== null)) {
    it(`runs: ${example.line}`, async () => {
      const r = await runLine(example.line);
      expect(r.code, r.out).toBe(0);
      // An error is one `funes: …` line (progress lines, `funes: indexing …`, end in an ellipsis).
      expect(r.out.split("\n").filter((l) => l.startsWith("funes: ") && !l.endsWith("…"))).toEqual([]);
      // The terminal wraps long lines at its width: checked as one line of words.
      const words = r.out.replace(/\s+/g, " ");
      for (const [when, check] of EXPECT) if (when.test(example.line)) check(words);
    });
  }

  it("whose completion line loads a completion function into bash", async () => {
    const r = await runFunes(["completion", "bash"], { home: t.dir, funesHome: join(t.dir, "f") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/complete .*funes/);
  });
});

/** Each `--help` of the built CLI, by command (`""` for funes's own). */
const helps = new Map<string, string>();
async function helpOf(command: string): Promise<string> {
  const known = helps.get(command);
  if (known !== undefined) return known;
  const r = await runFunes(command === "" ? ["--help"] : [command, "--help"], {
    home: t.dir,
    funesHome: join(t.dir, "help-funes"),
  });
  expect(r.code, `funes ${command} --help: ${r.stderr}`).toBe(0);
  helps.set(command, r.stdout);
  return r.stdout;
}

describe("the docs' funes examples", () => {
  const pages = [
    "README.md",
    "CONTRIBUTING.md",
    ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`),
  ].filter((p) => p.endsWith(".md"));
  for (const page of pages) {
    const examples: ShellExample[] = shellExamples(readFileSync(join(ROOT, page), "utf8"));
    const funes = examples.filter((e) => funesWords(e) !== null);
    if (funes.length === 0) continue;
    it(`in ${page} name commands and flags the CLI has`, async () => {
      for (const e of funes) {
        const words = funesWords(e) as string[];
        const command = words[0] !== undefined && !words[0].startsWith("-") ? words[0] : "";
        const help = await helpOf(command);
        const end = words.indexOf("--");
        for (const w of end === -1 ? words : words.slice(0, end)) {
          if (!w.startsWith("-") || w === "-" || /^-\d/.test(w)) continue;
          const flag = w.split("=")[0] as string;
          const shown = new RegExp(
            `(^|[\\s,])${flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([\\s,<[]|$)`,
            "m",
          );
          expect(shown.test(help), `${page}: "${e.line}": ${flag} is not in funes ${command} --help`).toBe(
            true,
          );
        }
      }
    });
  }
});
