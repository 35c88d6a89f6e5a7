/**
 * Hermes API request dumps (`~/.hermes/sessions/request_dump_<session>_<time>.json`). Three real `~/.hermes`
 * backups (read locally, no licence to copy them) hold 180 of them in the three request dialects built here;
 * in one, 15 of its 17 dumped sessions had no other copy, and funes read none of their messages.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { HermesFilesSource, SKIP_DUMP_HELD, SKIP_IN_STATE_DB } from "./hermes-legacy.js";
import { sourcesForPath } from "./sources.js";
import type { Turn, UnitRead } from "./types.js";

const SID = "20260429_081038_cece0a7d";

/** A dump as Hermes writes it: the failed request's body under `request`, the provider's answer under `error`. */
function dump(body: Record<string, unknown>, at = "2026-04-29T08:11:02.123456") {
  return JSON.stringify({
    timestamp: at,
    session_id: SID,
    reason: "max_retries_exhausted",
    request: { method: "POST", url: "https://example.invalid/v1/chat/completions", headers: {}, body },
    error: { type: "APIError", message: "Error code: 503 - upstream overloaded", status_code: 503 },
  });
}

const CHAT_FIRST = [
  { role: "system", content: "You are Hermes Agent, an intelligent AI assistant created by Nous Research." },
  { role: "user", content: "check whether the nightly briefing cron ran today" },
  {
    role: "assistant",
    content: "",
    reasoning_content: "The cron output folder tells me.",
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "terminal", arguments: '{"command":"ls ~/.hermes/cron/output"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: '{"output": "2026-04-29_07-00-01.md", "exit_code": 0}' },
];
const CHAT_LATER = [
  ...CHAT_FIRST,
  { role: "assistant", content: "Yes: it ran at 07:00 and wrote one briefing." },
  { role: "user", content: "send it to me on telegram" },
];

function folder(files: Record<string, string>) {
  const t = tempDir();
  const sessions = join(t.dir, ".hermes", "sessions");
  mkdirSync(sessions, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(sessions, name), text);
  return { ...t, sessions };
}

async function readAll(source: HermesFilesSource): Promise<Map<string, UnitRead>> {
  const out = new Map<string, UnitRead>();
  for (const u of await source.listUnits()) out.set(u.key.split(/[\\/]/).pop()!, await source.readUnit(u));
  return out;
}

const said = (t: Turn) => [t.role, ...t.blocks.map((b) => `${b.blockType}:${b.toolName ?? ""}:${b.text}`)];

describe("Hermes request dumps", () => {
  it("reads a session known only from its dumps; a message repeated by a later dump keeps its id", async () => {
    const t = folder({
      [`request_dump_${SID}_20260429_081102_123456.json`]: dump({
        model: "m",
        messages: CHAT_FIRST,
        tools: [],
      }),
      [`request_dump_${SID}_20260429_081900_654321.json`]: dump({
        model: "m",
        messages: CHAT_LATER,
        tools: [],
      }),
      // The gateway's routing map is still not a transcript.
      "sessions.json": '{"agent:main:telegram:dm:1":{"session_id":"x"}}',
    });
    try {
      const reads = await readAll(new HermesFilesSource(t.sessions, join(t.dir, ".hermes", "state.db")));
      expect([...reads.keys()].sort()).toEqual([
        `request_dump_${SID}_20260429_081102_123456.json`,
        `request_dump_${SID}_20260429_081900_654321.json`,
      ]);
      // By name: units may finish reading in either order.
      const [first, later] = [
        `request_dump_${SID}_20260429_081102_123456.json`,
        `request_dump_${SID}_20260429_081900_654321.json`,
      ].map((k) => reads.get(k)!.sessions[0]!);
      expect(later!.sessionId).toBe(SID);
      expect(later!.turns.map(said)).toEqual([
        ["user", "text::check whether the nightly briefing cron ran today"],
        [
          "assistant",
          "thinking::The cron output folder tells me.",
          'tool_use:terminal:{"command":"ls ~/.hermes/cron/output"}',
        ],
        // Hermes names only the call on a tool row: the call names its output.
        ["tool", 'tool_result:terminal:{"output": "2026-04-29_07-00-01.md", "exit_code": 0}'],
        ["assistant", "text::Yes: it ran at 07:00 and wrote one briefing."],
        ["user", "text::send it to me on telegram"],
      ]);
      // Same message, same turn id in both dumps: the memory stores it once.
      expect(later!.turns.slice(0, 3).map((x) => x.turnUuid)).toEqual(first!.turns.map((x) => x.turnUuid));
      expect(new Set(later!.turns.map((x) => x.turnUuid)).size).toBe(5);
      expect(later!.turns[0]!.turnUuid).toMatch(new RegExp(`^${SID}-request-[0-9a-f]{12}$`));
      expect(later!.turns[0]!.ts).toBe("2026-04-29T08:11:02.123456");
      expect(reads.get(`request_dump_${SID}_20260429_081900_654321.json`)!.skipped).toEqual({
        "hermes system prompt (agent-injected) not indexed": 1,
      });
    } finally {
      t.cleanup();
    }
  });

  it("reads the Anthropic dialect: system apart, thinking, text, tool_use and tool_result blocks", async () => {
    const body = {
      model: "MiniMax-M2",
      system: "You are Hermes Agent.",
      messages: [
        { role: "user", content: "how full is the disk?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "df answers that.", signature: "" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "terminal", input: { command: "df -h /" } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "/dev/sda1 91%" }],
        },
      ],
      tools: [],
      max_tokens: 8192,
    };
    const t = folder({ [`request_dump_${SID}_20260429_090000_000001.json`]: dump(body) });
    try {
      const [read] = [...(await readAll(new HermesFilesSource(t.sessions))).values()];
      expect(read!.sessions[0]!.turns.map(said)).toEqual([
        ["user", "text::how full is the disk?"],
        [
          "assistant",
          "thinking::df answers that.",
          "text::Checking.",
          'tool_use:terminal:{"command":"df -h /"}',
        ],
        ["tool", "tool_result:terminal:/dev/sda1 91%"],
      ]);
    } finally {
      t.cleanup();
    }
  });

  it("reads the Responses dialect: an answer and the calls after it are one turn, outputs their own", async () => {
    const body = {
      model: "gpt-5.4",
      instructions: "You are Hermes Agent.",
      input: [
        { role: "user", content: "what changed in the repo since Friday?" },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Looking at the log." }],
        },
        { type: "function_call", call_id: "call_a", name: "terminal", arguments: '{"command":"git log"}' },
        { type: "function_call_output", call_id: "call_a", output: "3 commits" },
        { type: "function_call", call_id: "call_b", name: "read_file", arguments: '{"path":"NEWS.md"}' },
        { type: "function_call_output", call_id: "call_b", output: "## 1.2" },
        { type: "web_search_call", id: "ws_1" },
      ],
      store: false,
    };
    const t = folder({ [`request_dump_${SID}_20260429_100000_000002.json`]: dump(body) });
    try {
      const [read] = [...(await readAll(new HermesFilesSource(t.sessions))).values()];
      expect(read!.sessions[0]!.turns.map(said)).toEqual([
        ["user", "text::what changed in the repo since Friday?"],
        ["assistant", "text::Looking at the log.", 'tool_use:terminal:{"command":"git log"}'],
        ["tool", "tool_result:terminal:3 commits"],
        ["assistant", 'tool_use:read_file:{"path":"NEWS.md"}'],
        ["tool", "tool_result:read_file:## 1.2"],
      ]);
      expect(read!.skipped).toMatchObject({ 'hermes request item "web_search_call" not indexed': 1 });
    } finally {
      t.cleanup();
    }
  });

  it("leaves to the session's own file and to state.db the messages they hold — counted, never silent", async () => {
    const transcript = CHAT_FIRST.slice(1, 3)
      .map((m) => JSON.stringify({ ...m, timestamp: "2026-04-29T08:10:40" }))
      .join("\n");
    const t = folder({
      [`${SID}.jsonl`]: transcript,
      [`request_dump_${SID}_20260429_081900_654321.json`]: dump({ model: "m", messages: CHAT_LATER }),
    });
    try {
      const dumpName = `request_dump_${SID}_20260429_081900_654321.json`;
      const alone = (await readAll(new HermesFilesSource(t.sessions))).get(dumpName)!;
      // The prompt and the call are the transcript's; the tool output and what followed only the dump's.
      expect(alone.sessions[0]!.turns.map((x) => x.role)).toEqual(["tool", "assistant", "user"]);
      expect(alone.skipped[SKIP_DUMP_HELD]).toBe(2);

      const db = join(t.dir, ".hermes", "state.db");
      const rows = CHAT_LATER.slice(1).map((m, i) => ({
        session_id: SID,
        role: m.role,
        content: m.content,
        tool_calls: "tool_calls" in m ? JSON.stringify(m.tool_calls) : null,
        tool_call_id: "tool_call_id" in m ? (m.tool_call_id ?? null) : null,
        reasoning_content: "reasoning_content" in m ? (m.reasoning_content ?? null) : null,
        timestamp: 1_777_450_240 + i,
      }));
      writeHermesDb(db, "v30", [{ id: SID }], rows.slice(0, 4));
      const withDb = (await readAll(new HermesFilesSource(t.sessions, db))).get(dumpName)!;
      expect(withDb.sessions[0]!.turns.map(said)).toEqual([["user", "text::send it to me on telegram"]]);
      expect(withDb.skipped).toMatchObject({ [SKIP_DUMP_HELD]: 2, [SKIP_IN_STATE_DB]: 2 });
    } finally {
      t.cleanup();
    }
  });

  it("indexes a dump given by path, or a folder of dumps alone, as Hermes files", () => {
    const t = folder({
      "request_dump_x_1.json": dump({ model: "m", input: [{ role: "user", content: "hi there" }] }),
    });
    try {
      const [source] = sourcesForPath(join(t.sessions, "request_dump_x_1.json"));
      expect(source).toBeInstanceOf(HermesFilesSource);
      // A copy of the dumps in a folder of any name is recognised by its files' content.
      const copy = join(t.dir, "failed-calls");
      mkdirSync(copy);
      writeFileSync(join(copy, "request_dump_x_1.json"), dump({ model: "m", messages: CHAT_FIRST }));
      expect(sourcesForPath(copy).map((s) => s.kind)).toEqual(["hermes"]);
    } finally {
      t.cleanup();
    }
  });
});
