/**
 * `funes compact` and the compaction a push runs by itself, as users meet them against the loopback Hub
 * stand-in: a team memory's pushes folded into few files with every row kept and a current text index
 * (recall finds what was pushed before and after), lance 7.0.0 reading the result, a push from another
 * home racing a compaction landing whichever commits first, a forgotten row staying out, a reader at the
 * older commit reading on, and a newcomer fetching one manifest and no transaction.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, startFunes } from "../helpers/cli.js";
import { commitIds, commitRows } from "../helpers/commit-table.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforcompacttests";
const EMBED = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
const SESSION = "019ef2fb-6574-7f83-bd99-9118713271f2";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function userEnv(name: string, extra: Record<string, string> = {}): CliEnv {
  const user = standinUser(t.dir, name, hub.url, { HF_TOKEN: TOKEN, FUNES_EMBED_MODEL_DIR: EMBED, ...extra });
  mkdirSync(join(user.home, ".codex", "sessions"), { recursive: true });
  return user;
}

/** A home with the codex fixture (2 sessions, 19 chunks) indexed and embedded. */
async function indexedHome(name: string, extra: Record<string, string> = {}): Promise<CliEnv> {
  const e = userEnv(name, extra);
  copyFixture("codex", join(e.home, ".codex", "sessions"));
  const r = await runFunes(["index", "--yes"], e);
  expect(r.code, r.stderr).toBe(0);
  return e;
}

/** A one-turn codex session whose question is `text`, indexed. */
async function newSession(e: CliEnv, id: string, text: string): Promise<void> {
  writeFileSync(
    join(e.home, ".codex", "sessions", `${id}.jsonl`),
    `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-24T00:00:00Z", payload: { id, cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-24T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text }] } })}\n`,
  );
  const r = await runFunes(["index", "--yes"], e);
  expect(r.code, r.stderr).toBe(0);
}

async function push(e: CliEnv, repo: string, ...flags: string[]) {
  const r = await runFunes(["push", repo, "--json", ...flags], e);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const files = (repo: string) => hub.repos.get(repo)?.files ?? new Map<string, Buffer>();
const lanceFiles = (repo: string) => [...files(repo).keys()].filter((p) => p.startsWith("chunks.lance/"));

async function recalls(e: CliEnv, repo: string, query: string): Promise<string> {
  const r = await runFunes(["recall", query, "--memory", repo, "--rerank-budget", "0"], e);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Starts `funes <args>` held (SIGSTOP) at `step`; resolves once it is. */
async function heldAt(step: string, e: CliEnv, args: string[]) {
  const held = { ...e, extra: { ...e.extra, FUNES_TEST_SIGNAL_AT: step, FUNES_TEST_SIGNAL: "SIGSTOP" } };
  const child = startFunes(args, held);
  let out = "";
  const stopped = new Promise<void>((resolve) => {
    const see = (d: Buffer) => {
      out += d;
      if (out.includes(`funes: test signal SIGSTOP at ${step}`)) resolve();
    };
    child.stdout?.on("data", see);
    child.stderr?.on("data", see);
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  await stopped;
  return { child, closed, out: () => out };
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes compact", () => {
  it("folds a memory's pushes into few files, every row kept, recall finding rows pushed before and after", async () => {
    const a = await indexedHome("team-a");
    await push(a, "acme/team", "--create");
    for (const [i, word] of ["albatross", "bergamot", "cormorant", "dulcimer"].entries()) {
      await newSession(a, `extra-${i}`, `the ${word} plan was agreed on day ${i}`);
      await push(a, "acme/team");
    }
    const ids = (await commitIds(files("acme/team"), t.dir)).sort();
    expect(ids.length).toBe(23);
    const before = lanceFiles("acme/team");
    const oldHead = hub.repos.get("acme/team")?.commit;
    // A reader who read the memory before the compaction.
    const early = userEnv("team-early");
    expect(await recalls(early, "acme/team", "albatross")).toContain("albatross plan");

    const dry = await runFunes(["compact", "acme/team", "--dry-run"], a);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        `^dry run: nothing was changed on hf://datasets/acme/team; compacting would leave ${before.length} → \\d+ files, 5 → 1 fragments\\n`,
      ),
    );
    expect(dry.stdout).toContain("  would fold 5 fragments into one (23 chunks written again)\n");
    expect(hub.repos.get("acme/team")?.commit).toBe(oldHead);

    const done = await runFunes(["compact", "acme/team", "--json"], a);
    expect(done.code, done.stderr).toBe(0);
    const s = JSON.parse(done.stdout);
    expect(s).toMatchObject({
      memory: "hf://datasets/acme/team",
      dryRun: false,
      filesBefore: before.length,
      fragmentsBefore: 5,
      fragmentsAfter: 1,
      rows: 23,
      textIndex: "rebuilt",
    });
    expect(s.commit).toBe(hub.repos.get("acme/team")?.commit);
    const after = lanceFiles("acme/team");
    expect(s.filesAfter).toBe(after.length);
    expect(after.length).toBeLessThan(before.length / 2);
    expect(after.filter((p) => p.startsWith("chunks.lance/_versions/"))).toHaveLength(1);
    expect((await commitIds(files("acme/team"), t.dir)).sort()).toEqual(ids);
    // Nothing to do twice.
    const again = await runFunes(["compact", "acme/team"], a);
    expect(again.stdout).toMatch(
      /^hf:\/\/datasets\/acme\/team is compact already \(\d+ files, 1 fragments, 23 chunks\)\n$/,
    );

    // lance 7.0.0 (the reference's) reads it, with its text index.
    const dir = mkdtempSync(join(t.dir, "lance7-"));
    for (const [p, b] of files("acme/team")) {
      mkdirSync(join(dir, p, ".."), { recursive: true });
      writeFileSync(join(dir, p), b);
    }
    const db = await createRequire(import.meta.url)("lancedb030").connect(dir);
    const table = await db.openTable("chunks");
    expect(await table.countRows()).toBe(23);
    expect((await table.listIndices()).map((i: { name: string }) => i.name)).toContain("text_idx");
    table.close();
    db.close();

    // A newcomer reads it: one manifest fetched, no transaction; rows of the first and the last push.
    const newcomer = userEnv("team-new");
    const from = hub.requests.length;
    expect(await recalls(newcomer, "acme/team", "dulcimer")).toContain("dulcimer plan");
    const fetched = hub.requests.slice(from).filter((q) => q.path.includes("/resolve/"));
    expect(fetched.filter((q) => q.path.includes("/_transactions/"))).toEqual([]);
    expect(fetched.filter((q) => q.path.includes("/_versions/"))).toHaveLength(1);
    expect((await recalls(newcomer, "acme/team", "graphic designer")).toLowerCase()).toContain(
      "graphic designer",
    );
    // A push after the compaction; recall finds it too.
    await newSession(a, "extra-after", "the estuary plan came after the compaction");
    await push(a, "acme/team");
    expect(await recalls(newcomer, "acme/team", "estuary")).toContain("estuary plan");

    // The early reader: offline, it reads the commit it had; back online, it moves to the new head.
    hub.offline = true;
    try {
      const offline = await runFunes(
        ["recall", "bergamot", "--memory", "acme/team", "--rerank-budget", "0"],
        early,
      );
      expect(offline.code, offline.stderr).toBe(0);
      expect(offline.stdout).toContain("bergamot plan");
    } finally {
      hub.offline = false;
    }
    expect(await recalls(early, "acme/team", "estuary")).toContain("estuary plan");
  });

  it("a push past FUNES_COMPACT_FILES compacts the memory after it lands", async () => {
    const a = await indexedHome("auto-a", { FUNES_COMPACT_FILES: "14" });
    const first = await push(a, "acme/auto", "--create");
    expect(first.compaction).toBeUndefined();
    let compacted: { kind: string; filesBefore: number; filesAfter: number; commit: string } | undefined;
    for (let i = 0; i < 6 && compacted === undefined; i++) {
      await newSession(a, `auto-${i}`, `auto session number ${i}`);
      compacted = (await push(a, "acme/auto")).compaction;
    }
    expect(compacted?.kind).toBe("compacted");
    expect(compacted?.filesBefore).toBeGreaterThan(14);
    expect(compacted?.filesAfter).toBe(lanceFiles("acme/auto").length);
    expect(compacted?.commit).toBe(hub.repos.get("acme/auto")?.commit);
    // Said to people too, on the next one.
    await newSession(a, "auto-text", "one more auto session");
    const text = await runFunes(["push", "acme/auto"], {
      ...a,
      extra: { ...a.extra, FUNES_COMPACT_FILES: "1" },
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /\n {2}compacted hf:\/\/datasets\/acme\/auto: \d+ → \d+ files \(commit [0-9a-f]{8}\)\n/,
    );
  });
});

describe("a compaction racing a push from another home", () => {
  it("the push lands first: the compaction is done again on the new head; the compaction first: the push lands on it", async () => {
    const a = await indexedHome("race-a");
    await push(a, "acme/race", "--create");
    for (const i of [0, 1, 2]) {
      await newSession(a, `race-${i}`, `race session ${i}`);
      await push(a, "acme/race");
    }
    const b = await indexedHome("race-b");
    await newSession(b, "race-b-1", "the teammate's first question");

    // A compaction held just before its commit; the teammate's push lands meanwhile.
    const c = await heldAt("compact:staged", a, ["compact", "acme/race", "--json"]);
    expect((await push(b, "acme/race")).published).toBe(1);
    c.child.kill("SIGCONT");
    expect(await c.closed, c.out()).toBe(0);
    const s = JSON.parse(c.out().slice(c.out().indexOf("{")));
    expect(s.attempts).toBe(2);
    expect(s.commit).toBe(hub.repos.get("acme/race")?.commit);
    const rows = await commitRows(files("acme/race"), t.dir, ["text"]);
    expect(rows.length).toBe(23);
    expect(rows.some((r) => r.text === "the teammate's first question")).toBe(true);
    expect(lanceFiles("acme/race").filter((p) => p.startsWith("chunks.lance/_versions/"))).toHaveLength(1);

    // The teammate's next push held just before its commit; a compaction lands meanwhile.
    await newSession(b, "race-b-2", "the teammate's second question");
    await newSession(a, "race-3", "race session 3");
    await push(a, "acme/race");
    const p = await heldAt("push:staged", b, ["push", "acme/race", "--json"]);
    const compacted = await runFunes(["compact", "acme/race", "--json"], a);
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(JSON.parse(compacted.stdout).commit).not.toBeNull();
    p.child.kill("SIGCONT");
    expect(await p.closed, p.out()).toBe(0);
    const pushed = JSON.parse(p.out().slice(p.out().indexOf("{")));
    expect(pushed).toMatchObject({ published: 1, attempts: 2 });
    const final = await commitRows(files("acme/race"), t.dir, ["text"]);
    expect(final.length).toBe(25);
    expect(final.some((r) => r.text === "the teammate's second question")).toBe(true);
  });
});

describe("forgetting and compacting", () => {
  it("a forgotten session does not come back after a compaction, nor with a teammate's push", async () => {
    const a = await indexedHome("forget-a");
    await push(a, "acme/forget-compact", "--create");
    await newSession(a, "fc-1", "one more session to fold");
    await push(a, "acme/forget-compact");
    const forget = await runFunes(
      ["forget", "--session", SESSION, "--memory", "acme/forget-compact", "--yes", "--json"],
      a,
    );
    expect(forget.code, forget.stderr).toBe(0);
    const gone = JSON.parse(forget.stdout.slice(forget.stdout.indexOf("{"))).preview.sessions[0]
      .chunks as number;
    const compact = await runFunes(["compact", "acme/forget-compact", "--json"], a);
    expect(compact.code, compact.stderr).toBe(0);
    const rows = await commitRows(files("acme/forget-compact"), t.dir, ["session_id"]);
    expect(rows.length).toBe(20 - gone);
    expect(rows.filter((r) => r.session_id === SESSION)).toEqual([]);
    // Its bytes left the compacted head: the fold wrote the fragment again without them.
    expect(lanceFiles("acme/forget-compact").filter((p) => p.startsWith("chunks.lance/_deletions/"))).toEqual(
      [],
    );
    expect(files("acme/forget-compact").has(".funes-forgotten.json")).toBe(true);
    // A teammate who still has the session pushes: it stays out.
    const b = await indexedHome("forget-b");
    const pushed = await push(b, "acme/forget-compact", "--yes");
    expect(pushed.published).toBe(0);
    const after = await commitRows(files("acme/forget-compact"), t.dir, ["session_id"]);
    expect(after.filter((r) => r.session_id === SESSION)).toEqual([]);
  });
});
