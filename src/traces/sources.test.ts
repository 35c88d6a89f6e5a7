import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture, tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import type { AgentDirs } from "./formats.js";
import {
  detectHarness,
  knownRoots,
  knownSources,
  parseHarness,
  sourceForPath,
  sourcesForPath,
  UnknownHarnessError,
} from "./sources.js";

describe("source selection", () => {
  it("detects a tree's harness by known directory, then by its first record", () => {
    const t = tempDir();
    try {
      for (const rel of [".claude/projects", ".codex/sessions", ".pi/agent/sessions"])
        mkdirSync(join(t.dir, rel), { recursive: true });
      expect(detectHarness(join(t.dir, ".claude/projects"))).toBe("claude_code");
      expect(detectHarness(join(t.dir, ".codex/sessions/"))).toBe("codex");
      expect(detectHarness(join(t.dir, ".pi/agent/sessions"))).toBe("pi");
      expect(detectHarness(copyFixture("codex", join(t.dir, "a")))).toBe("codex");
      expect(detectHarness(copyFixture("pi", join(t.dir, "b")))).toBe("pi");
      expect(detectHarness(copyFixture("claude", join(t.dir, "c")))).toBe("claude_code");
      writeFileSync(
        join(t.dir, "legacy.jsonl"),
        '{"id":"x","timestamp":"2025-08-01T00:00:00Z","instructions":null}\n',
      );
      expect(detectHarness(join(t.dir, "legacy.jsonl"))).toBe("codex");
      mkdirSync(join(t.dir, "empty"));
      expect(detectHarness(join(t.dir, "empty"))).toBe("claude_code");
    } finally {
      t.cleanup();
    }
  });

  it("routes parquet, hermes and forced harnesses", () => {
    const t = tempDir();
    try {
      const hermes = join(t.dir, ".hermes");
      mkdirSync(hermes);
      writeFileSync(join(hermes, "state.db"), "");
      writeFileSync(join(t.dir, "anything"), "{}\n");
      expect(sourceForPath("/x/0000.PARQUET", "codex").kind).toBe("parquet");
      expect(sourceForPath(join(hermes, "state.db")).kind).toBe("hermes");
      expect(sourceForPath(hermes).description).toBe(
        `scanning hermes sessions in ${join(hermes, "state.db")}`,
      );
      expect(sourceForPath(join(t.dir, "anything"), "pi").kind).toBe("pi");
    } finally {
      t.cleanup();
    }
  });

  it("reads a folder of several agents' transcripts file by file, each with its own agent's parser", async () => {
    const t = tempDir();
    try {
      // A home given as a path reads as `funes index` reads a home.
      copyFixture("claude", join(t.dir, "home", ".claude", "projects", "-p"));
      copyFixture("pi", join(t.dir, "home", ".pi", "agent", "sessions", "-p-"));
      expect(sourcesForPath(join(t.dir, "home")).map((s) => s.kind)).toEqual(["claude_code", "pi"]);

      // Transcripts of three agents copied into one folder: none is read by another agent's parser.
      const mixed = join(t.dir, "mixed");
      for (const h of ["claude", "codex", "pi"]) copyFixture(h, join(mixed, h === "pi" ? "x" : `sub-${h}`));
      writeFileSync(join(mixed, "notes.jsonl"), '{"hello":"world"}\n');
      const sources = sourcesForPath(mixed);
      expect(sources.map((s) => s.kind).sort()).toEqual(["claude_code", "codex", "pi"]);
      const read = new Map<string, string>();
      for (const s of sources)
        for (const u of await s.listUnits()) {
          expect(read.has(u.key), u.key).toBe(false);
          read.set(u.key, s.kind);
          const r = await s.readUnit(u);
          for (const session of r.sessions)
            for (const turn of session.turns) expect(turn.harness).toBe(s.kind);
        }
      const kindOf = (part: string) => [...read].filter(([k]) => k.includes(part)).map(([, v]) => v);
      expect(new Set(kindOf("/sub-claude/"))).toEqual(new Set(["claude_code"]));
      expect(new Set(kindOf("/sub-codex/"))).toEqual(new Set(["codex"]));
      expect(new Set(kindOf("/x/"))).toEqual(new Set(["pi"]));
      // A file no agent writes is still read (and its lines counted) by the folder's main agent.
      expect(read.get(join(mixed, "notes.jsonl"))).toBe("claude_code");

      // One agent's folder keeps its one source.
      expect(sourcesForPath(join(mixed, "sub-codex")).map((s) => s.kind)).toEqual(["codex"]);
    } finally {
      t.cleanup();
    }
  });

  it("says a transcript given by path is a Git LFS pointer, not a transcript of no known agent", () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "0e035115-142d-48a7-a7a2-fa7363907a87.jsonl");
      writeFileSync(
        p,
        `version https://git-lfs.github.com/spec/v1\noid sha256:${"cd".repeat(32)}\nsize 147093\n`,
      );
      expect(() => sourcesForPath(p)).toThrow(
        /is a Git LFS pointer, not the transcript — run `git lfs pull`/,
      );
    } finally {
      t.cleanup();
    }
  });

  it("parses harness spellings and rejects others", () => {
    expect(parseHarness("claude")).toBe("claude_code");
    expect(parseHarness("claude_code")).toBe("claude_code");
    expect(parseHarness("Codex")).toBe("codex");
    expect(() => parseHarness("cursor")).toThrow(UnknownHarnessError);
    expect(() => parseHarness("cursor")).toThrow(
      'unknown harness "cursor" (expected claude, codex, pi, hermes, gemini, qwen, opencode, or copilot)',
    );
  });

  it("finds only the agent directories that exist, in order", () => {
    const t = tempDir();
    try {
      mkdirSync(join(t.dir, ".pi/agent/sessions"), { recursive: true });
      mkdirSync(join(t.dir, ".claude/projects"), { recursive: true });
      mkdirSync(join(t.dir, ".hermes"));
      expect(knownSources(t.dir).map((s) => s.kind)).toEqual(["claude_code", "pi"]);
      writeFileSync(join(t.dir, ".hermes/state.db"), "");
      expect(knownSources(t.dir).map((s) => s.kind)).toEqual(["claude_code", "pi", "hermes"]);
      expect(knownSources(t.dir, "pi").map((s) => s.kind)).toEqual(["pi"]);
    } finally {
      t.cleanup();
    }
  });

  it("finds the sessions Claude Code 1.0.30 wrote under ~/.config/claude beside ~/.claude's, once", () => {
    const t = tempDir();
    try {
      const xdg = join(t.dir, ".config", "claude");
      mkdirSync(join(t.dir, ".claude", "projects"), { recursive: true });
      mkdirSync(join(xdg, "projects"), { recursive: true });
      const where = (dirs: AgentDirs) => knownSources(t.dir, "claude_code", dirs).map((s) => s.description);
      expect(where({})).toEqual([
        `scanning claude_code transcripts under ${join(t.dir, ".claude", "projects")}`,
        `scanning claude_code transcripts under ${join(xdg, "projects")}`,
      ]);
      // CLAUDE_CONFIG_DIR naming that folder: walked once.
      expect(where({ claude_code: xdg })).toEqual([
        `scanning claude_code transcripts under ${join(xdg, "projects")}`,
      ]);
    } finally {
      t.cleanup();
    }
  });

  it("finds each agent's folder where its own variable moved it, and only there", () => {
    // CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR and HERMES_HOME move what lives under the home.
    const t = tempDir();
    try {
      const moved = {
        claude_code: join(t.dir, "cfg", "claude"),
        codex: join(t.dir, "cfg", "codex"),
        pi: join(t.dir, "cfg", "pi-agent"),
        hermes: join(t.dir, "cfg", "hermes"),
      };
      const home = join(t.dir, "home");
      mkdirSync(join(home, ".codex/sessions"), { recursive: true });
      mkdirSync(join(moved.claude_code, "projects"), { recursive: true });
      mkdirSync(join(moved.codex, "archived_sessions"), { recursive: true });
      mkdirSync(join(moved.pi, "sessions"), { recursive: true });
      mkdirSync(join(moved.hermes, "sessions"), { recursive: true });
      writeFileSync(join(moved.hermes, "state.db"), "");
      const where = (dirs: AgentDirs) => knownSources(home, undefined, dirs).map((s) => s.description);
      expect(where(moved)).toEqual([
        `scanning claude_code transcripts under ${join(moved.claude_code, "projects")}`,
        `scanning codex transcripts under ${join(moved.codex, "archived_sessions")}`,
        `scanning pi transcripts under ${join(moved.pi, "sessions")}`,
        `scanning hermes sessions in ${join(moved.hermes, "state.db")}`,
        `scanning hermes session files under ${join(moved.hermes, "sessions")}`,
      ]);
      // Unset, each agent's default under the home.
      expect(where({})).toEqual([`scanning codex transcripts under ${join(home, ".codex/sessions")}`]);
      expect(knownRoots(home, { pi: moved.pi }).map((r) => r.path)).toContain(join(moved.pi, "sessions"));
    } finally {
      t.cleanup();
    }
  });

  it("reads Hermes's named profiles, each a Hermes home of its own under ~/.hermes/profiles/<name>", async () => {
    // `hermes -p coder` keeps its conversations in profiles/coder/state.db, never in ~/.hermes/state.db.
    const t = tempDir();
    try {
      const hermes = join(t.dir, ".hermes");
      mkdirSync(join(hermes, "profiles", "coder"), { recursive: true });
      writeHermesDb(
        join(hermes, "profiles", "coder", "state.db"),
        "v30",
        [{ id: "20260512_101500_ab12cd" }],
        [
          {
            session_id: "20260512_101500_ab12cd",
            role: "user",
            content: "rebase the coder branch",
            timestamp: 1,
          },
        ],
      );
      mkdirSync(join(hermes, "profiles", "review", "sessions"), { recursive: true });
      writeFileSync(
        join(hermes, "profiles", "review", "sessions", "20260513_090000_cd34ef.jsonl"),
        '{"role":"user","content":"review the open pull requests","timestamp":"2026-05-13T09:00:01"}\n',
      );
      // Not profiles: a file, and a name Hermes would refuse.
      writeFileSync(join(hermes, "profiles", "notes.txt"), "x");
      mkdirSync(join(hermes, "profiles", "Bad Name", "sessions"), { recursive: true });
      const said = async (sources: ReturnType<typeof knownSources>) => {
        const out: string[] = [];
        for (const s of sources)
          for (const u of await s.listUnits())
            for (const session of (await s.readUnit(u)).sessions)
              out.push(...session.turns.flatMap((x) => x.blocks.map((b) => b.text)));
        return out.sort();
      };
      const expected = ["rebase the coder branch", "review the open pull requests"];
      expect(await said(knownSources(t.dir))).toEqual(expected);
      expect(knownSources(t.dir, "hermes").map((s) => s.description)).toEqual([
        `scanning hermes sessions in ${join(hermes, "profiles", "coder", "state.db")}`,
        `scanning hermes session files under ${join(hermes, "profiles", "review", "sessions")}`,
      ]);
      expect(knownSources(t.dir, "claude_code")).toEqual([]);
      // `funes index ~/.hermes` reads them too.
      expect(await said(sourcesForPath(hermes))).toEqual(expected);
    } finally {
      t.cleanup();
    }
  });
});

describe("Claude Code sub-agent forks", () => {
  // Claude Code 2.1.8x's compaction and side-question forks open with a copy of the parent's records (the
  // same uuids, `isSidechain` and the fork's `agentId` added), then hold their own request and answer.
  const SESSION = "744827a2-a4c6-4a5b-9997-81d6e9384d8d";
  const rec = (uuid: string, role: "user" | "assistant", text: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: role,
      message: { role, content: role === "user" ? text : [{ type: "text", text }] },
      uuid,
      timestamp: "2026-04-01T10:00:00.000Z",
      sessionId: SESSION,
      version: "2.1.88",
      ...extra,
    });
  const parent = [
    rec("u1", "user", "rename the vault folders"),
    rec("a1", "assistant", "Renamed 12 folders."),
    rec("u2", "user", "now update the links"),
  ];
  const fork = (agentId: string) => [
    ...parent.map((l) => l.replace('"isSidechain":false', `"isSidechain":true,"agentId":"${agentId}"`)),
    rec("f1", "user", "Your task is to create a detailed summary of the conversation so far.", {
      isSidechain: true,
      isMeta: true,
      agentId,
    }),
    rec("f2", "assistant", "Summary: folders renamed, links next.", { isSidechain: true, agentId }),
  ];

  function project(withParent: boolean) {
    const t = tempDir();
    const dir = join(t.dir, ".claude", "projects", "c--Users-me-vault");
    mkdirSync(join(dir, SESSION, "subagents"), { recursive: true });
    if (withParent) writeFileSync(join(dir, `${SESSION}.jsonl`), `${parent.join("\n")}\n`);
    writeFileSync(
      join(dir, SESSION, "subagents", "agent-acompact-a897fe51ff61acd8.jsonl"),
      `${fork("acompact-a897fe51ff61acd8").join("\n")}\n`,
    );
    return { ...t, dir };
  }

  it("leave out their copy of the parent's records, keeping every id, and index only their own turns", async () => {
    const t = project(true);
    try {
      const source = sourceForPath(t.dir, "claude_code");
      const units = await source.listUnits();
      const read = await source.readUnit(units.find((u) => u.isSubagent)!);
      const turns = read.sessions[0]!.turns;
      expect(turns.map((x) => x.turnUuid)).toEqual(["u1", "a1", "u2", "f1", "f2"]);
      expect(turns.map((x) => x.blocks[0]!.injected ?? null)).toEqual([
        "claude sub-agent copy of its parent's record",
        "claude sub-agent copy of its parent's record",
        "claude sub-agent copy of its parent's record",
        "claude meta message (isMeta)",
        null,
      ]);
      expect(read.skipped).toEqual({
        "agent-injected text left out: claude sub-agent copy of its parent's record": 3,
        "agent-injected text left out: claude meta message (isMeta)": 1,
      });
      // Only the fork's own answer is left to index.
      const indexed = turns.flatMap((x) =>
        x.blocks.filter((b) => b.injected === undefined).map((b) => b.text),
      );
      expect(indexed).toEqual(["Summary: folders renamed, links next."]);
      // The parent itself is read whole.
      const main = await source.readUnit(units.find((u) => !u.isSubagent)!);
      expect(main.sessions[0]!.turns.every((x) => x.blocks.every((b) => b.injected === undefined))).toBe(
        true,
      );
    } finally {
      t.cleanup();
    }
  });

  it("are read whole when their parent's transcript is not beside them", async () => {
    const t = project(false);
    try {
      const source = sourceForPath(t.dir, "claude_code");
      const [unit] = await source.listUnits();
      const read = await source.readUnit(unit!);
      expect(read.sessions[0]!.turns.filter((x) => x.blocks[0]!.injected === undefined)).toHaveLength(4);
    } finally {
      t.cleanup();
    }
  });
});
