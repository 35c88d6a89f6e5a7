import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { copyFixture, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { parseCodexRollout } from "./codex.js";
import { JsonlTreeSource } from "./jsonl-tree.js";

const parse = (text: string, path = "/h/.codex/sessions/2026/06/23/rollout-x.jsonl") =>
  parseCodexRollout(text, { path });

traceSourceContract("codex", {
  harness: "codex",
  async make() {
    const t = tempDir();
    copyFixture("codex", join(t.dir, "sessions"));
    return { source: new JsonlTreeSource("codex", join(t.dir, "sessions")), cleanup: t.cleanup };
  },
  async makeDamaged() {
    const t = tempDir();
    copyFixture("codex", join(t.dir, "sessions"));
    appendFileSync(
      join(t.dir, "sessions", "codex_session.jsonl"),
      '{"timestamp":"2026-06-23T05:56:02Z","type":"respo',
    );
    return { source: new JsonlTreeSource("codex", join(t.dir, "sessions")), cleanup: t.cleanup };
  },
});

describe("parseCodexRollout", () => {
  it("reads the reference's envelope fixture", () => {
    const path = join(TRACES, "codex/codex_session.jsonl");
    const r = parse(readFileSync(path, "utf8"), path);
    const s = r.sessions[0]!;
    const sid = "019ef2fb-6574-7f83-bd99-9118713271f2";
    expect(s.sessionId).toBe(sid);
    expect(s.workdir).toBe("-workspace");
    expect(s.turns.map((t) => [t.turnUuid, t.role, t.blocks[0]!.blockType])).toEqual([
      [`${sid}-0`, "user", "text"],
      [`${sid}-1`, "assistant", "text"],
      [`${sid}-2`, "assistant", "thinking"],
      [`${sid}-3`, "assistant", "tool_use"],
      [`${sid}-4`, "tool", "tool_result"],
      [`${sid}-5`, "assistant", "tool_use"],
      [`${sid}-6`, "tool", "tool_result"],
    ]);
    // Arguments pass through verbatim; outputs are named by back-fill.
    expect(s.turns[3]!.blocks[0]!.text).toBe(
      '{"cmd":"npm --version","workdir":"/workspace","yield_time_ms":10000,"max_output_tokens":12000}',
    );
    expect(s.turns[4]!.blocks[0]!.toolName).toBe("exec_command");
    expect(s.turns[6]!.blocks[0]!.toolName).toBe("apply_patch");
    // Source timestamps are kept even when out of order.
    expect(s.turns[1]!.ts).toBe("2026-06-23T05:54:11.307Z");
    expect(r.skipped).toEqual({ 'record type "session_meta"': 1 });
  });

  it("copes with the schema catalog's many record types and several session_meta lines", () => {
    const path = join(TRACES, "codex/agent-sessions-schema-catalog.jsonl");
    const r = parse(readFileSync(path, "utf8"), path);
    expect(r.sessions[0]!.sessionId).toBe("019fc8be-3658-7ca3-9e29-000000000000");
    expect(r.sessions[0]!.turns).toHaveLength(13);
    // Records that gave no turn, plus the developer-role blocks kept out of the index (turns keep them).
    const injected = "agent-injected text left out: codex developer instructions";
    expect(r.skipped[injected]).toBe(7);
    // …and its two pasted images (a user's and an assistant's `input_image` part), counted, not dropped.
    expect(r.skipped['content part "input_image" not indexed']).toBe(2);
    expect(Object.values(r.skipped).reduce((a, b) => a + b, 0)).toBe(118 - 13 + 7 + 2);
    expect(r.skipped['record type "event_msg"']).toBe(68);
  });

  it("counts a message part that is not text (a pasted image) instead of dropping it silently", () => {
    const env = (payload: object) =>
      JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", type: "response_item", payload });
    const text = [
      env({
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "<image name=[Image #1]>" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          { type: "input_text", text: "what is on this screenshot?" },
        ],
      }),
      env({ type: "message", role: "user", content: [{ type: "input_image", image_url: "data:," }, "bare"] }),
    ].join("\n");
    const r = parse(text);
    expect(r.sessions[0]!.turns.map((t) => t.blocks.map((b) => b.text))).toEqual([
      ["<image name=[Image #1]>", "what is on this screenshot?"],
    ]);
    expect(r.skipped).toEqual({
      'content part "input_image" not indexed': 2,
      "content part that is not a typed object": 1,
      "message item with no indexable content": 1,
    });
  });

  it("takes the prompts from events only when no user response item holds them", () => {
    const line = (type: string, payload: object, ts: string) =>
      JSON.stringify({ timestamp: `2026-01-01T00:00:0${ts}Z`, type, payload });
    const answer = (t: string, ts: string) =>
      line(
        "response_item",
        { type: "message", role: "assistant", content: [{ type: "output_text", text: t }] },
        ts,
      );
    const prompt = (t: string, ts: string) => line("event_msg", { type: "user_message", message: t }, ts);
    const trimmed = [
      prompt("why is the build red?", "1"),
      answer("a flaky test", "2"),
      prompt("fix it", "3"),
    ];
    const r = parse(trimmed.join("\n"));
    expect(
      r.sessions[0]!.turns.map((t) => [t.turnUuid.split("-").pop(), t.role, t.blocks[0]!.text, t.ts]),
    ).toEqual([
      ["0", "user", "why is the build red?", "2026-01-01T00:00:01Z"],
      ["1", "assistant", "a flaky test", "2026-01-01T00:00:02Z"],
      ["2", "user", "fix it", "2026-01-01T00:00:03Z"],
    ]);
    expect(r.skipped).toEqual({});

    // As Codex writes it, each prompt twice: the response item is read and the event counted as its copy.
    const userItem = line(
      "response_item",
      { type: "message", role: "user", content: [{ type: "input_text", text: "why is the build red?" }] },
      "1",
    );
    const whole = parse([trimmed[0], userItem, trimmed[1]].join("\n"));
    expect(whole.sessions[0]!.turns.map((t) => t.role)).toEqual(["user", "assistant"]);
    expect(whole.skipped).toEqual({ 'record type "event_msg"': 1 });
  });

  it("takes a fork's own id from its first session_meta", () => {
    const env = (type: string, payload: object) =>
      JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", type, payload });
    const text = [
      env("session_meta", { id: "child", cwd: "/w", forked_from_id: "parent" }),
      env("response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "child q" }],
      }),
      env("session_meta", { id: "parent", cwd: "/other" }),
      env("response_item", {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "replayed" }],
      }),
    ].join("\n");
    const s = parse(text).sessions[0]!;
    expect(s.sessionId).toBe("child");
    expect(s.workdir).toBe("-w");
    expect(s.turns.map((t) => t.turnUuid)).toEqual(["child-0", "child-1"]);
  });

  it("reads the headerless 2025 JSONL", () => {
    const text = [
      JSON.stringify({ id: "legacy-1", timestamp: "2025-08-20T10:00:00Z", instructions: null }),
      JSON.stringify({ record_type: "state" }),
      JSON.stringify({
        type: "message",
        id: null,
        role: "user",
        content: [{ type: "input_text", text: "hello" }],
      }),
      JSON.stringify({
        type: "reasoning",
        id: "",
        summary: [],
        content: [{ type: "reasoning_text", text: "think" }],
      }),
      JSON.stringify({
        type: "function_call",
        name: "shell",
        arguments: '{"command":["ls"]}',
        call_id: "c1",
      }),
      JSON.stringify({
        type: "function_call_output",
        call_id: "c1",
        output: '{"output":"a\\n","metadata":{"exit_code":0}}',
      }),
    ].join("\n");
    const r = parse(text, "/h/.codex/sessions/rollout-2025-08-20-legacy-1.jsonl");
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("legacy-1");
    expect(s.turns.map((t) => [t.role, t.blocks[0]!.blockType, t.ts])).toEqual([
      ["user", "text", "2025-08-20T10:00:00Z"],
      ["assistant", "thinking", "2025-08-20T10:00:00Z"],
      ["assistant", "tool_use", "2025-08-20T10:00:00Z"],
      ["tool", "tool_result", "2025-08-20T10:00:00Z"],
    ]);
    expect(s.turns[3]!.blocks[0]!.toolName).toBe("shell");
    expect(r.skipped).toEqual({ "session header": 1, 'record_type "state"': 1 });
  });

  it("reads the single-file .json generation and finds it in a tree", async () => {
    const t = tempDir();
    try {
      mkdirSync(join(t.dir, "sessions"));
      const doc = {
        session: { timestamp: "2025-07-30T09:00:00Z", id: "json-gen", instructions: "" },
        items: [
          { role: "user", content: [{ type: "text", text: "first" }] },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "second" }] },
          7,
        ],
      };
      writeFileSync(join(t.dir, "sessions", "rollout-2025-07-30-json-gen.json"), JSON.stringify(doc));
      const src = new JsonlTreeSource("codex", join(t.dir, "sessions"));
      const [unit] = await src.listUnits();
      const r = await src.readUnit(unit!);
      expect(r.sessions[0]!.sessionId).toBe("json-gen");
      expect(r.sessions[0]!.turns.map((x) => x.blocks[0]!.text)).toEqual(["first", "second"]);
      expect(r.skipped).toEqual({ "item that is not an object": 1 });
    } finally {
      t.cleanup();
    }
  });
});
