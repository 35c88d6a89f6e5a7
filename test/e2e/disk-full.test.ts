/**
 * A full disk, for real: FUNES_HOME (and the Hub cache) on a small tmpfs filled up to a few KB, then
 * `index`, `forget` and `push` run by the built CLI. Each fails with the full disk's own line and a non-zero
 * exit, leaves no temporary file, names no Rust source path and blames no embedder; with space freed, the
 * next run finishes what was cut short. Mounting needs root (or CAP_SYS_ADMIN): elsewhere the suite skips,
 * saying why.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { copyFixture, TEST_EMBEDDER, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const EMBED = TEST_EMBEDDER;
const PHRASE = "im a graphic designer";
/** The last line of a run that stopped on a full disk (an index run says what it scans first). */
const FULL = /(^|\n)funes: the disk holding "[^"]+" is full — free space and run it again\n$/;

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
const mounts: string[] = [];

/** Mounts a tmpfs of `mb` MiB at a new folder; null when this machine does not allow it. */
function smallDisk(name: string, mb: number): string | null {
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mb}m`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}

/** Fills the disk holding `dir` until `leave` bytes are free. */
function fillLeaving(dir: string, leave: number): void {
  const s = statfsSync(dir);
  const free = Number(s.bavail) * Number(s.bsize);
  if (free > leave) writeFileSync(join(dir, "filler"), Buffer.alloc(free - leave));
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const tmpFiles = (dir: string) => filesUnder(dir).filter((f) => /\.tmp$|\.tmp-|\.funes-tmp$/.test(f));

/** A user whose FUNES_HOME and Hub cache are on `disk`, with the codex fixture in their home. */
function userOn(disk: string, name: string): CliEnv {
  const home = join(t.dir, `${name}-home`);
  copyFixture("codex", join(home, ".codex", "sessions"));
  return {
    home,
    funesHome: join(disk, "funes"),
    extra: {
      HF_HUB_CACHE: join(disk, "hf"),
      HF_ENDPOINT: hub.url,
      HF_TOKEN: "hf_standintokenfordiskfull",
      FUNES_EMBED_MODEL_DIR: EMBED,
    },
  };
}

/** The failure line of a full disk, with nothing else said. */
function expectFull(r: { code: number | null; stderr: string }): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(FULL);
  expect(r.stderr).not.toMatch(/\.cargo|\.rs:\d|embed|unexpected|onnxruntime/);
}

let canMount = false;
beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const probe = smallDisk("probe", 1);
  canMount = probe !== null;
});
afterAll(async () => {
  for (const m of mounts.reverse())
    try {
      execFileSync("umount", [m], { stdio: "ignore" });
    } catch {
      // left mounted under a temp folder: nothing else uses it
    }
  await hub.close();
  t.cleanup();
});

describe("a full disk (a small tmpfs; skipped where mounting one is not allowed)", () => {
  it("index fails with the full disk's own line, twice, and leaves no temp file; with space it completes", async (ctx) => {
    if (!canMount) ctx.skip();
    const disk = smallDisk("index", 32) as string;
    const u = userOn(disk, "index");
    mkdirSync(u.funesHome, { recursive: true });
    fillLeaving(disk, 48 * 1024);
    for (let run = 0; run < 2; run++) {
      const r = await runFunes(["index", "--yes"], u);
      expectFull(r);
      expect(tmpFiles(disk)).toEqual([]);
    }
    rmSync(join(disk, "filler"));
    // With space again, the next run completes what was cut short: every chunk stored, every one embedded.
    const ok = await runFunes(["index", "--yes"], u);
    expect(ok.code, ok.stderr).toBe(0);
    const status = await runFunes(["status"], u);
    expect(status.stdout).toContain("chunks: 19\n");
    expect(status.stdout).toContain("vectors: 19 of 19 rows\n");
  }, 240_000);

  it("forget fails with the full disk's line, claims nothing, and the next write finishes it", async (ctx) => {
    if (!canMount) ctx.skip();
    const disk = smallDisk("forget", 32) as string;
    const u = userOn(disk, "forget");
    expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
    fillLeaving(disk, 0);
    const r = await runFunes(["forget", "--match", PHRASE, "--yes"], u);
    expectFull(r);
    expect(tmpFiles(disk)).toEqual([]);
    const status = await runFunes(["status"], u);
    expect(status.stdout).not.toContain("forgotten: 1 chunks");
    rmSync(join(disk, "filler"));
    expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
    const memory = filesUnder(join(u.funesHome, "memory")).map((f) => readFileSync(f));
    // Either the forget never began (the row is there, nothing claims otherwise) or the write finished it.
    const after = await runFunes(["status"], u);
    if (memory.some((b) => b.includes(PHRASE))) expect(after.stdout).not.toContain("forgotten: 1 chunks");
    else expect(after.stdout).toContain("forgotten: 1 chunks");
    expect(after.stdout).not.toContain("forget unfinished");
  }, 240_000);

  it("push fails with the full disk's line, commits nothing, and leaves no temp file", async (ctx) => {
    if (!canMount) ctx.skip();
    const disk = smallDisk("push", 32) as string;
    const u = userOn(disk, "push");
    expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
    expect((await runFunes(["push", "acme/full", "--create"], u)).code).toBe(0);
    // Someone else publishes; this push must download their files and stage a copy: no room for it.
    const other = userOn(t.dir, "push-other");
    other.funesHome = join(t.dir, "push-other-funes");
    other.extra = { ...other.extra, HF_HUB_CACHE: join(t.dir, "push-other-hf") };
    writeFileSync(
      join(other.home, ".codex", "sessions", "extra.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-24T00:00:00Z", payload: { id: "extra-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-24T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "a question only the teammate asked" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], other)).code).toBe(0);
    expect((await runFunes(["push", "acme/full"], other)).code).toBe(0);
    writeFileSync(
      join(u.home, ".codex", "sessions", "mine.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-25T00:00:00Z", payload: { id: "mine-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-25T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "a question only I asked" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
    const commits = hub.history.get("acme/full")?.length;
    fillLeaving(disk, 0);
    const r = await runFunes(["push", "acme/full"], u);
    expectFull(r);
    expect(tmpFiles(disk)).toEqual([]);
    expect(hub.history.get("acme/full")?.length).toBe(commits);
    rmSync(join(disk, "filler"));
    const ok = await runFunes(["push", "acme/full", "--json"], u);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).published).toBe(1);
  }, 240_000);
});

describe("--purge-history", () => {
  it("without --memory is refused, and the local memory is unchanged", async () => {
    const u: CliEnv = { home: join(t.dir, "purge-home"), funesHome: join(t.dir, "purge-funes") };
    const r = await runFunes(["forget", "--match", PHRASE, "--purge-history", "--yes"], u);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "funes: --purge-history rewrites a Hub memory's history — add --memory <org/repo> to purge one, or drop --purge-history (a local forget already removes old versions' files)\n",
    );
    expect(existsSync(join(u.funesHome, "forgotten.json"))).toBe(false);
  });
});
