/**
 * The shared model server: started on demand by `funes recall` (after it answered), answering later recalls with the same
 * results as in-process models, owner-only, stopped by `funes server stop` or when idle, and never needed:
 * with a dead or broken server the CLI answers in-process.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelSocketPath } from "../../src/models/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { ROOT, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { until } from "../helpers/wait.js";

let t: { dir: string; cleanup: () => void };
let u: CliEnv;
const on = (extra: Record<string, string> = {}): CliEnv => ({
  ...u,
  extra: { ...u.extra, FUNES_SERVER: "1", ...extra },
});

interface Status {
  running: boolean;
  pid?: number;
  requests?: number;
  scored?: number;
  reused?: number;
  models?: string[];
}
const status = async (env: CliEnv): Promise<Status> =>
  JSON.parse((await runFunes(["server", "status", "--json"], env)).stdout) as Status;

// A budget no load can exhaust: each recall reranks its whole pool, so the server's results and counts
// do not depend on how busy the machine is.
const hits = async (env: CliEnv, q: string) => {
  const r = await runFunes(["recall", q, "--json", "--rerank-budget", "60000"], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { hits: { id: string; score: number }[] }).hits;
};

/** Whether process `pid` is gone. */
function exited(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

beforeAll(async () => {
  t = tempDir();
  const home = join(t.dir, "home");
  const project = join(home, ".claude", "projects", "-home-dev-earth");
  mkdirSync(project, { recursive: true });
  copyFileSync(join(TRACES, "claude", "claude_session.jsonl"), join(project, "s.jsonl"));
  u = { home, funesHome: join(home, ".funes"), extra: { HF_HUB_CACHE: TEST_HUB_CACHE } };
  expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
});
afterAll(async () => {
  await runFunes(["server", "stop"], on());
  t.cleanup();
});

describe("funes server", () => {
  it("starts after the first recall that needs models (which answers in-process), then answers later recalls with in-process results", async () => {
    expect((await status(on())).running).toBe(false);
    const local = await hits(u, "three.js earth textures");
    // No server yet: this recall loads its models itself, and leaves one starting for the next.
    const first = await hits(on(), "three.js earth textures");
    expect(await until(async () => (await status(on())).running)).toBe(true);
    const second = await hits(on(), "three.js earth textures");
    const s1 = await status(on());
    expect(s1.models?.some((m) => m.startsWith("embedder "))).toBe(true);
    expect(s1.models?.some((m) => m.startsWith("reranker "))).toBe(true);
    const third = await hits(on(), "three.js earth textures");
    const s2 = await status(on());
    expect(s2.pid).toBe(s1.pid);
    expect(s2.requests).toBeGreaterThan(s1.requests ?? 0);
    // The same question again: its passages' scores are reused, the cross-encoder scores nothing new.
    expect(s1.scored).toBeGreaterThan(0);
    expect(s2.scored).toBe(s1.scored);
    expect(s2.reused).toBeGreaterThan(s1.reused ?? 0);
    for (const answered of [first, second, third]) {
      expect(answered.map((h) => h.id)).toEqual(local.map((h) => h.id));
      answered.forEach((h, i) => {
        expect(h.score).toBeCloseTo(local[i]?.score ?? -1, 5);
      });
    }
  });

  it("listens on an owner-only socket", () => {
    const sock = modelSocketPath(u.funesHome, { tmpDir: tmpdir() });
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(sock)).mode & 0o777).toBe(0o700);
  });

  it("stops when asked, and recall still answers with it gone or broken", async () => {
    const stop = await runFunes(["server", "stop"], on());
    expect(stop.stdout).toContain("stopped");
    expect(await until(async () => !(await status(on())).running)).toBe(true);
    // Something that accepts connections and hangs up: the CLI falls back to its own models.
    const sock = modelSocketPath(u.funesHome, { tmpDir: tmpdir() });
    rmSync(sock, { force: true });
    const liar = createServer((c) => c.destroy());
    await new Promise<void>((r) => liar.listen(sock, r));
    try {
      const r = await runFunes(["recall", "three.js earth textures"], on());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/→ get /);
      expect(r.stdout).not.toMatch(/keyword-only/);
    } finally {
      await new Promise<void>((r) => liar.close(() => r()));
    }
  });

  it("exits when its socket is gone (its FUNES_HOME deleted), so none outlives its home", async () => {
    const started = await runFunes(["server", "start", "--json"], on());
    const pid = (JSON.parse(started.stdout) as Status).pid as number;
    expect(pid).toBeGreaterThan(0);
    rmSync(modelSocketPath(u.funesHome, { tmpDir: tmpdir() }), { force: true });
    expect(await until(async () => exited(pid))).toBe(true);
  });

  it("exits when its program files are gone (funes uninstalled), so none serves from deleted files", async () => {
    // A copy of the package (its built files, its manifest, the checkout's dependencies), then removed.
    const pkg = join(t.dir, "installed");
    mkdirSync(pkg);
    cpSync(join(ROOT, "dist"), join(pkg, "dist"), { recursive: true });
    copyFileSync(join(ROOT, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
    const funesHome = join(t.dir, "installed-funes");
    const started = spawnSync(
      process.execPath,
      [join(pkg, "dist", "cli", "main.js"), "server", "start", "--json"],
      {
        env: { PATH: process.env.PATH ?? "", HOME: u.home, FUNES_HOME: funesHome, FUNES_SERVER: "1" },
        encoding: "utf8",
      },
    );
    expect(started.status, started.stderr).toBe(0);
    const pid = (JSON.parse(started.stdout) as Status).pid as number;
    expect(pid).toBeGreaterThan(0);
    rmSync(join(pkg, "dist"), { recursive: true });
    expect(await until(async () => exited(pid))).toBe(true);
    expect(readFileSync(join(funesHome, "logs", "model-server.log"), "utf8")).toMatch(
      /stopping: its program files were removed/,
    );
  });

  it("exits on its own when idle", async () => {
    const idle = on({ FUNES_SERVER_IDLE: "1" });
    const started = await runFunes(["server", "start", "--json"], idle);
    expect(started.code, started.stderr).toBe(0);
    expect((JSON.parse(started.stdout) as Status).running).toBe(true);
    // Watched from outside (a status request would itself keep it busy): the socket goes when it stops.
    expect(
      await until(async () => !existsSync(modelSocketPath(u.funesHome, { tmpDir: tmpdir() })), 15_000),
    ).toBe(true);
    expect(readFileSync(join(u.funesHome, "logs", "model-server.log"), "utf8")).toMatch(
      /stopping: idle for 1 s/,
    );
  });
});
