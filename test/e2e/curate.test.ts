/**
 * Project memories (`funes curate`) and `push --sessions`, on the loopback Hub stand-in: a curated push
 * publishes exactly the included sessions, nothing of a session that grew until it is reviewed again,
 * never sub-agent sessions; `--sessions` publishes only the named ones.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { commitProject, commitRows, writeOut } from "../helpers/commit-table.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let u: CliEnv;
let proj: string;

function line(uuid: string, role: "user" | "assistant", text: string, ts: string, cwd: string): string {
  return JSON.stringify({
    type: role,
    uuid,
    timestamp: ts,
    cwd,
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  });
}

function session(id: string, cwd: string, turns: [string, string][], day = "10"): void {
  const lines = turns.flatMap(([q, a], i) => [
    line(`${id}-q${i}`, "user", q, `2026-11-${day}T10:0${i}:00.000Z`, cwd),
    line(`${id}-a${i}`, "assistant", a, `2026-11-${day}T10:0${i}:05.000Z`, cwd),
  ]);
  writeFileSync(join(proj, `${id}.jsonl`), `${lines.join("\n")}\n`);
}

/** Chunks per session at a repo's head. */
async function remoteSessions(repo: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await commitRows(hub.repos.get(repo)?.files ?? new Map(), t.dir, ["session_id"]))
    out.set(String(r.session_id), (out.get(String(r.session_id)) ?? 0) + 1);
  return out;
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const home = join(t.dir, "home");
  proj = join(home, ".claude", "projects", "-work-app");
  mkdirSync(proj, { recursive: true });
  // A checkout whose git remote names the project.
  const checkout = join(t.dir, "work", "app");
  mkdirSync(checkout, { recursive: true });
  execFileSync("git", ["init", "-q", checkout]);
  execFileSync("git", ["-C", checkout, "remote", "add", "origin", "https://github.com/acme/app.git"]);
  session("s-keep", checkout, [["add retries to the uploader", "retries now back off exponentially"]], "10");
  session(
    "s-drop",
    checkout,
    [["try the experimental parser", "the experimental parser is abandoned"]],
    "11",
  );
  session("agent-sub1", checkout, [["sub-agent task", "sub-agent result"]], "12");
  session("s-else", join(t.dir, "elsewhere"), [["plan my holiday", "pack light"]], "13");
  u = {
    home,
    funesHome: join(t.dir, "funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: hub.url, HF_TOKEN: "hf_standintokenforcurate" },
  };
  expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes curate", () => {
  it("names a project memory; push publishes included sessions only, and none that grew since review", async () => {
    const named = await runFunes(["curate", "acme/app-memory", "acme/app", "--create"], u);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain("hf://datasets/acme/app-memory is now the project memory of acme/app");
    expect(named.stdout).toContain("2 session(s) pending review:");
    expect(named.stdout).not.toContain("agent-sub1");
    expect(named.stdout).not.toContain("s-else");
    expect(hub.repos.get("acme/app-memory")?.private).toBe(true);

    const before = await runFunes(["push", "acme/app-memory"], u);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain("nothing published");
    expect(before.stdout).toContain("2 session(s) on this machine pending review for acme/app");
    expect((await remoteSessions("acme/app-memory")).size).toBe(0);

    const decided = await runFunes(
      ["curate", "acme/app-memory", "--include", "s-keep", "--exclude", "s-drop"],
      u,
    );
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout).toContain("recorded 1 include, 1 exclude");
    expect(decided.stdout).toContain("nothing pending review");
    const pushed = await runFunes(["push", "acme/app-memory", "--json"], u);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect([...(await remoteSessions("acme/app-memory")).keys()]).toEqual(["s-keep"]);

    // The included session grows: nothing of it ships until it is reviewed again.
    const checkout = join(t.dir, "work", "app");
    appendFileSync(
      join(proj, "s-keep.jsonl"),
      `${line("s-keep-q9", "user", "also log each retry", "2026-11-20T10:00:00.000Z", checkout)}\n${line("s-keep-a9", "assistant", "each retry is logged now", "2026-11-20T10:00:05.000Z", checkout)}\n`,
    );
    expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
    const stale = await runFunes(["push", "acme/app-memory"], u);
    expect(stale.stdout).toContain("1 session(s) on this machine pending review");
    expect((await remoteSessions("acme/app-memory")).get("s-keep")).toBe(2);
    const status = await runFunes(["status", "--memory", "acme/app-memory"], u);
    expect(status.stdout).toContain("project memory of acme/app\npending review: 1 session(s)");
    // Reviewed again on a terminal: included, then the push ships the new chunks.
    const review = await runFunesInTerminal(["curate", "acme/app-memory"], u, ["i"]);
    expect(review.code, review.stdout).toBe(0);
    expect(review.stdout).toContain("s-keep");
    expect(review.stdout).toContain("> add retries to the uploader");
    expect((await runFunes(["push", "acme/app-memory"], u)).code).toBe(0);
    expect((await remoteSessions("acme/app-memory")).get("s-keep")).toBe(4);
    expect([...(await remoteSessions("acme/app-memory")).keys()]).toEqual(["s-keep"]);
  });

  it("says what is wrong with a bad project, an unknown session, and a rename", async () => {
    const bare = await runFunes(["curate", "acme/app-memory", "app"], u);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('"app" is not a repo identity (owner/name) — did you mean "acme/app"?');
    const unknown = await runFunes(["curate", "acme/app-memory", "--include", "s-nope"], u);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('session "s-nope" is not in your local memory');
    const rename = await runFunes(["curate", "acme/app-memory", "acme/other"], u);
    expect(rename.code).toBe(2);
    expect(rename.stderr).toContain(
      "is already the project memory of acme/app — refusing to rename it to acme/other",
    );
    const missing = await runFunes(["curate", "acme/app-memory-x"], u);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("doesn't exist on the Hub");
  });
});

describe("naming a personal memory", () => {
  it("asks for consent, then writes its rows again under the project's name, losing none", async () => {
    expect((await runFunes(["push", "acme/personal", "--create"], u)).code).toBe(0);
    const before = await remoteSessions("acme/personal");
    const refused = await runFunes(["curate", "acme/personal", "acme/app"], u);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("uploads all of them again");
    expect(refused.stderr).toContain("re-run with --yes");
    const named = await runFunes(["curate", "acme/personal", "acme/app", "--yes"], u);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain("hf://datasets/acme/personal is now the project memory of acme/app");
    const files = hub.repos.get("acme/personal")?.files ?? new Map();
    expect(await commitProject(files, t.dir)).toBe("acme/app");
    expect(await remoteSessions("acme/personal")).toEqual(before);
    // The reference's Lance (7.0.0) reads the rewritten memory and its project.
    const old = createRequire(import.meta.url)("lancedb030");
    const db = await old.connect(writeOut(files, t.dir));
    const table = await db.openTable("chunks");
    expect((await table.schema()).metadata.get("project")).toBe("acme/app");
    expect(await table.countRows()).toBe([...before.values()].reduce((a, b) => a + b, 0));
    table.close();
    db.close();
    // Recall still works on it (the text index was rebuilt with the rows).
    const r = await runFunes(
      ["recall", "experimental parser", "--memory", "acme/personal", "--rerank-budget", "0"],
      u,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("experimental parser");
  });
});

describe("funes push --sessions", () => {
  it("publishes only the named sessions, and refuses ids the memory does not hold", async () => {
    const r = await runFunes(["push", "acme/notes", "--create", "--sessions", "s-else,s-drop"], u);
    expect(r.code, r.stderr).toBe(0);
    expect([...(await remoteSessions("acme/notes")).keys()].sort()).toEqual(["s-drop", "s-else"]);
    const bad = await runFunes(["push", "acme/notes", "--sessions", "s-missing"], u);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not in your local memory: "s-missing"');
  });
});
