/**
 * `funes scan` and `funes get --from/--to` as a user runs them, the built CLI as a child process, over a local
 * memory, a Hub memory (the loopback stand-in) and the two together: an exact needle found at its turn's
 * position, absence said with the number of turns read (exit 0), case, context turns, ranges, a session's
 * short id, and bad input as one line that says what to do; then the same two through `funes mcp` over
 * stdio, answering as the CLI's agent format does.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, spawnFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { connectMcp } from "../helpers/mcp.js";

const TOKEN = "hf_standintokenforscan";
const A = "7028acdd-e85a-4fa0-88a5-71f4103333a0";
const B = "7028ac11-0000-4000-8000-000000000000";
const TEAM = "9f3a0b1c-2d3e-4f50-8a6b-7c8d9e0f1a2b";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let reader: CliEnv;
let local: string;

function line(uuid: string, role: "user" | "assistant", text: string, ts: string): string {
  return JSON.stringify({
    type: role,
    uuid,
    timestamp: ts,
    cwd: "/home/dev/app",
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  });
}

/** A user with Claude Code sessions (id → the texts of its turns, user and assistant in turn), indexed. */
async function userWith(name: string, sessions: Record<string, string[]>): Promise<CliEnv> {
  const home = join(t.dir, `${name}-home`);
  const proj = join(home, ".claude", "projects", "-home-dev-app");
  mkdirSync(proj, { recursive: true });
  for (const [id, texts] of Object.entries(sessions)) {
    const lines = texts.map((text, i) =>
      line(
        `${id.slice(0, 4)}-${i}`,
        i % 2 === 0 ? "user" : "assistant",
        text,
        `2026-11-20T10:${String(i).padStart(2, "0")}:00.000Z`,
      ),
    );
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

/** Twelve turns of which turn 5 and turn 8 mention the disk. */
const TWELVE = Array.from({ length: 12 }, (_, i) =>
  i === 5
    ? "the write failed with ENOSPC: no space left on device"
    : i === 8
      ? "Enospc again? clean the cache"
      : `turn ${i} talks about the build`,
);

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const team = await userWith("team", {
    [TEAM]: ["why is the runner full", "the runner's disk hit ENOSPC during the nightly benchmark", "thanks"],
  });
  expect((await runFunes(["push", "acme/team", "--create"], team)).code).toBe(0);
  reader = await userWith("reader", { [A]: TWELVE, [B]: ["another session", "with its own turns"] });
  local = join(reader.funesHome, "memory");
});
afterAll(async () => {
  await hub?.close();
  t?.cleanup();
});

const funes = (args: string[]) => spawnFunes(args, reader);

describe("funes scan", () => {
  it("finds an exact needle at its turn's position, in the agent format off a terminal", async () => {
    const r = await funes(["scan", "ENOSPC", "7028acdd"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        `1 match of "ENOSPC" in 1 of 12 turns of session ${A} (seq 0–11)`,
        "[2026-11-20T10:05:00.000Z] assistant seq5 turn=7028-5 matches=1",
        `  → get ${A} 7028-5 --memory ${local}`,
        "  text: the write failed with ENOSPC: no space left on device",
        "---",
        "",
      ].join("\n"),
    );
  });

  it("says the needle is not there, with the turns it read, and exits 0", async () => {
    const r = await funes(["scan", "ENOSPC: disk quota", A]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(`"ENOSPC: disk quota" not found in 12 turns of session ${A} (seq 0–11)\n`);
    const ranged = await funes(["scan", "ENOSPC", A, "--from", "6", "--to", "9"]);
    expect(ranged.stdout).toBe(`"ENOSPC" not found in 4 turns of session ${A} (seq 6–9)\n`);
    const json = JSON.parse((await funes(["scan", "never said", A, "--json"])).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ sessionId: A, matches: 0, scanned: 12, sessionTurns: 12, turns: [] });
  });

  it("matches any case with -i, and shows the turns around each match for people", async () => {
    const r = await spawnFunes(["scan", "enospc", "7028acdd", "-i", "--context", "1", "--format", "human"], {
      ...reader,
      extra: { ...reader.extra, COLUMNS: "80" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        `2 matches of "enospc" in 2 of 12 turns of session ${A} (seq 0–11), ignoring case`,
        "  user · seq 4 · 2026-11-20T10:04:00.000Z",
        "    turn 4 talks about the build",
        "▶ assistant · seq 5 · 2026-11-20T10:05:00.000Z · 1 match",
        "    text  the write failed with »ENOSPC«: no space left on device",
        `  → funes get ${A} 7028-5`,
        "  user · seq 6 · 2026-11-20T10:06:00.000Z",
        "    turn 6 talks about the build",
        "  assistant · seq 7 · 2026-11-20T10:07:00.000Z",
        "    turn 7 talks about the build",
        "▶ user · seq 8 · 2026-11-20T10:08:00.000Z · 1 match",
        "    text  »Enospc« again? clean the cache",
        `  → funes get ${A} 7028-8`,
        "  assistant · seq 9 · 2026-11-20T10:09:00.000Z",
        "    turn 9 talks about the build",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await funes(["scan", "enospc", A, "-i", "--json"])).stdout) as {
      matches: number;
      turns: {
        seq: number;
        turnUuid: string;
        matches: { block: number; offset: number; length: number }[];
      }[];
    };
    expect(json.matches).toBe(2);
    expect(json.turns.map((x) => [x.seq, x.turnUuid, x.matches])).toEqual([
      [5, "7028-5", [{ block: 0, offset: 22, length: 6 }]],
      [8, "7028-8", [{ block: 0, offset: 0, length: 6 }]],
    ]);
  });

  it("scans a Hub memory, and several memories (the first holding the session answers)", async () => {
    const hubScan = await funes(["scan", "ENOSPC", TEAM.slice(0, 8), "--memory", "acme/team"]);
    expect(hubScan.code, hubScan.stderr).toBe(0);
    expect(hubScan.stdout).toContain(`1 match of "ENOSPC" in 1 of 3 turns of session ${TEAM} (seq 0–2)\n`);
    expect(hubScan.stdout).toContain(`  → get ${TEAM} 9f3a-1 --memory hf://datasets/acme/team\n`);
    const both = await funes(["scan", "ENOSPC", TEAM, "--memory", "local,acme/team", "--json"]);
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toMatchObject({
      memory: "hf://datasets/acme/team",
      matches: 1,
      scanned: 3,
    });
    const mine = await funes(["scan", "ENOSPC", A, "--memory", "acme/team,local", "--json"]);
    expect(JSON.parse(mine.stdout)).toMatchObject({ memory: local, matches: 1, scanned: 12 });
  });

  it("refuses bad input with one line that says what to do", async () => {
    const cases: [string[], number, RegExp][] = [
      [
        ["scan", "x", "ffff0000"],
        1,
        /^funes: session "ffff0000" is not in .* — find its id with funes sessions/,
      ],
      [
        ["scan", "x", "7028ac"],
        2,
        /^funes: session "7028ac" is ambiguous: 2 sessions begin with it .* — give more of its id\n$/,
      ],
      [
        ["scan", "x", A, "--from", "9", "--to", "3"],
        2,
        /^funes: --from 9 is past --to 3 — give a start at or before the end/,
      ],
      [
        ["scan", "x", A, "--from", "40"],
        2,
        /^funes: session "[^"]+" has no turns at seq 40 or after \(its turns are seq 0–11\)/,
      ],
      [["scan", "", A], 2, /^funes: the needle is empty — give the exact text to look for/],
      [["scan", "x", A, "--context", "x"], 2, /^funes: --context takes a whole number ≥ 0, not "x"/],
      [
        ["scan", "x", A, "--context", "51"],
        2,
        /^funes: --context "51" is not a number of turns to show around each match/,
      ],
      [["scan", "x"], 2, /^funes: funes scan needs <needle> <session_id>/],
    ];
    for (const [args, code, want] of cases) {
      const r = await funes(args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toMatch(want);
      expect(r.stderr.trimEnd().split("\n"), args.join(" ")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
    // A needle that starts with `-` comes after `--`.
    const dashed = await funes(["scan", "--", "-x", A]);
    expect([dashed.code, dashed.stdout]).toEqual([
      0,
      `"-x" not found in 12 turns of session ${A} (seq 0–11)\n`,
    ]);
  });
});

describe("funes get --from/--to", () => {
  it("reads a stretch of a session by position, and says where it sits in the session", async () => {
    const r = await funes(["get", "7028acdd", "--from", "4", "--to", "6"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "[2026-11-20T10:04:00.000Z] user seq4 turn=7028-4",
        "turn 4 talks about the build",
        "---",
        "[2026-11-20T10:05:00.000Z] assistant seq5 turn=7028-5",
        "the write failed with ENOSPC: no space left on device",
        "---",
        "[2026-11-20T10:06:00.000Z] user seq6 turn=7028-6",
        "turn 6 talks about the build",
        "---",
        `seq 4–6: 3 of 12 turns of session ${A}; from 7 continues`,
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await funes(["get", A, "--from", "10", "--json"])).stdout) as {
      sessionId: string;
      from: number;
      to: null;
      sessionTurns: number;
      next: null;
      turns: { seq: number; turnUuid: string }[];
    };
    expect(json).toMatchObject({ sessionId: A, from: 10, to: null, sessionTurns: 12, next: null });
    expect(json.turns.map((x) => x.seq)).toEqual([10, 11]);
    // The session alone: its first turns; an end alone, the turns up to it.
    const opening = await funes(["get", A, "--json"]);
    expect((JSON.parse(opening.stdout) as typeof json).turns.map((x) => x.seq)).toEqual([
      ...Array(12).keys(),
    ]);
    const human = await spawnFunes(["get", A, "--to", "1", "--format", "human"], reader);
    expect(human.stdout).toBe(
      [
        "  user · seq 0 · 2026-11-20T10:00:00.000Z",
        "turn 0 talks about the build",
        "",
        "  assistant · seq 1 · 2026-11-20T10:01:00.000Z",
        "turn 1 talks about the build",
        "",
        `seq 0–1: 2 of 12 turns of session ${A}; --from 2 continues`,
        "",
      ].join("\n"),
    );
  });

  it("reads a Hub memory's session by position, and several memories as scan does", async () => {
    const r = await funes(["get", TEAM.slice(0, 8), "--from", "1", "--memory", "acme/team"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "[2026-11-20T10:01:00.000Z] assistant seq1 turn=9f3a-1",
        "the runner's disk hit ENOSPC during the nightly benchmark",
        "---",
        "[2026-11-20T10:02:00.000Z] user seq2 turn=9f3a-2",
        "thanks",
        "---",
        `seq 1–2: 2 of 3 turns of session ${TEAM}`,
        "",
      ].join("\n"),
    );
    const both = await funes(["get", TEAM, "--to", "0", "--memory", "local,acme/team", "--json"]);
    expect(JSON.parse(both.stdout)).toMatchObject({ memory: "hf://datasets/acme/team", sessionTurns: 3 });
    // A turn id with several memories: the one holding the session answers too.
    const turn = await funes(["get", TEAM, "9f3a-1", "--window", "0", "--memory", "local,acme/team"]);
    expect(turn.stdout).toContain("turn=9f3a-1\nthe runner's disk hit ENOSPC");
  });

  it("refuses bad input with one line that says what to do", async () => {
    const cases: [string[], number, RegExp][] = [
      [
        ["get", A, "--from", "9", "--to", "3"],
        2,
        /^funes: --from 9 is past --to 3 — give a start at or before the end/,
      ],
      [["get", A, "7028-4", "--from", "3"], 2, /^funes: get takes a turn id or --from\/--to, not both — /],
      [["get", A, "--window", "2"], 2, /^funes: --window counts turns around a turn id — /],
      [["get", A, "--from", "x"], 2, /^funes: --from takes a whole number ≥ 0, not "x"/],
      [
        ["get", A, "--from", "12", "--to", "20"],
        2,
        /^funes: session "[^"]+" has no turns at seq 12–20 \(its turns are seq 0–11\) — give positions within it\n$/,
      ],
      [
        ["get", "7028ac", "--from", "0"],
        2,
        /^funes: session "7028ac" is ambiguous: 2 sessions begin with it/,
      ],
      [["get", "ffff0000", "--from", "0"], 1, /^funes: session "ffff0000" is not in /],
    ];
    for (const [args, code, want] of cases) {
      const r = await funes(args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toMatch(want);
      expect(r.stderr.trimEnd().split("\n"), args.join(" ")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
  });
});

describe("funes mcp: scan and get by position", () => {
  it("answers over stdio with the CLI's agent format, on a local and a Hub memory", async () => {
    const mcp = await connectMcp([], reader);
    try {
      const { tools } = await mcp.tools();
      const scan = tools.find((x) => x.name === "scan");
      expect(scan?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(
        await mcp.call("scan", { needle: "enospc", session_id: "7028acdd", ignore_case: true, context: 1 }),
      ).toBe(
        (await funes(["scan", "enospc", "7028acdd", "-i", "--context", "1", "--format", "agent"])).stdout,
      );
      expect(await mcp.call("scan", { needle: "never said", session_id: A })).toBe(
        `"never said" not found in 12 turns of session ${A} (seq 0–11)\n`,
      );
      expect(await mcp.call("scan", { needle: "ENOSPC", session_id: TEAM, memory: "acme/team" })).toBe(
        (await funes(["scan", "ENOSPC", TEAM, "--memory", "acme/team"])).stdout,
      );
      expect(await mcp.call("get", { session_id: A, from: 4, to: "6" })).toBe(
        (await funes(["get", A, "--from", "4", "--to", "6"])).stdout,
      );
      expect(await mcp.call("get", { session_id: TEAM, from: 1, memory: "local,acme/team" })).toContain(
        `seq 1–2: 2 of 3 turns of session ${TEAM}\n`,
      );
      expect(await mcp.result("scan", { needle: "x", session_id: "7028ac" })).toEqual({
        isError: true,
        text: expect.stringMatching(/^scan error: session "7028ac" is ambiguous/),
      });
      expect(await mcp.result("get", { session_id: A, from: 9, to: 3 })).toEqual({
        isError: true,
        text: 'get error: from "9" is past to (3) — give a start at or before the end, e.g. from 3 and to 9',
      });
    } finally {
      await mcp.close();
    }
  });
});
