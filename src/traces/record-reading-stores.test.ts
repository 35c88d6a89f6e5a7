/**
 * A record that cannot be read where a unit is not lines of a file: a Hermes database's message rows, an
 * OpenCode store's message and part rows, Hermes session files and request dumps, a parquet row's messages,
 * the messages of a whole-file Codex or Gemini CLI session. Each is passed over alone, counted and named by
 * its id or its place, never the session, and no stack overflow escapes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { parseCodexRollout } from "./codex.js";
import { parseGeminiSession } from "./gemini.js";
import { HermesSource } from "./hermes.js";
import { HermesFilesSource, parseHermesSessionFile } from "./hermes-legacy.js";
import { SKIP_UNREADABLE } from "./jsonl.js";
import { parseOpenCodeRows } from "./opencode.js";
import { parseTraceRows } from "./parquet.js";
import type { UnitRead } from "./types.js";

const DEPTH = 100_000;
/** JSON nested `DEPTH` deep, around a float (read losslessly) or an integer (read plainly). */
const DEEP = [`${"[".repeat(DEPTH)}1.5${"]".repeat(DEPTH)}`, `${"[".repeat(DEPTH)}1${"]".repeat(DEPTH)}`];
const TOO_DEEP = "JSON nested too deep to read";

/** Every block's text the read gave. */
function texts(r: UnitRead): string[] {
  return r.sessions.flatMap((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text)));
}

function expectPassedOver(r: UnitRead, at: string, kept: string[]): void {
  expect(texts(r)).toEqual(expect.arrayContaining(kept));
  expect(r.skipped[SKIP_UNREADABLE]).toBe(1);
  expect(r.unreadable).toEqual([{ at, reason: TOO_DEEP }]);
}

describe("a row of a Hermes database that cannot be read", () => {
  it("is passed over alone, named by its message id; the session's other rows are read", async () => {
    for (const deep of DEEP) {
      const t = tempDir();
      try {
        const db = join(t.dir, "state.db");
        const calls = `[{"id":"c1","type":"function","function":{"name":"terminal","arguments":${deep}}}]`;
        writeHermesDb(
          db,
          "v30",
          [{ id: "s1" }],
          [
            { session_id: "s1", role: "user", content: "the ocelot queue is kafka", timestamp: 1 },
            { session_id: "s1", role: "assistant", content: "", tool_calls: calls, timestamp: 2 },
            { session_id: "s1", role: "user", content: "the marmot job retries thrice", timestamp: 3 },
          ],
        );
        const source = new HermesSource(db);
        try {
          const [unit] = await source.listUnits();
          const r = await source.readUnit(unit!);
          expectPassedOver(r, "message id 2", ["the ocelot queue is kafka", "the marmot job retries thrice"]);
          expect(r.sessions[0]?.turns.map((x) => x.turnUuid)).toEqual(["1", "3"]);
        } finally {
          source.close();
        }
      } finally {
        t.cleanup();
      }
    }
  });
});

describe("a row of an OpenCode store that cannot be read", () => {
  const message = (id: string, role: string, time: number) => ({
    id,
    time_created: time,
    data: JSON.stringify({ role, time: { created: time } }),
  });
  const part = (id: string, messageId: string, data: string) => ({
    id,
    message_id: messageId,
    time_created: 0,
    data,
  });
  const ctx = { sessionId: "ses_1", cwd: null, isSubagent: false, dbPath: "/o/opencode.db" } as const;

  it("is a part passed over alone, named by its id; the message's other parts and the session are read", () => {
    for (const deep of DEEP) {
      const tool = `{"type":"tool","tool":"bash","callID":"x","state":{"status":"completed","input":${deep},"output":"ok"}}`;
      const r = parseOpenCodeRows(
        [message("msg_1", "user", 1), message("msg_2", "assistant", 2)],
        [
          part("prt_1", "msg_1", JSON.stringify({ type: "text", text: "the ocelot queue is kafka" })),
          part("prt_2", "msg_2", tool),
          part("prt_3", "msg_2", JSON.stringify({ type: "text", text: "the marmot job retries thrice" })),
        ],
        { ...ctx, harness: "opencode" },
      );
      expectPassedOver(r, 'part "prt_2"', ["the ocelot queue is kafka", "the marmot job retries thrice"]);
    }
  });
});

describe("a message of a Hermes session file that cannot be read", () => {
  const assistant = (deep: string) =>
    `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"terminal","arguments":${deep}}}]}`;
  const user = (text: string) => JSON.stringify({ role: "user", content: text });

  it("in <id>.jsonl is named by its line, in session_<id>.json by its place in the list", () => {
    for (const deep of DEEP) {
      const jsonl = [
        user("the ocelot queue is kafka"),
        assistant(deep),
        user("the marmot job retries thrice"),
      ];
      const a = parseHermesSessionFile(jsonl.join("\n"), { path: "/h/sessions/20260101_000000_ab.jsonl" });
      expectPassedOver(a, "line 2", ["the ocelot queue is kafka", "the marmot job retries thrice"]);
      const doc = `{"session_id":"20260101_000000_ab","messages":[${jsonl.join(",")}]}`;
      const b = parseHermesSessionFile(doc, { path: "/h/sessions/session_20260101_000000_ab.json" });
      expectPassedOver(b, "message 2", ["the ocelot queue is kafka", "the marmot job retries thrice"]);
    }
  });

  it("content too deep to write, as a list or an object, is passed over too", () => {
    const content = `{"role":"user","content":{"parts":${DEEP[1]}}}`;
    const jsonl = [user("the ocelot queue is kafka"), content, user("the marmot job retries thrice")];
    const r = parseHermesSessionFile(jsonl.join("\n"), { path: "/h/sessions/x.jsonl" });
    expectPassedOver(r, "line 2", ["the ocelot queue is kafka", "the marmot job retries thrice"]);
  });

  it("in a request dump is named by its place in the request, for each of its dialects", () => {
    const dump = (body: string) =>
      `{"session_id":"s9","timestamp":"2026-01-01T00:00:00","request":{"body":${body}},"error":"x"}`;
    const path = "/h/sessions/request_dump_s9_20260101.json";
    for (const deep of DEEP) {
      const anthropic = dump(
        `{"messages":[${user("the ocelot queue is kafka")},` +
          `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"terminal","input":${deep}}]},` +
          `${user("the marmot job retries thrice")}]}`,
      );
      expectPassedOver(parseHermesSessionFile(anthropic, { path }), "request message 2", [
        "the ocelot queue is kafka",
        "the marmot job retries thrice",
      ]);
      const responses = dump(
        `{"input":[{"type":"message","role":"user","content":"the ocelot queue is kafka"},` +
          `{"type":"function_call","call_id":"c1","name":"terminal","arguments":${deep}},` +
          `{"type":"message","role":"user","content":"the marmot job retries thrice"}]}`,
      );
      expectPassedOver(parseHermesSessionFile(responses, { path }), "request item 2", [
        "the ocelot queue is kafka",
        "the marmot job retries thrice",
      ]);
      const chat = dump(
        `{"messages":[${user("the ocelot queue is kafka")},${assistant(deep)},${user("the marmot job retries thrice")}]}`,
      );
      expectPassedOver(parseHermesSessionFile(chat, { path }), "request message 2", [
        "the ocelot queue is kafka",
        "the marmot job retries thrice",
      ]);
    }
  });

  it("leaves the rest of the file to the index run, through the source as well", async () => {
    const t = tempDir();
    try {
      const sessions = join(t.dir, ".hermes", "sessions");
      mkdirSync(sessions, { recursive: true });
      const file = join(sessions, "session_20260101_000000_ab.json");
      writeFileSync(
        file,
        `{"session_id":"20260101_000000_ab","messages":[${user("the ocelot queue is kafka")},${assistant(DEEP[0]!)}]}`,
      );
      const source = new HermesFilesSource(sessions);
      const [unit] = await source.listUnits();
      expectPassedOver(await source.readUnit(unit!), "message 2", ["the ocelot queue is kafka"]);
    } finally {
      t.cleanup();
    }
  });
});

describe("a message of a whole-document session that cannot be read", () => {
  it("is named by its place in a parquet row, a Codex rollout's items, a Gemini CLI session's messages", () => {
    for (const deep of DEEP) {
      const asst = `{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"Bash","arguments":${deep}}}]}`;
      const parquet = parseTraceRows(
        [
          {
            session_id: "sess-1",
            messages: [
              JSON.stringify({ role: "user", content: "the ocelot queue is kafka" }),
              asst,
              JSON.stringify({ role: "user", content: "the marmot job retries thrice" }),
            ],
          },
        ],
        { path: "/p/traces.parquet" },
      );
      expectPassedOver(parquet, 'message 2 of session "sess-1"', [
        "the ocelot queue is kafka",
        "the marmot job retries thrice",
      ]);
      const codex =
        `{"session":{"id":"c1","timestamp":"2025-01-01T00:00:00Z"},"items":[` +
        `{"type":"message","role":"user","content":[{"type":"input_text","text":"the ocelot queue is kafka"}]},` +
        `{"type":"function_call_output","call_id":"x","output":${deep}},` +
        `{"type":"message","role":"user","content":[{"type":"input_text","text":"the marmot job retries thrice"}]}]}`;
      expectPassedOver(parseCodexRollout(codex, { path: "/p/rollout-2025-01-01-c1.json" }), "item 2", [
        "the ocelot queue is kafka",
        "the marmot job retries thrice",
      ]);
      const gemini =
        `{"sessionId":"g-1","projectHash":"h","startTime":"t","messages":[` +
        `{"id":"m1","timestamp":"t","type":"user","content":"the ocelot queue is kafka"},` +
        `{"id":"m2","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run","args":${deep}}]},` +
        `{"id":"m3","timestamp":"t","type":"user","content":"the marmot job retries thrice"}]}`;
      expectPassedOver(
        parseGeminiSession(gemini, { path: "/p/chats/session-1.json" }),
        'message "m2" on line 1',
        ["the ocelot queue is kafka", "the marmot job retries thrice"],
      );
    }
  });
});
