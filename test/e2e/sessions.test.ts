/**
 * `funes sessions` as a user runs it, the built CLI as a child process: a local memory and a Hub memory (the
 * loopback stand-in) listed together, newest first, each session naming the memory holding it; paging with
 * the offset the trailer names; repo and time filters; the people's view, the agent format and JSON; a bad
 * argument as a usage error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, spawnFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforsessions";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let reader: CliEnv;

function line(uuid: string, role: "user" | "assistant", text: string, ts: string): string {
  return JSON.stringify({
    type: role,
    uuid,
    timestamp: ts,
    cwd: "/home/dev/app",
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  });
}

/** A user with Claude Code sessions (id → [opening prompt, day of November 2026]), indexed with vectors. */
async function userWith(name: string, sessions: Record<string, [string, number]>): Promise<CliEnv> {
  const home = join(t.dir, `${name}-home`);
  const proj = join(home, ".claude", "projects", "-home-dev-app");
  mkdirSync(proj, { recursive: true });
  for (const [id, [prompt, day]] of Object.entries(sessions)) {
    const at = (min: number) => `2026-11-${String(day).padStart(2, "0")}T10:0${min}:00.000Z`;
    const lines = [
      line(`${id}-q`, "user", prompt, at(0)),
      line(`${id}-a`, "assistant", `done: ${prompt}`, at(1)),
      line(`${id}-q2`, "user", "thanks", at(2)),
    ];
    writeFileSync(join(proj, `${id}.jsonl`), `${lines.join("\n")}\n`);
  }
  const e = {
    home,
    funesHome: join(t.dir, `${name}-funes`),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN },
  };
  expect((await runFunes(["index", "--yes"], e)).code).toBe(0);
  return e;
}

interface Listed {
  memory: string;
  total: number;
  sessions: { sessionId: string; memory: string; prompt: string; promptTurn: string; turns: number }[];
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const team = await userWith("team", {
    "sess-team": ["set up the nightly benchmark\nacross two runners", 12],
  });
  expect((await runFunes(["push", "acme/team", "--create"], team)).code).toBe(0);
  reader = await userWith("reader", {
    "sess-old": ["why does the importer drop rows", 3],
    "sess-new": ["rename the config loader", 20],
  });
});
afterAll(async () => {
  await hub?.close();
  t?.cleanup();
});

describe("funes sessions", () => {
  it("lists a local and a Hub memory together, newest first, each session naming its memory", async () => {
    const local = join(reader.funesHome, "memory");
    const r = await spawnFunes(["sessions", "--memory", "local,acme/team", "--json"], reader);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Listed;
    expect(listed.memory).toBe(`${local}, hf://datasets/acme/team`);
    expect(listed.total).toBe(3);
    expect(listed.sessions.map((s) => [s.sessionId, s.memory, s.turns])).toEqual([
      ["sess-new", local, 3],
      ["sess-team", "hf://datasets/acme/team", 3],
      ["sess-old", local, 3],
    ]);
    expect(listed.sessions[1]).toMatchObject({
      prompt: "set up the nightly benchmark\nacross two runners",
      promptTurn: "sess-team-q",
    });
  });

  it("pages with the offset its trailer names, and filters by time as recall does", async () => {
    const first = await spawnFunes(["sessions", "--limit", "1"], reader);
    expect(first.code, first.stderr).toBe(0);
    // Off a terminal the agent format: the opening turn's → get line, the prompt on one line.
    expect(first.stdout).toBe(
      [
        "[2026-11-20T10:00:00.000Z] claude_code -home-dev-app turns=3",
        `  → get sess-new sess-new-q --memory ${join(reader.funesHome, "memory")}`,
        "  rename the config loader",
        "---",
        "sessions 1–1 of 2, newest first; offset 1 continues",
        "",
      ].join("\n"),
    );
    const next = await spawnFunes(["sessions", "--limit", "1", "--offset", "1", "--json"], reader);
    expect((JSON.parse(next.stdout) as Listed).sessions.map((s) => s.sessionId)).toEqual(["sess-old"]);
    const window = await spawnFunes(
      ["sessions", "--since", "2026-11-10", "--until", "2026-11-30", "--memory", "local,acme/team", "--json"],
      reader,
    );
    expect((JSON.parse(window.stdout) as Listed).sessions.map((s) => s.sessionId)).toEqual([
      "sess-new",
      "sess-team",
    ]);
    const none = await spawnFunes(["sessions", "--repo", "acme/nothing"], reader);
    expect([none.code, none.stdout]).toEqual([0, "no sessions\n"]);
  });

  it("shows people two lines a session, the prompt on one line", async () => {
    const r = await spawnFunes(["sessions", "--memory", "acme/team", "--format", "human"], {
      ...reader,
      extra: { ...reader.extra, COLUMNS: "80" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "2026-11-12 10:00  claude_code  3 turns  sess-team  -home-dev-app",
        "  set up the nightly benchmark across two runners",
        "sessions 1–1 of 1, newest first",
        "",
      ].join("\n"),
    );
  });

  it("refuses a bad argument as a usage error, naming the flag", async () => {
    const cases: [string[], RegExp][] = [
      [["--limit", "0"], /^funes: --limit "0" is not a number of sessions to list/],
      [["--offset", "x"], /^funes: --offset takes a whole number ≥ 0, not "x"/],
      [["--since", "someday"], /^funes: --since "someday" is not a date/],
    ];
    for (const [args, want] of cases) {
      const r = await spawnFunes(["sessions", ...args], reader);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(want);
      expect(r.stdout).toBe("");
    }
  });
});
