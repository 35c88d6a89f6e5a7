import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { parseCopilotEvents } from "./copilot.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { detectHarness, knownSources, sourcesForPath } from "./sources.js";

const SESSION = "27ab96b9-efd4-4f49-8105-e53f62549377";
/** The real session log `copilot -p` and `copilot --resume -p` (1.0.102) wrote, in BYOK mode. */
const EVENTS = join(TRACES, "copilot", "session-state", SESSION, "events.jsonl");

function copyStore(extraLine?: string) {
  const t = tempDir();
  const root = join(t.dir, ".copilot", "session-state");
  cpSync(join(TRACES, "copilot", "session-state"), root, { recursive: true });
  if (extraLine !== undefined) {
    const file = join(root, SESSION, "events.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(5, 0, extraLine);
    writeFileSync(file, lines.join("\n"));
  }
  return { root, home: t.dir, cleanup: t.cleanup };
}

traceSourceContract("copilot", {
  harness: "copilot",
  async make() {
    const { root, cleanup } = copyStore();
    return { source: new JsonlTreeSource("copilot", root), cleanup };
  },
  async makeDamaged() {
    const { root, cleanup } = copyStore('{"type":"assistant.message","data":{"content":"torn');
    return { source: new JsonlTreeSource("copilot", root), cleanup };
  },
});

describe("parseCopilotEvents", () => {
  it("reads the typed words, answers, tool calls and their results across a resume", () => {
    const read = parseCopilotEvents(readFileSync(EVENTS, "utf8"), { path: EVENTS });
    const s = read.sessions[0]!;
    expect([s.sessionId, s.cwd, s.workdir]).toEqual([SESSION, "/tmp/oc/cp1/work", "-tmp-oc-cp1-work"]);
    expect(s.turns.map((t) => [t.role, t.blocks.map((b) => b.blockType).join(",")])).toEqual([
      ["user", "text"],
      ["assistant", "tool_use"],
      ["tool", "tool_result"],
      ["assistant", "text"],
      ["user", "text"],
      ["assistant", "tool_use"],
      ["tool", "tool_result"],
      ["assistant", "text"],
    ]);
    // The words typed, not the date header Copilot adds before sending them.
    expect(s.turns[0]!.blocks[0]!.text).toBe("What does notes.txt say about deploys?");
    expect(s.turns[1]!.blocks[0]).toMatchObject({
      toolName: "view",
      text: '{"path":"/tmp/oc/cp1/work/notes.txt"}',
    });
    expect(s.turns[2]!.blocks[0]).toMatchObject({
      toolName: "view",
      text: "The deploy script pushes to the staging bucket first.\n",
    });
    expect(s.turns.every((t) => t.harness === "copilot")).toBe(true);
    // The system prompt and the bookkeeping events are counted, not indexed.
    expect(read.skipped).toMatchObject({
      'copilot event "system.message" not indexed': 1,
      'copilot event "assistant.turn_start" not indexed': 4,
      'copilot event "session.shutdown" not indexed': 2,
    });
    expect(read.records).toBe(27);
  });

  it("lists Copilot 0.0's flat logs beside 1.x's folders, and no other file a session folder holds", async () => {
    // 0.0.x wrote `session-state/<id>.jsonl`; 1.x writes `session-state/<id>/events.jsonl` with checkpoints,
    // snapshots and the model's own files beside it.
    const { root, cleanup } = copyStore();
    try {
      const flat = "0d6f1a52-7c1e-4f43-9a57-2f0c3a1b9e11";
      cpSync(join(TRACES, "corpus/copilot/agent-sessions/large.jsonl"), join(root, `${flat}.jsonl`));
      mkdirSync(join(root, SESSION, "files"));
      writeFileSync(join(root, SESSION, "files", "notes.jsonl"), '{"type":"user.message","data":{}}\n');
      const source = new JsonlTreeSource("copilot", root);
      const units = await source.listUnits();
      expect(units.map((u) => u.key).sort()).toEqual(
        [join(root, `${flat}.jsonl`), join(root, SESSION, "events.jsonl")].sort(),
      );
      const read = await source.readUnit(units.find((u) => u.key.endsWith(`${flat}.jsonl`))!);
      expect(read.sessions[0]!.sessionId).toBe("copilot_stage0_large");
      expect(read.sessions[0]!.turns.length).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  });

  it("is walked from ~/.copilot and $COPILOT_HOME, and recognised by content under any folder", () => {
    const { home, root, cleanup } = copyStore();
    try {
      expect(knownSources(home, "copilot").map((s) => s.description)).toEqual([
        `scanning copilot transcripts under ${root}`,
      ]);
      expect(knownSources(join(home, "x"), "copilot", { copilot: join(home, ".copilot") })).toHaveLength(1);
      const elsewhere = join(home, "backup", "s1");
      mkdirSync(elsewhere, { recursive: true });
      cpSync(EVENTS, join(elsewhere, "events.jsonl"));
      expect(detectHarness(join(home, "backup"))).toBe("copilot");
      expect(sourcesForPath(join(elsewhere, "events.jsonl")).map((s) => s.kind)).toEqual(["copilot"]);
    } finally {
      cleanup();
    }
  });
});
