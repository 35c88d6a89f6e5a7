import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { copyFixture, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { parseClaudeTranscript } from "./claude.js";
import { JsonlTreeSource } from "./jsonl-tree.js";

const read = (rel: string) => {
  const path = join(TRACES, rel);
  return parseClaudeTranscript(readFileSync(path, "utf8"), { path });
};

traceSourceContract("claude", {
  harness: "claude_code",
  async make() {
    const t = tempDir();
    copyFixture("claude", join(t.dir, "projects"));
    return { source: new JsonlTreeSource("claude_code", join(t.dir, "projects")), cleanup: t.cleanup };
  },
  async makeDamaged() {
    const t = tempDir();
    copyFixture("claude", join(t.dir, "projects"));
    appendFileSync(join(t.dir, "projects", "claude_session.jsonl"), '{"type":"user","message":{"role":"us');
    return { source: new JsonlTreeSource("claude_code", join(t.dir, "projects")), cleanup: t.cleanup };
  },
});

describe("parseClaudeTranscript", () => {
  it("reads the reference's fixture: ids, roles, labels, workdir", () => {
    const r = read("claude/claude_session.jsonl");
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("claude_session");
    expect(s.workdir).toBe("D--physics-earth");
    expect(s.turns.map((t) => [t.seq, t.role, t.turnUuid])).toEqual([
      [0, "user", "d753fba5-0c26-437f-82df-ba98aa773943"],
      [1, "assistant", "5dfb47d4-4f91-43fa-92e5-9abbd97f44d1"],
      [2, "user", "6ca11204-04df-4649-b206-1b629b2a7706"],
    ]);
    const [use, result] = [s.turns[1]!.blocks[0]!, s.turns[2]!.blocks[0]!];
    expect(use.blockType).toBe("tool_use");
    expect(use.toolName).toBe("PowerShell");
    expect(use.text).toBe(
      '{"command":"Get-ChildItem -Force D:\\\\physics\\\\earth | Select-Object Name, Length","description":"List files in working directory"}',
    );
    // Named by back-fill from the tool_use with the same id.
    expect(result.toolName).toBe("PowerShell");
    expect(r.skipped).toEqual({ 'record type "queue-operation"': 1 });
  });

  it("keeps a prompt queued while Claude Code was busy and handed to the running turn, once", () => {
    // As Claude Code 2.1.39 wrote it: a background task's notification queued and then written as a user
    // record (no dequeue); "check again" queued and taken by the running turn (`remove`), in no user record;
    // a prompt queued, dequeued and written as the next user record; a prompt still queued at the end.
    const q = (operation: string, content?: string) => ({
      type: "queue-operation",
      operation,
      timestamp: `2026-02-11T20:5${operation.length}:00.000Z`,
      sessionId: "s",
      ...(content === undefined ? {} : { content }),
    });
    const user = (uuid: string, content: string) => ({
      type: "user",
      uuid,
      message: { role: "user", content },
    });
    const lines = [
      q("enqueue", "<task-notification>done</task-notification>"),
      q("enqueue", "check again"),
      q("remove"),
      user("u1", "<task-notification>done</task-notification>"),
      q("enqueue", "now the docs"),
      q("dequeue"),
      user("u2", "now the docs"),
      q("enqueue", "and the tests"),
    ];
    const r = parseClaudeTranscript(lines.map((l) => JSON.stringify(l)).join("\n"), {
      path: "/x/projects/p/s1.jsonl",
    });
    const turns = r.sessions[0]!.turns;
    expect(turns.map((t) => [t.seq, t.turnUuid, t.role, t.ts, t.blocks.map((b) => b.text)])).toEqual([
      [0, "s1-queued-2", "user", "2026-02-11T20:57:00.000Z", ["check again"]],
      [1, "u1", "user", "", ["<task-notification>done</task-notification>"]],
      [2, "u2", "user", "", ["now the docs"]],
    ]);
    // Every record is a turn or counted: the remove, the dequeue with its enqueue, two enqueues left over.
    expect(r.skipped).toEqual({ 'record type "queue-operation"': 5 });
    expect(r.records).toBe(turns.length + 5);
  });

  it("keeps each line of a streamed response as its own turn", () => {
    const r = read("claude/episodic-memory-tiny.jsonl");
    const turns = r.sessions[0]!.turns;
    expect(turns).toHaveLength(7);
    expect(turns.filter((t) => t.role === "assistant")).toHaveLength(4);
    expect(r.skipped).toEqual({});
    expect(turns[5]!.blocks[0]).toMatchObject({
      blockType: "tool_result",
      text: "Thoughts recorded successfully.",
    });
  });

  it("yields no turns for a file with no conversation, and says why", () => {
    const r = read("claude/episodic-memory-medium.jsonl");
    expect(r.sessions[0]!.turns).toHaveLength(0);
    expect(r.skipped).toEqual({ 'record type "file-history-snapshot"': 22, 'record type "summary"': 1 });
  });

  it("copes with every record type of the schema catalog", () => {
    const r = read("claude/agent-sessions-schema-catalog.jsonl");
    const turns = r.sessions[0]!.turns;
    expect(turns).toHaveLength(19);
    const skipped = Object.values(r.skipped).reduce((a, b) => a + b, 0);
    expect(skipped).toBe(89 - 19 + 2); // every other record, plus an image part and a fallback part
    expect(r.skipped['record type "attachment"']).toBe(38);
    expect(r.skipped['content part "image" not indexed']).toBe(1);
  });

  it("handles compaction summaries, images, list tool results and odd numbers", () => {
    const lines = [
      { type: "system", subtype: "compact_boundary", parentUuid: null, logicalParentUuid: "a", cwd: "/" },
      {
        type: "user",
        uuid: "u1",
        isCompactSummary: true,
        message: { role: "user", content: "This session is being continued" },
      },
      {
        type: "user",
        uuid: "u2",
        cwd: "/home/u/proj",
        message: {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", data: "AAAA" } },
            {
              type: "tool_result",
              tool_use_id: "t9",
              content: [{ type: "text", text: "one" }, "two", { type: "image" }],
            },
          ],
        },
      },
      {
        type: "assistant",
        uuid: "a1",
        message: { role: "assistant", content: [{ type: "thinking", thinking: "" }] },
      },
    ];
    const raw = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"type":"assistant","uuid":"a2","message":{"content":[{"type":"tool_use","id":"t1","name":"Calc","input":{"10":1.0,"b":1e20,"a":12345678901234567890}}]}}\n`;
    const r = parseClaudeTranscript(raw, { path: "/x/projects/-home-u-proj/s1.jsonl" });
    const s = r.sessions[0]!;
    expect(s.workdir).toBe("-home-u-proj");
    expect(s.cwd).toBe("/home/u/proj");
    expect(s.turns.map((t) => t.blocks.map((b) => b.text))).toEqual([
      ["This session is being continued"],
      ["one\ntwo"],
      ['{"10":1.0,"b":1e20,"a":12345678901234567890}'],
    ]);
    expect(s.turns[2]!.role).toBe("assistant");
    expect(r.skipped).toEqual({
      'record type "system"': 1,
      // The pasted image and the one inside the tool result.
      'content part "image" not indexed': 2,
      "assistant record with no indexable content": 1,
    });
  });
});

describe("JsonlTreeSource (claude layout)", () => {
  it("treats sub-agent files as their own sessions and lists them last", async () => {
    const t = tempDir();
    try {
      const proj = join(t.dir, "projects", "-home-u-p");
      mkdirSync(join(proj, "main-1", "subagents"), { recursive: true });
      const line = (text: string) =>
        `${JSON.stringify({ type: "user", uuid: "x", message: { role: "user", content: text } })}\n`;
      writeFileSync(join(proj, "main-1.jsonl"), line("main"));
      writeFileSync(join(proj, "main-1", "subagents", "agent-a1.jsonl"), line("sub new layout"));
      writeFileSync(join(proj, "agent-old.jsonl"), line("sub old layout"));
      writeFileSync(join(proj, "agentic-refactor.jsonl"), line("not a sub-agent"));
      const old = new Date(Date.now() - 3600_000);
      utimesSync(join(proj, "main-1.jsonl"), old, old);
      const units = await new JsonlTreeSource("claude_code", join(t.dir, "projects")).listUnits();
      const names = units.map((u) => u.key.split("/").pop());
      // Main sessions newest first, then sub-agents (`agent-` prefix exactly).
      expect(names.slice(0, 2)).toEqual(["agentic-refactor.jsonl", "main-1.jsonl"]);
      expect(new Set(names.slice(2))).toEqual(new Set(["agent-a1.jsonl", "agent-old.jsonl"]));
      expect(units.filter((u) => u.isSubagent)).toHaveLength(2);
      expect(units.every((u) => /^\d+:\d+$/.test(u.signature ?? ""))).toBe(true);
      const limited = await new JsonlTreeSource("claude_code", join(t.dir, "projects")).listUnits(1);
      expect(limited).toHaveLength(1);
    } finally {
      t.cleanup();
    }
  });
});
