/**
 * `funes index` at the edges of real histories: Hermes databases and session files under any name, archived
 * Codex sessions, a file indexed with the wrong harness, `--force`, two agents' sessions sharing a file stem,
 * and the one-line answers for paths that cannot be indexed. The built CLI, a temporary HOME.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALL_TIERS, chunkTurns } from "../../src/chunk/index.js";
import { LocalStore } from "../../src/local/index.js";
import { parseCodexRollout } from "../../src/traces/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { ROOT, TRACES, tempDir } from "../helpers/fixtures.js";
import { writeHermesDb } from "../helpers/hermes-db.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;

interface Summary {
  sessions: number;
  sessionsByHarness: Record<string, number>;
  unitsRead: number;
  unitsUnchanged: number;
  chunksAdded: number;
  chunksPresent: number;
  skipped: Record<string, number>;
  notes: string[];
}

async function indexJson(args: string[]): Promise<Summary> {
  const r = await runFunes(["index", "--json", ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
}

beforeEach(() => {
  t = tempDir();
  env = { home: join(t.dir, "home"), funesHome: join(t.dir, "funes") };
  mkdirSync(env.home);
});
afterEach(() => t.cleanup());

describe("funes index: every agent file a user has", () => {
  it("opens a Hermes database whatever its name, and says so when a folder has none", async () => {
    const db = join(t.dir, "hermes-2026.db");
    writeHermesDb(
      db,
      "v20",
      [{ id: "20260101_090000_abc123", cwd: "/srv/bot" }],
      [
        {
          session_id: "20260101_090000_abc123",
          role: "user",
          content: "back up the wiki",
          timestamp: 1_767_258_000,
        },
        {
          session_id: "20260101_090000_abc123",
          role: "assistant",
          content: "Backed up to /srv/wiki.tar.",
          timestamp: 1_767_258_004,
        },
      ],
    );
    // Hermes keeps it in WAL mode; indexing it leaves nothing beside it (no -wal, no -shm).
    const beside = () => readdirSync(t.dir).filter((n) => n.startsWith("hermes-2026.db"));
    expect(beside()).toEqual(["hermes-2026.db"]);
    const forced = await indexJson([db, "--harness", "hermes"]);
    expect(forced.sessionsByHarness).toEqual({ hermes: 1 });
    expect(forced.chunksAdded).toBe(2);
    // Found by content without the flag too (nothing new to add).
    expect((await indexJson(["--force", db])).chunksPresent).toBe(2);
    expect(beside()).toEqual(["hermes-2026.db"]);

    const folder = join(t.dir, "backups");
    mkdirSync(folder);
    const r = await runFunes(["index", folder, "--harness", "hermes"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `funes: no Hermes database in "${folder}" (looked for state.db and sessions/) — give the database file itself, e.g. \`funes index ~/.hermes/state.db\`\n`,
    );
  });

  it("reads a file again when the harness changes, and --force re-reads without duplicating", async () => {
    const file = join(t.dir, "claude_session.jsonl");
    cpSync(join(TRACES, "claude", "claude_session.jsonl"), file);
    const wrong = await indexJson([file, "--harness", "codex"]);
    expect(wrong.chunksAdded).toBe(0);
    const state = JSON.parse(readFileSync(join(env.funesHome, "state.json"), "utf8"));
    expect(state[file]).toMatchObject({ harness: "codex", chunks: 0 });

    const right = await indexJson([file]);
    expect(right.unitsRead).toBe(1);
    expect(right.chunksAdded).toBe(3);
    expect(JSON.parse(readFileSync(join(env.funesHome, "state.json"), "utf8"))[file]).toMatchObject({
      harness: "claude_code",
      parser: 5,
      chunks: 3,
    });
    expect((await indexJson([file])).unitsUnchanged).toBe(1);

    const forced = await indexJson(["--force", file]);
    expect(forced).toMatchObject({ unitsRead: 1, unitsUnchanged: 0, chunksAdded: 0, chunksPresent: 3 });
  });

  it('status after an index that stored nothing says so, not "no index yet"', async () => {
    const file = join(t.dir, "episodic-memory-medium.jsonl");
    cpSync(join(TRACES, "claude", "episodic-memory-medium.jsonl"), file);
    expect((await indexJson([file])).chunksAdded).toBe(0);
    const status = await runFunes(["status"], env);
    expect(status.stdout).toBe(
      `memory: ${join(env.funesHome, "memory")}\nchunks: 0 — an index ran but stored nothing (its sessions held no indexable content); \`funes index <path> --verbose\` shows what it passed over\nagents: none set up — \`funes add <agent>\` sets one up\n`,
    );
  });

  it("walks Hermes session files and archived Codex sessions; the summary keys sessions by agent", async () => {
    const sessions = join(env.home, ".hermes", "sessions");
    mkdirSync(sessions, { recursive: true });
    for (const f of ["20250912_101500_a1b2c3.jsonl", "session_20250913_081200_d4e5f6.json"])
      cpSync(join(TRACES, "hermes", f), join(sessions, f));
    const archived = join(env.home, ".codex", "archived_sessions");
    mkdirSync(archived, { recursive: true });
    cpSync(
      join(TRACES, "codex", "codex_session.jsonl"),
      join(archived, "rollout-2026-06-23T05-37-02-019ef2fb-6574-7f83-bd99-9118713271f2.jsonl"),
    );
    const r = await runFunes(["index"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`scanning codex transcripts under ${archived} — 1 to index`);
    expect(r.stderr).toContain(`scanning hermes session files under ${sessions} — 2 to index`);
    expect(r.stdout).toMatch(/^ {2}sessions: 3 \(hermes 2, codex 1\), turns: \d+/m);
    expect(r.stdout).toContain("hermes system prompt (agent-injected) not indexed: 1");
    const recall = await runFunes(["recall", "nginx", "logs", "-k", "1", "--rerank-budget", "0"], env);
    expect(recall.stdout).toMatch(/^\[2025-09-13T08:12:00\.512391\] hermes /);
    expect(recall.stdout).toContain("→ get 20250913_081200_d4e5f6 20250913_081200_d4e5f6-0 ");
  });

  it("reads every agent's sessions where its own variable moved its folder, and says where it looked", async () => {
    // Users who set CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR or HERMES_HOME have nothing under ~/.
    const cfg = join(t.dir, "cfg");
    const moved = {
      CLAUDE_CONFIG_DIR: join(cfg, "claude"),
      CODEX_HOME: join(cfg, "codex"),
      PI_CODING_AGENT_DIR: join(cfg, "pi"),
      HERMES_HOME: join(cfg, "hermes"),
      XDG_DATA_HOME: join(cfg, "data"),
      COPILOT_HOME: join(cfg, "copilot"),
    };
    // A funes home with no memory yet: nothing to read is a failure that says where it looked. (Over a
    // memory that holds sessions it is a note: outlives-cleanup.test.ts.)
    const none = await runFunes(["index"], { ...env, funesHome: join(t.dir, "no-memory-yet"), extra: moved });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      `no local sessions found (looked in ${join(moved.CLAUDE_CONFIG_DIR, "projects")}, ~/.config/claude/projects, ${join(moved.CODEX_HOME, "sessions")}, `,
    );
    const put = (dir: string, from: string, name: string) => {
      mkdirSync(dir, { recursive: true });
      cpSync(join(TRACES, from), join(dir, name));
    };
    put(join(moved.CLAUDE_CONFIG_DIR, "projects", "-srv-app"), "claude/claude_session.jsonl", "s1.jsonl");
    put(
      join(moved.CODEX_HOME, "sessions", "2026", "06", "23"),
      "codex/codex_session.jsonl",
      "rollout-2026-06-23T05-37-02-019ef2fb-6574-7f83-bd99-9118713271f2.jsonl",
    );
    put(join(moved.PI_CODING_AGENT_DIR, "sessions", "--srv-app--"), "pi/pi_session.jsonl", "p1.jsonl");
    put(
      join(moved.HERMES_HOME, "sessions"),
      "hermes/20250912_101500_a1b2c3.jsonl",
      "20250912_101500_a1b2c3.jsonl",
    );
    put(join(moved.XDG_DATA_HOME, "opencode"), "opencode/opencode.db", "opencode.db");
    put(join(moved.XDG_DATA_HOME, "opencode"), "opencode/opencode.db-wal", "opencode.db-wal");
    cpSync(join(TRACES, "copilot", "session-state"), join(moved.COPILOT_HOME, "session-state"), {
      recursive: true,
    });
    const r = await runFunes(["index", "--json"], { ...env, extra: moved });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys((JSON.parse(r.stdout) as Summary).sessionsByHarness).sort()).toEqual([
      "claude_code",
      "codex",
      "copilot",
      "hermes",
      "opencode",
      "pi",
    ]);
    // Without the variables the same user's default folders are empty: nothing new, the memory kept.
    const empty = await runFunes(["index"], env);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toMatch(/no local sessions found \(looked in [^)]*\) — nothing new to index/);
  });

  it("keeps two agents' sessions with one file stem apart in status and get", async () => {
    const claude = join(env.home, ".claude", "projects", "-w");
    const pi = join(env.home, ".pi", "agent", "sessions", "--w--");
    mkdirSync(claude, { recursive: true });
    mkdirSync(pi, { recursive: true });
    cpSync(join(TRACES, "claude", "claude_session.jsonl"), join(claude, "shared.jsonl"));
    cpSync(join(TRACES, "pi", "pi_session.jsonl"), join(pi, "shared.jsonl"));
    const s = await indexJson([]);
    expect(s.sessions).toBe(2);
    expect(s.sessionsByHarness).toEqual({ claude_code: 1, pi: 1 });
    const status = await runFunes(["status"], env);
    expect(status.stdout).toMatch(/\nsessions: 2\n/);
    const get = await runFunes(
      ["get", "shared", "d753fba5-0c26-437f-82df-ba98aa773943", "--format", "agent"],
      env,
    );
    expect(get.code, get.stderr).toBe(0);
    // Only the Claude session's three turns, not pi's four interleaved by seq.
    expect(get.stdout.match(/^\[.*\] \w+ seq\d+ turn=/gm)).toHaveLength(3);
    // Recall's neighbours come from the hit's own agent too.
    const recall = await runFunes(
      ["recall", "digital", "twin", "earth", "-k", "1", "--rerank-budget", "0"],
      env,
    );
    expect(recall.stdout).toContain("Build me a photo-realistic");
    expect(recall.stdout).toContain("[tool_use PowerShell]");
    expect(recall.stdout).not.toContain("how does this project work");
  });
});

describe("funes index: agent boilerplate", () => {
  it("a codex exec turn's instructions and environment are counted, not recalled; the question is", async () => {
    const env2 = (type: string, payload: object) =>
      JSON.stringify({ timestamp: "2026-02-23T11:40:29.277Z", type, payload });
    const msg = (role: string, text: string) =>
      env2("response_item", { type: "message", role, content: [{ type: "input_text", text }] });
    const dir = join(env.home, ".codex", "sessions", "2026", "02", "23");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"),
      [
        env2("session_meta", {
          id: "019c8a4c-ed82-79a1-aa28-7738fc5ab61a",
          cwd: "/work/app",
          originator: "codex_exec",
        }),
        msg(
          "developer",
          "<permissions instructions>\nThe sandbox lets you write inside the workspace only.\n</permissions instructions>",
        ),
        msg(
          "developer",
          "<skills_instructions>\nA skill is a set of sandbox instructions in a SKILL.md file.\n</skills_instructions>",
        ),
        msg(
          "user",
          "# AGENTS.md instructions for /work/app\n\n<INSTRUCTIONS>\nRun the sandbox tests first.\n</INSTRUCTIONS>",
        ),
        msg(
          "user",
          "<environment_context>\n  <cwd>/work/app</cwd>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>",
        ),
        msg("user", "why does the sandbox test for login time out?"),
      ].join("\n"),
    );
    const r = await runFunes(["index", "--harness", "codex"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "  agent boilerplate left out: 4 block(s) (codex developer instructions: 2, codex <environment_context>: 1, codex AGENTS.md instructions: 1)",
    );
    const recall = await runFunes(["recall", "sandbox", "--harness", "codex", "--rerank-budget", "0"], env);
    expect(recall.stdout.match(/^\[.*\] codex /gm)).toHaveLength(1);
    expect(recall.stdout).toContain("why does the sandbox test for login time out?");
  });

  it("rows an older funes stored for boilerplate are removed when the session is read again", async () => {
    const dir = join(env.home, ".codex", "sessions");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl");
    const line = (role: string, text: string) =>
      JSON.stringify({
        timestamp: "2026-02-23T11:40:29.277Z",
        type: "response_item",
        payload: { type: "message", role, content: [{ type: "input_text", text }] },
      });
    writeFileSync(
      file,
      [
        line(
          "developer",
          "<permissions instructions>\nsandbox: workspace-write\n</permissions instructions>",
        ),
        line("user", "<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>"),
        line("user", "why does the sandbox test time out?"),
      ].join("\n"),
    );
    expect((await indexJson([])).chunksAdded).toBe(1);
    // What an older funes (or the reference) left: the boilerplate stored, a state entry without a parser.
    const turns = parseCodexRollout(readFileSync(file, "utf8"), { path: file }).sessions[0]!.turns;
    for (const t of turns) for (const b of t.blocks) delete b.injected;
    const old = chunkTurns(turns.slice(0, 2), { tiers: ALL_TIERS, thinking: true, repo: "" });
    const store = await LocalStore.open(join(env.funesHome, "memory"));
    await store!.append(old);
    store!.close();
    const statePath = join(env.funesHome, "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8"));
    state[file] = { sig: state[file].sig, level: "ToolResult" };
    writeFileSync(statePath, JSON.stringify(state));

    const again = await runFunes(["index"], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      "agent boilerplate removed from the memory (stored by an older run): 2 chunk(s)",
    );
    const status = await runFunes(["status", "--json"], env);
    expect(JSON.parse(status.stdout).chunks).toBe(1);
  });
});

describe("funes index: one-line answers", () => {
  it("a missing path: exit 1 naming it", async () => {
    const r = await runFunes(["index", join(t.dir, "nope.jsonl")], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`funes: no such file or folder: "${join(t.dir, "nope.jsonl")}" — check the path\n`);
  });

  it("a slash path that is neither local nor a reachable Hub dataset says both", async () => {
    const offline: CliEnv = { ...env, extra: { HF_ENDPOINT: "http://127.0.0.1:9" } };
    const r = await runFunes(["index", "nosuchdir/file"], offline);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^funes: no local file or folder "nosuchdir\/file", and as a Hub dataset: .+\n$/,
    );
    const local = await runFunes(["index", "./nosuchdir/file.jsonl"], offline);
    expect(local.stderr).toBe('funes: no such file or folder: "./nosuchdir/file.jsonl" — check the path\n');
  });

  it("a file no agent writes: exit 2 naming what was expected; every line malformed: exit 1; an empty file: a note, exit 0", async () => {
    const readme = await runFunes(["index", join(ROOT, "README.md")], env);
    expect(readme.code).toBe(2);
    expect(readme.stderr).toBe(
      `funes: "${join(ROOT, "README.md")}" is not a transcript funes can read — expected a Claude Code, Codex, pi, Gemini CLI, Qwen Code or Copilot CLI session (.jsonl), a Hermes state.db or session file, an OpenCode database, or a .parquet trace file\n`,
    );
    // Every line malformed: the counts, and a failed run rather than an empty success.
    const broken = join(t.dir, "broken.jsonl");
    writeFileSync(broken, "{not json\n{also not\n[1,\n");
    const bad = await runFunes(["index", broken, "--harness", "claude"], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("records passed over: 3 (malformed JSON line: 3)");
    expect(bad.stderr.split("\n").at(-2)).toBe(
      `funes: nothing in "${broken}" could be indexed: all 3 record(s) were passed over (malformed JSON line: 3) — check that it is an agent's transcript, and name its format with --harness`,
    );
    const empty = join(t.dir, "empty.jsonl");
    writeFileSync(empty, "");
    const r = await runFunes(["index", "--json", empty], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`note: "${empty}" is empty — nothing to index\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({
      sessions: 0,
      chunksAdded: 0,
      notes: [`"${empty}" is empty — nothing to index`],
    });
  });
});
