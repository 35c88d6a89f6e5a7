/** Runs the built CLI as a user would: a child process with its own HOME and FUNES_HOME. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, TEST_HUB_CACHE } from "./fixtures.js";

/** The built entry point (vitest's global setup builds it). */
export const CLI = join(ROOT, "dist", "cli", "main.js");

/** What a run printed and how it ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment of a test user. */
export interface CliEnv {
  home: string;
  funesHome: string;
  /** More variables (HF_HUB_CACHE, HF_ENDPOINT, …). */
  extra?: Record<string, string>;
}

/** Starts `funes …` without waiting. */
export function startFunes(args: string[], env: CliEnv): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

let running = false;

/**
 * Node's own `import()` of a built module: what the executable runs, loaded as Node loads it (the test
 * runner's transform would evaluate the ≈ 180 source modules again in every test file, ≈ 2 s each).
 */
const nativeImport = <M>(path: string) => import(/* @vite-ignore */ pathToFileURL(path).href) as Promise<M>;

/**
 * Runs `funes …` to completion inside this process (`runCli`, what the executable calls) with what it prints
 * captured: for what a command says and does, where no process boundary is under test (kills, signals, locks,
 * hooks, MCP over stdio and concurrent runs use `spawnFunes`). The environment is the test user's only. A call
 * made while another is running (two at once) runs in a child process, as stdout is the process's own.
 */
export async function runFunes(args: string[], env: CliEnv): Promise<CliResult> {
  if (running) return spawnFunes(args, env);
  running = true;
  const con = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const out = capture(process.stdout);
  const err = capture(process.stderr);
  try {
    const [{ runCli }, { guardStream }] = await Promise.all([
      nativeImport<typeof import("../../src/cli/app.js")>(join(ROOT, "dist", "cli", "app.js")),
      nativeImport<typeof import("../../src/cli/output-guard.js")>(
        join(ROOT, "dist", "cli", "output-guard.js"),
      ),
    ]);
    // As the executable does before it runs the command line (cli/main.ts).
    guardStream(process.stdout);
    guardStream(process.stderr);
    // console's output goes where a process's would: through the (guarded) streams.
    const toOut = (...a: unknown[]) => process.stdout.write(`${a.map(String).join(" ")}\n`);
    const toErr = (...a: unknown[]) => process.stderr.write(`${a.map(String).join(" ")}\n`);
    Object.assign(console, { log: toOut, info: toOut, warn: toErr, error: toErr });
    const code = await runCli([process.execPath, CLI, ...args], childEnv(env));
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    out.restore();
    err.restore();
    Object.assign(console, con);
    running = false;
  }
}

/** Collects what is written to `stream` until `restore()` puts its own `write` back. */
function capture(stream: NodeJS.WriteStream): { text: () => string; restore: () => void } {
  const write = stream.write;
  let text = "";
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (done !== undefined) process.nextTick(done);
    return true;
  }) as typeof stream.write;
  return {
    text: () => text,
    restore: () => {
      stream.write = write;
    },
  };
}

/** The whole environment of a run of `funes` for a test user. */
function childEnv(env: CliEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: env.home,
    FUNES_HOME: env.funesHome,
    NO_COLOR: "1",
    FUNES_THREADS: "1",
    FUNES_SERVER: "0",
    ...env.extra,
  };
}

/** Runs `funes …` to completion in a child process: where a process boundary is what a test is about. */
export function spawnFunes(args: string[], env: CliEnv): Promise<CliResult> {
  const child = startFunes(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/**
 * Runs `funes …` on a pseudo-terminal (util-linux `script`) of COLUMNS×LINES (else 200×50), answering each prompt that ends in `[y/N] `, `[Y/n] ` or `[i/e/s/q] `
 * with the next of `answers`. Output is the terminal's (stdout and stderr together, with its escapes).
 */
export function runFunesInTerminal(args: string[], env: CliEnv, answers: string[] = []): Promise<CliResult> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  // A sized terminal, as a person's is: COLUMNS×LINES when the test gives them, else a wide one (200×50)
  // where no message needs wrapping (test/helpers/pty.ts replays what a given size shows).
  const size = `stty cols ${Number(env.extra?.COLUMNS ?? 200)} rows ${Number(env.extra?.LINES ?? 50)} 2>/dev/null`;
  const command = `${size}; exec ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qefc", command, "/dev/null"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: env.home,
      FUNES_HOME: env.funesHome,
      NO_COLOR: "1",
      FUNES_THREADS: "1",
      TERM: "dumb",
      ...env.extra,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let asked = 0;
  child.stdout?.on("data", (d) => {
    out += d;
    const prompts = out.split(/\[(?:y\/N|Y\/n|i\/e\/s\/q)\] /).length - 1;
    while (asked < prompts) child.stdin?.write(`${answers[asked++] ?? ""}\n`);
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve) =>
    child.on("close", (code) => {
      child.stdin?.end();
      resolve({ code, stdout: out, stderr: "" });
    }),
  );
}

/**
 * A user of the Hub stand-in: a home and a FUNES_HOME under `dir` named after `name`, the generated test
 * models (or `hfCache`), the stand-in's endpoint and a token.
 */
export function hubUser(o: {
  dir: string;
  name: string;
  hubUrl: string;
  token: string;
  hfCache?: string;
}): CliEnv {
  const home = join(o.dir, `${o.name}-home`);
  mkdirSync(home, { recursive: true });
  return {
    home,
    funesHome: join(o.dir, `${o.name}-funes`),
    extra: { HF_HUB_CACHE: o.hfCache ?? TEST_HUB_CACHE, HF_ENDPOINT: o.hubUrl, HF_TOKEN: o.token },
  };
}

/**
 * A user of a real agent CLI under `dir`: a home of their own with FUNES_HOME in it, the checkout's
 * `node_modules/.bin` (the agents' CLIs) first on PATH, `extra` on top; `env` is the whole environment the
 * agent runs in.
 */
export function agentUser(
  dir: string,
  name: string,
  extra: Record<string, string>,
): CliEnv & { env: Record<string, string> } {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  const all = { PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`, ...extra };
  const funesHome = join(home, ".funes");
  return { home, funesHome, extra: all, env: { ...all, HOME: home, FUNES_HOME: funesHome } };
}
