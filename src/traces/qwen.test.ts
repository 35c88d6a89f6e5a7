import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { copyFixture, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { sniffFile } from "./detect.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { parseQwenSession } from "./qwen.js";
import { knownSources } from "./sources.js";

/** Real sessions Qwen Code 0.24.4 wrote (test/fixtures/traces/README.md). */
const CHATS = join(TRACES, "qwen", "projects", "-tmp-qwen-fixture-home-app", "chats");
const RESUMED = join(CHATS, "00214a3e-9510-4a2f-bada-865e2a1b9d54.jsonl");

traceSourceContract("qwen", {
  harness: "qwen",
  async make() {
    const t = tempDir();
    copyFixture("qwen/projects", join(t.dir, "projects"));
    return { source: new JsonlTreeSource("qwen", join(t.dir, "projects")), cleanup: t.cleanup };
  },
  async makeDamaged() {
    const t = tempDir();
    copyFixture("qwen/projects", join(t.dir, "projects"));
    const file = join(
      t.dir,
      "projects",
      "-tmp-qwen-fixture-home-app",
      "chats",
      "00214a3e-9510-4a2f-bada-865e2a1b9d54.jsonl",
    );
    appendFileSync(file, "{not json\n");
    return { source: new JsonlTreeSource("qwen", join(t.dir, "projects")), cleanup: t.cleanup };
  },
});

describe("parseQwenSession", () => {
  it("reads a real continued session: prompts, a recall call and its answer, the CLI's system records counted", () => {
    const r = parseQwenSession(readFileSync(RESUMED, "utf8"), { path: RESUMED });
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("00214a3e-9510-4a2f-bada-865e2a1b9d54");
    expect(s.cwd).toBe("/tmp/qwen-fixture/home/app");
    expect(s.workdir).toBe("-tmp-qwen-fixture-home-app");
    expect(s.turns.map((t) => [t.role, t.blocks.map((b) => b.blockType)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["tool_use"]],
      ["tool", ["tool_result"]],
      ["assistant", ["text"]],
      ["user", ["text"]],
      ["assistant", ["text"]],
    ]);
    expect(s.turns[1]!.blocks[0]).toMatchObject({
      toolName: "mcp__funes__recall",
      text: '{"query":"fix the failing test","k":2}',
    });
    expect(s.turns[2]!.blocks[0]!.toolName).toBe("mcp__funes__recall");
    expect(s.turns[2]!.blocks[0]!.text).toContain("→ get ");
    expect(r.skipped).toEqual({
      'system record "attribution_snapshot"': 2,
      'system record "ui_telemetry"': 5,
    });
  });

  it("reads a record written twice once", () => {
    const text = readFileSync(RESUMED, "utf8");
    const first = text.split("\n")[0]!;
    const r = parseQwenSession(`${text}${first}\n`, { path: RESUMED });
    expect(r.sessions[0]!.turns).toHaveLength(6);
    expect(r.skipped["record written again (read once)"]).toBe(1);
  });

  it("keeps the user's words only: Qwen's own user records and hook context are marked, pieces of a message joined", () => {
    // Records in the shapes Qwen Code 0.24.4's recorder writes (recordUserMessage, createNotificationRecord,
    // recordGoalRuntimeMessage, recordCronPrompt), built on a real prompt record of the fixture.
    const base = JSON.parse(readFileSync(RESUMED, "utf8").split("\n")[0]!);
    const rec = (uuid: string, over: Record<string, unknown>, text: string) =>
      JSON.stringify({ ...base, uuid, ...over, message: { role: "user", parts: [{ text }] } });
    const hook =
      "<qwen:user-prompt-submit-context>\nbranch main is dirty\n</qwen:user-prompt-submit-context>";
    const lines = [
      JSON.stringify({
        ...base,
        uuid: "u1",
        provenance: "real_user",
        message: { role: "user", parts: [{ text: "deploy the zebra service" }, { text: hook }] },
      }),
      rec("u2", { subtype: "notification", provenance: "system" }, "Background task 7 finished."),
      rec("u3", { provenance: "goal_runtime", subtype: "goal_runtime" }, "Continue toward the goal."),
      rec("u4", { provenance: "system" }, "A daemon-delivered notice."),
      rec("u5", { subtype: "cron", provenance: "system" }, "check the nightly build"),
      rec("u6", { type: "constructor", subtype: "toString" }, "not a record type"),
      // One answer in two pieces, the second written twice.
      JSON.stringify({
        ...base,
        uuid: "a1",
        type: "assistant",
        message: { role: "model", parts: [{ text: "Thinking it over.", thought: true }] },
      }),
      JSON.stringify({
        ...base,
        uuid: "a1",
        type: "assistant",
        message: { role: "model", parts: [{ text: "Deployed on port 8123." }] },
      }),
      JSON.stringify({
        ...base,
        uuid: "a1",
        type: "assistant",
        message: { role: "model", parts: [{ text: "Deployed on port 8123." }] },
      }),
    ];
    const r = parseQwenSession(`${lines.join("\n")}\n`, { path: RESUMED });
    const turns = r.sessions[0]!.turns;
    const kept = turns.flatMap((t) => t.blocks.filter((b) => b.injected === undefined).map((b) => b.text));
    expect(kept).toEqual([
      "deploy the zebra service",
      "check the nightly build",
      "Thinking it over.",
      "Deployed on port 8123.",
    ]);
    expect(turns.map((t) => t.turnUuid)).toEqual(["u1", "u2", "u3", "u4", "u5", "a1"]);
    expect(r.skipped).toEqual({
      "agent-injected text left out: qwen UserPromptSubmit hook context": 1,
      "agent-injected text left out: qwen background notification": 1,
      "agent-injected text left out: qwen goal runner prompt": 1,
      "agent-injected text left out: qwen notification": 1,
      'record type "constructor"': 1,
      "record continuing a message (joined to it)": 1,
      "record written again (read once)": 1,
    });
  });

  it("lists a sub-agent's transcript as a session of its own and no other log kept beside the chats", async () => {
    // Qwen Code 0.24.4 writes a sub-agent's records under `subagents/<session>/agent-<id>.jsonl` with its
    // parent's session id, `agentId` and `isSidechain: true`; `qwen serve` keeps `<session>.ledger.jsonl`.
    const t = tempDir();
    try {
      const projects = join(t.dir, "projects");
      copyFixture("qwen/projects", projects);
      const project = join(projects, "-tmp-qwen-fixture-home-app");
      const parent = "00214a3e-9510-4a2f-bada-865e2a1b9d54";
      const agentDir = join(project, "subagents", parent);
      mkdirSync(agentDir, { recursive: true });
      const lines = readFileSync(RESUMED, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.stringify({ ...JSON.parse(l), agentId: "explore-1", isSidechain: true }));
      writeFileSync(join(agentDir, "agent-explore-1.jsonl"), `${lines.join("\n")}\n`);
      writeFileSync(join(agentDir, "agent-explore-1.meta.json"), "{}");
      writeFileSync(
        join(project, "chats", `${parent}.ledger.jsonl`),
        '{"promptId":"p1","state":"admitted"}\n',
      );
      const source = new JsonlTreeSource("qwen", projects);
      const units = await source.listUnits();
      const rel = units.map((u) => relative(project, u.key).split(sep).join("/"));
      expect([...rel].sort()).toEqual([
        "chats/00214a3e-9510-4a2f-bada-865e2a1b9d54.jsonl",
        "chats/919a6dfc-a98e-445d-a59f-1f5a4605c57a.jsonl",
        `subagents/${parent}/agent-explore-1.jsonl`,
      ]);
      // Sub-agents go last, as Claude Code's do.
      expect(rel.at(-1)).toBe(`subagents/${parent}/agent-explore-1.jsonl`);
      const sub = await source.readUnit(units.at(-1)!);
      expect(sub.sessions[0]).toMatchObject({ sessionId: "agent-explore-1", isSubagent: true });
      const main = await source.readUnit(
        units.find((u) => u.key === RESUMED.replace(CHATS, join(project, "chats")))!,
      );
      expect(main.sessions[0]).toMatchObject({ sessionId: parent, isSubagent: false });
      expect(sub.sessions[0]!.turns.map((x) => x.turnUuid)).toEqual(
        main.sessions[0]!.turns.map((x) => x.turnUuid),
      );
    } finally {
      t.cleanup();
    }
  });

  it("is walked from ~/.qwen/projects and from QWEN_HOME, and known by its content", async () => {
    const t = tempDir();
    try {
      copyFixture("qwen/projects", join(t.dir, "home", ".qwen", "projects"));
      const [source] = knownSources(join(t.dir, "home"), "qwen");
      expect(await source?.listUnits()).toHaveLength(2);
      copyFixture("qwen/projects", join(t.dir, "moved", "projects"));
      const moved = knownSources(join(t.dir, "nobody"), "qwen", { qwen: join(t.dir, "moved") });
      expect(moved.map((m) => m.description)).toEqual([
        `scanning qwen transcripts under ${join(t.dir, "moved", "projects")}`,
      ]);
      expect(sniffFile(RESUMED)).toEqual({ kind: "transcript", harness: "qwen" });
    } finally {
      t.cleanup();
    }
  });
});
