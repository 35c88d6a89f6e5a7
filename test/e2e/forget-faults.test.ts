/**
 * `funes forget` under faults, driven for real: kill -9 at each step of a local forget (the process sends
 * itself SIGKILL at a named step: cli/test-signal.ts), a push held (SIGSTOP) just before its commit while a
 * local forget finishes, a Hub forget killed with its stage on disk, and forgotten-ids files of the wrong
 * shape (the Hub's, and this machine's) that must fail closed.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, startFunes } from "../helpers/cli.js";
import { commitRows } from "../helpers/commit-table.js";
import { copyFixture, TEST_EMBEDDER, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin } from "../helpers/hub-standin.js";
import { until } from "../helpers/wait.js";

const TOKEN = "hf_standintokenforforgetfaults";
const EMBED = TEST_EMBEDDER;
/** A phrase of one chunk of the codex fixture (stands in for a secret the scanner missed). */
const PHRASE = "im a graphic designer";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
/** A home with the codex fixture indexed and embedded, copied for each test that changes it. */
let indexed: CliEnv;

function userEnv(name: string, extra: Record<string, string> = {}): CliEnv {
  const user = standinUser(t.dir, name, hub.url, { HF_TOKEN: TOKEN, FUNES_EMBED_MODEL_DIR: EMBED, ...extra });
  mkdirSync(join(user.home, ".codex"), { recursive: true });
  return user;
}

/** A copy of the indexed home under a new name (Lance folders copy as they are). */
function homeCopy(name: string, extra: Record<string, string> = {}): CliEnv {
  const e = userEnv(name, extra);
  cpSync(join(indexed.home, ".codex"), join(e.home, ".codex"), { recursive: true });
  cpSync(indexed.funesHome, e.funesHome, { recursive: true });
  return e;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const holdsPhrase = (dir: string) => filesUnder(dir).some((f) => readFileSync(f).includes(PHRASE));

/** Runs a command until it exits; also returns the signal that ended it. */
function runUntilExit(args: string[], env: CliEnv) {
  const child = startFunes(args, env);
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  return new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, out })),
  );
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  indexed = userEnv("indexed");
  copyFixture("codex", join(indexed.home, ".codex", "sessions"));
  const r = await runFunes(["index", "--yes"], indexed);
  expect(r.code, r.stderr).toBe(0);
}, 240_000);
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("a local forget killed at each step", () => {
  const steps = [
    "forget:marked",
    "forget:remembered",
    "forget:rewritten",
    "forget:reindexed",
    "forget:cleaned",
  ];
  it.each(steps)(
    "kill -9 at %s: status never claims the row forgotten while it is there, and the next write finishes it",
    async (step) => {
      const e = homeCopy(`kill-${step.replace(":", "-")}`, { FUNES_TEST_SIGNAL_AT: step });
      const killed = await runUntilExit(["forget", "--match", PHRASE, "--yes"], e);
      expect(killed.signal, killed.out).toBe("SIGKILL");
      const memory = join(e.funesHome, "memory");
      // Killed before its cleanup, the forget left the text in some file (current or an old version).
      expect(holdsPhrase(memory)).toBe(step !== "forget:cleaned");
      const quiet = { ...e, extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: "" } };
      const status = await runFunes(["status"], quiet);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).not.toContain("forgotten: 1 chunks");
      expect(status.stdout).toContain("forget unfinished: 1 chunks are still in the memory");

      // Any write finishes it: the row's bytes leave every file (old versions included), for good.
      const index = await runFunes(["index", "--yes", "--force"], quiet);
      expect(index.code, index.stderr).toBe(0);
      expect(holdsPhrase(memory)).toBe(false);
      expect(existsSync(join(e.funesHome, "forget-pending.json"))).toBe(false);
      const after = await runFunes(["status"], quiet);
      expect(after.stdout).toContain("forgotten: 1 chunks");
      expect(after.stdout).toContain("chunks: 18\n");
      expect(after.stdout).not.toContain("forget unfinished");
    },
    180_000,
  );

  it("a push after the kill publishes every other row and not the forgotten one", async () => {
    const e = homeCopy("kill-then-push", { FUNES_TEST_SIGNAL_AT: "forget:marked" });
    const killed = await runUntilExit(["forget", "--match", PHRASE, "--yes"], e);
    expect(killed.signal).toBe("SIGKILL");
    const quiet = { ...e, extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: "" } };
    const push = await runFunes(["push", "acme/after-kill", "--create", "--json"], quiet);
    expect(push.code, push.stderr).toBe(0);
    expect(JSON.parse(push.stdout).published).toBe(18);
    const rows = await commitRows(hub.repos.get("acme/after-kill")?.files ?? new Map(), t.dir, ["text"]);
    expect(rows.length).toBe(18);
    expect(rows.some((r) => String(r.text).includes(PHRASE))).toBe(false);
    // The push finished the forget too (the lock was free).
    expect(holdsPhrase(join(e.funesHome, "memory"))).toBe(false);
  }, 180_000);
});

describe("a push already under way when a local forget finishes", () => {
  it("does not publish the forgotten row", async () => {
    const e = homeCopy("inflight");
    const held = {
      ...e,
      extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: "push:staged", FUNES_TEST_SIGNAL: "SIGSTOP" },
    };
    const push = startFunes(["push", "acme/inflight", "--create", "--json"], held);
    let out = "";
    const stopped = new Promise<void>((resolve) => {
      const see = (d: Buffer) => {
        out += d;
        if (out.includes("funes: test signal SIGSTOP at push:staged")) resolve();
      };
      push.stdout?.on("data", see);
      push.stderr?.on("data", see);
    });
    const closed = new Promise<number | null>((resolve) => push.on("close", (code) => resolve(code)));
    await stopped;
    // The push has staged every row, the forgotten one included, and waits just before its commit.
    const forget = await runFunes(["forget", "--match", PHRASE, "--yes"], e);
    expect(forget.code, forget.stderr).toBe(0);
    push.kill("SIGCONT");
    const code = await closed;
    const rows = await commitRows(hub.repos.get("acme/inflight")?.files ?? new Map(), t.dir, ["text"]);
    expect(rows.some((r) => String(r.text).includes(PHRASE))).toBe(false);
    // Either it published the rest, or (the forget's cleanup removed the version it read) it said to push again.
    if (code !== 0) expect(out).toContain("run `funes push` again");
    const again = await runFunes(["push", "acme/inflight", "--json"], e);
    expect(again.code, again.stderr).toBe(0);
    const final = await commitRows(hub.repos.get("acme/inflight")?.files ?? new Map(), t.dir, ["text"]);
    expect(final.length).toBe(18);
    expect(final.some((r) => String(r.text).includes(PHRASE))).toBe(false);
  }, 180_000);
});

/** Starts a push to `repo` that stops itself (SIGSTOP) at `step`; resolves once it has. */
async function pushHeldAt(step: string, e: CliEnv, repo: string) {
  const held = { ...e, extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: step, FUNES_TEST_SIGNAL: "SIGSTOP" } };
  const push = startFunes(["push", repo, "--create"], held);
  let out = "";
  const stopped = new Promise<void>((resolve) => {
    const see = (d: Buffer) => {
      out += d;
      if (out.includes(`funes: test signal SIGSTOP at ${step}`)) resolve();
    };
    push.stdout?.on("data", see);
    push.stderr?.on("data", see);
  });
  const closed = new Promise<number | null>((resolve) => push.on("close", (code) => resolve(code)));
  await stopped;
  return { push, closed, out: () => out };
}

describe("a forget always wins over a push in flight", () => {
  it("a forget that lands while the push uploads: nothing forgotten is committed, and the push says why", async () => {
    const e = homeCopy("during-upload");
    // Every file is uploaded, the forgotten row's included; the commit request has not gone.
    const p = await pushHeldAt("push:uploaded", e, "acme/during-upload");
    const forget = await runFunes(["forget", "--match", PHRASE, "--yes"], e);
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).not.toContain("waited for a push");
    p.push.kill("SIGCONT");
    const code = await p.closed;
    const committed = [...(hub.repos.get("acme/during-upload")?.files.keys() ?? [])];
    expect(committed.filter((f) => f.startsWith("chunks.lance/"))).toEqual([]);
    // The forget's cleanup took the version the push read: a true message, not "an index run compacted".
    expect(code).toBe(75);
    expect(p.out()).toContain(
      "funes: a forget took rows out of the local memory while this push was reading it, and nothing was committed — run `funes push` again",
    );
    const again = await runFunes(["push", "acme/during-upload"], e);
    expect(again.code, again.stderr).toBe(0);
    const rows = await commitRows(hub.repos.get("acme/during-upload")?.files ?? new Map(), t.dir, ["text"]);
    expect(rows.length).toBe(18);
    expect(rows.some((r) => String(r.text).includes(PHRASE))).toBe(false);
  }, 180_000);

  it("a forget that begins while the commit request is under way waits for it, and the push takes the rows back", async () => {
    const e = homeCopy("during-commit");
    // The push has looked at the forgotten ids for the last time before its commit, and holds the turn.
    const p = await pushHeldAt("push:committing", e, "acme/during-commit");
    const forgetting = runFunes(["forget", "--match", PHRASE, "--yes"], e);
    // The forget's marker is down (from here every push leaves the row out); it waits for the push's turn.
    expect(await until(() => existsSync(join(e.funesHome, "forget-pending.json")))).toBe(true);
    p.push.kill("SIGCONT");
    const [code, forget] = await Promise.all([p.closed, forgetting]);
    expect(code, p.out()).toBe(0);
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toContain(
      "waited for a push to hf://datasets/acme/during-commit that was committing: it leaves these chunks out, or takes back any it had sent",
    );
    expect(p.out()).toMatch(
      /1 of them were forgotten here while the commit was under way: taken back out of hf:\/\/datasets\/acme\/during-commit \(commit [0-9a-f]{8}\)/,
    );
    const head = await commitRows(hub.repos.get("acme/during-commit")?.files ?? new Map(), t.dir, ["text"]);
    expect(head.length).toBe(18);
    expect(head.some((r) => String(r.text).includes(PHRASE))).toBe(false);
    expect(holdsPhrase(join(e.funesHome, "memory"))).toBe(false);
  }, 180_000);
});

describe("a Hub forget killed mid-way", () => {
  it("leaves no staging copy of the forgotten text once the next run starts", async () => {
    const e = homeCopy("hub-kill");
    expect((await runFunes(["push", "acme/hub-kill", "--create"], e)).code).toBe(0);
    const killing = { ...e, extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: "forget:hub-staged" } };
    const killed = await runUntilExit(
      ["forget", "--match", PHRASE, "--memory", "acme/hub-kill", "--yes"],
      killing,
    );
    expect(killed.signal, killed.out).toBe("SIGKILL");
    const staging = join(e.funesHome, "staging");
    expect(holdsPhrase(staging)).toBe(true);
    // The next write of any kind (here a local index) removes it.
    expect((await runFunes(["index", "--yes"], e)).code).toBe(0);
    expect(filesUnder(staging)).toEqual([]);
    // And the forget, run again, completes.
    const again = await runFunes(["forget", "--match", PHRASE, "--memory", "acme/hub-kill", "--yes"], e);
    expect(again.code, again.stderr).toBe(0);
    expect(filesUnder(staging)).toEqual([]);
  }, 180_000);
});

describe("forgotten-ids files fail closed", () => {
  it("a Hub .funes-forgotten.json of another shape refuses the push, and publishes nothing", async () => {
    const e = homeCopy("tomb-hub");
    expect((await runFunes(["push", "acme/tomb", "--create"], e)).code).toBe(0);
    expect((await runFunes(["forget", "--match", PHRASE, "--memory", "acme/tomb", "--yes"], e)).code).toBe(0);
    const repo = hub.repos.get("acme/tomb");
    if (repo === undefined) throw new Error("no repo");
    const ids = JSON.parse(repo.files.get(".funes-forgotten.json")?.toString("utf8") ?? "{}").ids as string[];
    expect(ids.length).toBe(1);
    for (const shape of [JSON.stringify(ids), JSON.stringify({ ids: { [ids[0] as string]: true } }), "{}"]) {
      // A teammate's tool rewrites the file in its own shape (a new commit).
      repo.files = new Map(repo.files);
      repo.files.set(".funes-forgotten.json", Buffer.from(shape));
      repo.commit = `${repo.commit.slice(0, 39)}${repo.commit.endsWith("a") ? "b" : "a"}`;
      const committed = hub.committedPaths.length;
      const other = homeCopy(`tomb-teammate-${shape.length}`);
      const push = await runFunes(["push", "acme/tomb"], other);
      expect(push.code, shape).not.toBe(0);
      expect(push.stderr).toMatch(
        /^funes: \.funes-forgotten\.json in acme\/tomb .*so funes cannot tell which rows were forgotten and changed nothing — write back the file funes wrote/,
      );
      expect(hub.committedPaths.length).toBe(committed);
    }
  }, 240_000);

  it("an unreadable local forgotten.json stops index --force from bringing a row back", async () => {
    const e = homeCopy("tomb-local");
    expect((await runFunes(["forget", "--match", PHRASE, "--yes"], e)).code).toBe(0);
    const path = join(e.funesHome, "forgotten.json");
    const good = readFileSync(path, "utf8");
    for (const damage of ["array", "directory", "garbage"] as const) {
      rmSync(path, { recursive: true, force: true });
      if (damage === "array") writeFileSync(path, JSON.stringify(Object.keys(JSON.parse(good).ids)));
      else if (damage === "directory") mkdirSync(path);
      else writeFileSync(path, "{not json");
      const r = await runFunes(["index", "--yes", "--force"], e);
      expect(r.code, damage).toBe(2);
      expect(r.stderr).toMatch(
        /^funes: .*forgotten\.json is damaged \((not a forgotten-ids file of version 1|unreadable: EISDIR|not valid JSON)\) — copy it back from a backup, or move it aside and run the forget of those chunks again/,
      );
      expect(holdsPhrase(join(e.funesHome, "memory"))).toBe(false);
    }
    rmSync(path, { recursive: true, force: true });
    writeFileSync(path, good);
    expect((await runFunes(["index", "--yes", "--force"], e)).code).toBe(0);
    expect(holdsPhrase(join(e.funesHome, "memory"))).toBe(false);
  }, 240_000);
});
