/**
 * The model server under strangers and faults, driven for real: another local user (uid 65534, `nobody`)
 * who made the socket's folder first and listens there, a socket owned by a stranger, a folder where the
 * socket goes, a real server stopped with SIGSTOP (CLI recall, MCP recall, `server status` and `server
 * stop` all return, recall answers in-process and says so), a dead server's socket and a pid file naming
 * a live process (the next recall starts a server anyway), and hostile frames (`null`, wrong types, a line
 * that never ends) that get an error and leave the server running.
 *
 * The stranger needs root to act as another uid (a process started with another uid, lchown): run as
 * another user, those tests skip, and say so.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelSocketPath } from "../../src/models/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { connectMcp } from "../helpers/mcp.js";
import { until } from "../helpers/wait.js";

const ROOT = process.getuid?.() === 0;
const STRANGER = 65534;
const QUERY = "three.js earth textures";

let t: { dir: string; cleanup: () => void };
const pids: number[] = [];

beforeAll(() => {
  t = tempDir();
});
afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  t.cleanup();
});

/** A user with an indexed memory in `funesHome`, the shared server on. */
async function user(funesHome: string, extra: Record<string, string> = {}): Promise<CliEnv> {
  const home = join(t.dir, `home-${Math.random().toString(36).slice(2)}`);
  const project = join(home, ".claude", "projects", "-home-dev-earth");
  mkdirSync(project, { recursive: true });
  copyFileSync(join(TRACES, "claude", "claude_session.jsonl"), join(project, "s.jsonl"));
  const u: CliEnv = { home, funesHome, extra: { HF_HUB_CACHE: TEST_HUB_CACHE, ...extra } };
  const ix = await runFunes(["index", "--yes"], u);
  expect(ix.code, ix.stderr).toBe(0);
  return { ...u, extra: { ...u.extra, FUNES_SERVER: "1" } };
}

interface Recalled {
  notes: string[];
  hits: { id: string }[];
}
async function recallJson(env: CliEnv): Promise<Recalled> {
  const r = await runFunes(["recall", QUERY, "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Recalled;
}

interface Status {
  running: boolean;
  answering?: boolean;
  pid?: number;
  problem?: string;
  socket?: string;
}
async function status(env: CliEnv): Promise<Status> {
  const r = await runFunes(["server", "status", "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A stranger's impersonating server, run as uid 65534: answers every request (high scores, a status) and
 * appends every byte it receives to `log`.
 */
const FAKE_SERVER = `
const net = require("net"), fs = require("fs");
const [sock, log] = process.argv.slice(1);
fs.writeFileSync(log, "");
net.createServer((c) => {
  let b = "";
  c.on("data", (d) => {
    fs.appendFileSync(log, d);
    b += d;
    for (let i = b.indexOf("\\n"); i >= 0; i = b.indexOf("\\n")) {
      const r = JSON.parse(b.slice(0, i));
      b = b.slice(i + 1);
      c.write(JSON.stringify({ id: r.id, ok: true, dim: 384, vectors: "", scores: (r.passages || []).map(() => 0.99),
        status: { pid: process.pid, startedAt: 0, requests: 0, scored: 0, reused: 0, models: [], rssBytes: 0, idleMs: 0 } }) + "\\n");
    }
  });
}).listen(sock, () => { fs.chmodSync(sock, 0o777); process.stdout.write("ready\\n"); });
`;

describe.skipIf(!ROOT)("a stranger on the same machine (needs root to act as uid 65534)", () => {
  let shared: string;
  let env: CliEnv;
  let sock: string;
  let log: string;

  beforeAll(async () => {
    // A shared temporary folder like /tmp: anyone may create in it, nobody may remove what is not theirs.
    shared = mkdtempSync(join(tmpdir(), "funes-shared-"));
    chmodSync(shared, 0o1777);
    // So long a home that `run/models.sock` cannot hold the socket: it goes under TMPDIR.
    env = await user(join(t.dir, "h".repeat(100)), { TMPDIR: shared });
    sock = modelSocketPath(env.funesHome, { tmpDir: shared });
    expect(dirname(dirname(sock))).toBe(shared);
    log = join(shared, "stolen.log");
  });
  afterAll(() => rmSync(shared, { recursive: true, force: true }));

  it("a folder the stranger made first: `server start` fails saying whose it is, and no server starts", () => {
    const made = spawnSync(
      process.execPath,
      ["-e", `require("fs").mkdirSync(${JSON.stringify(dirname(sock))}, { mode: 0o777 })`],
      {
        uid: STRANGER,
        gid: STRANGER,
      },
    );
    expect(made.status, String(made.stderr)).toBe(0);
    return runFunes(["server", "start"], env).then((r) => {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`belongs to uid ${STRANGER}, not to you`);
      expect(r.stdout).not.toContain("not running");
    });
  });

  it("the stranger's server there gets nothing: recall answers in-process and says why, once", async () => {
    const fake = spawn(process.execPath, ["-e", FAKE_SERVER, sock, log], {
      uid: STRANGER,
      gid: STRANGER,
      stdio: ["ignore", "pipe", "inherit"],
    });
    pids.push(fake.pid as number);
    await new Promise<void>((r) => fake.stdout?.once("data", () => r()));
    try {
      const local = await recallJson({ ...env, extra: { ...env.extra, FUNES_SERVER: "0" } });
      const r = await recallJson(env);
      expect(r.hits.map((h) => h.id)).toEqual(local.hits.map((h) => h.id));
      const notes = r.notes.filter((n) => n.includes("models run in this process"));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(`belongs to uid ${STRANGER}`);
      // MCP too.
      const mcp = await connectMcp([], env);
      try {
        expect(await mcp.call("recall", { query: QUERY })).toContain("models run in this process");
      } finally {
        await mcp.close();
      }
      expect(readFileSync(log, "utf8")).toBe("");
    } finally {
      fake.kill("SIGKILL");
    }
  });

  it("with a runtime folder of the user's own, the socket goes there and the server runs", async () => {
    const runtime = join(t.dir, "rt");
    mkdirSync(runtime, { mode: 0o700 });
    const rt: CliEnv = { ...env, extra: { ...env.extra, XDG_RUNTIME_DIR: runtime } };
    const r = await recallJson(rt);
    expect(r.notes.join("\n")).not.toContain("models run in this process");
    // The recall answered with its own models and left the server starting.
    expect(await until(async () => (await status(rt)).running)).toBe(true);
    const s = await status(rt);
    expect(dirname(s.socket as string)).toBe(runtime);
    pids.push(s.pid as number);
    expect((await runFunes(["server", "stop"], rt)).stdout).toContain("stopped");
    expect(readFileSync(log, "utf8")).toBe("");
  });

  it("a socket that is not the user's own, even in the user's folder, is not connected to", async () => {
    const u = await user(join(t.dir, "chowned"));
    const path = modelSocketPath(u.funesHome, { tmpDir: tmpdir() });
    mkdirSync(dirname(path), { mode: 0o700 });
    let got = "";
    const other = createServer((c) => c.on("data", (d) => (got += d)));
    await new Promise<void>((r) => other.listen(path, r));
    lchownSync(path, STRANGER, STRANGER);
    try {
      const r = await recallJson(u);
      expect(r.notes.join("\n")).toContain(`the socket "${path}" belongs to uid ${STRANGER}`);
      const start = await runFunes(["server", "start"], u);
      expect(start.code).not.toBe(0);
      expect(start.stderr).toContain(`belongs to uid ${STRANGER}`);
      expect(got).toBe("");
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
  });
});

describe("the model server under faults", () => {
  let env: CliEnv;
  let sock: string;

  beforeAll(async () => {
    env = await user(join(t.dir, "f"));
    sock = modelSocketPath(env.funesHome, { tmpDir: tmpdir() });
  });
  afterAll(async () => {
    await runFunes(["server", "stop"], env);
  });

  it("a folder at the socket path: start fails saying so, status says so, recall answers in-process", async () => {
    mkdirSync(sock, { recursive: true });
    try {
      const start = await runFunes(["server", "start"], env);
      expect(start.code).not.toBe(0);
      expect(start.stderr).toContain("is a folder, not the model server's socket");
      expect((await status(env)).problem).toContain("is a folder");
      const r = await recallJson(env);
      expect(r.hits.length).toBeGreaterThan(0);
      expect(r.notes.join("\n")).toContain("is a folder");
    } finally {
      rmSync(sock, { recursive: true, force: true });
    }
  });

  it("a server stopped with SIGSTOP hangs nobody: CLI and MCP recall, status and stop all return", async () => {
    const started = await runFunes(["server", "start", "--json"], env);
    expect(started.code, started.stderr).toBe(0);
    const pid = (JSON.parse(started.stdout) as Status).pid as number;
    pids.push(pid);
    expect((await recallJson(env)).notes.join("\n")).not.toContain("models run in this process");
    // An agent's MCP process that already uses the server.
    const mcp = await connectMcp([], env);
    try {
      expect(await mcp.call("recall", { query: QUERY })).not.toContain("models run in this process");
      process.kill(pid, "SIGSTOP");
      // Another question: the one asked before is answered from what the session kept, without the server.
      const warm = await mcp.call("recall", { query: `${QUERY} again` });
      expect(warm).toContain("model server did not answer within");
      expect(warm).toMatch(/get /);
    } finally {
      await mcp.close();
    }
    const r = await recallJson(env);
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.notes.join("\n")).toContain("model server did not answer within");
    const s = await status(env);
    expect(s).toMatchObject({ running: true, answering: false });
    const stop = await runFunes(["server", "stop"], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("its socket was removed");
    expect(existsSync(sock)).toBe(false);
    // Running again, it finds its socket gone and exits; the next recall starts a new server.
    process.kill(pid, "SIGCONT");
    expect(await until(() => !alive(pid))).toBe(true);
    expect((await recallJson(env)).notes.join("\n")).not.toContain("models run in this process");
    expect(await until(async () => (await status(env)).running)).toBe(true);
    const again = await status(env);
    expect(again.pid).not.toBe(pid);
    pids.push(again.pid as number);
  });

  it("a dead server's socket and a pid file naming a live process do not keep the next one from starting", async () => {
    const before = await status(env);
    const killed = before.pid as number;
    process.kill(killed, "SIGKILL");
    await until(() => !alive(killed), 10_000);
    expect(existsSync(sock)).toBe(true);
    // What an older funes kept beside the socket: here naming this test's own, live, process.
    writeFileSync(`${sock}.pid`, String(process.pid));
    const r = await recallJson(env);
    expect(r.notes.join("\n")).not.toContain("models run in this process");
    expect(await until(async () => (await status(env)).running)).toBe(true);
    const s = await status(env);
    expect(s.pid).not.toBe(killed);
    pids.push(s.pid as number);
    expect(readFileSync(join(env.funesHome, "logs", "model-server.log"), "utf8")).not.toContain(
      "another model server already answers",
    );
  });

  it("hostile frames get an error and leave the server running; a line that never ends is cut at the bound", async () => {
    const before = await status(env);
    expect(before.running).toBe(true);
    const c = createConnection(sock);
    let got = "";
    c.setEncoding("utf8");
    c.on("data", (d: string) => {
      got += d;
    });
    let failure = "";
    c.on("error", (err: NodeJS.ErrnoException) => {
      failure = err.code ?? err.message;
    });
    const closed = new Promise<void>((r) => c.on("close", () => r()));
    await new Promise<void>((r) => c.once("connect", () => r()));
    const lines = [
      "null",
      "42",
      "not json",
      '{"id":7,"op":"embed","texts":[1,2]}',
      '{"id":8,"op":"score","model":null}',
      '{"id":9,"op":"explode"}',
      '{"id":10,"op":"status"}',
    ];
    c.write(`${lines.join("\n")}\n`);
    await until(() => got.split("\n").length > lines.length, 10_000);
    const replies = got
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; ok: boolean; error?: string });
    expect(replies.filter((x) => !x.ok)).toHaveLength(6);
    expect(replies.find((x) => x.id === 7)?.error).toContain("wrong type");
    expect(replies.find((x) => x.id === 10)?.ok).toBe(true);
    // 20 MiB with no newline, in 1 MiB writes: refused at the 16 MiB bound and the connection closed.
    got = "";
    const mib = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 20 && !c.destroyed; i++) await new Promise<void>((r) => c.write(mib, () => r()));
    await closed;
    // The server says why and closes; when the client is still writing as it closes, the kernel may reset
    // the connection and drop that last line before it is read (seen under load): then the reset is the answer.
    if (!got.includes("without ending")) expect(["ECONNRESET", "EPIPE"]).toContain(failure);
    const after = await status(env);
    expect(after).toMatchObject({ running: true, pid: before.pid });
  });
});
