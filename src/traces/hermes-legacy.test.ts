import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import {
  HermesFilesSource,
  parseHermesSessionFile,
  SKIP_IN_STATE_DB,
  SKIP_SNAPSHOT_DUPLICATE,
  SKIP_TRANSCRIPT_SHORTER,
} from "./hermes-legacy.js";
import { sourcesForPath } from "./sources.js";

const JSONL = "20250912_101500_a1b2c3.jsonl";
const SNAPSHOT = "session_20250913_081200_d4e5f6.json";

function sessionsDir() {
  const t = tempDir();
  const dir = join(t.dir, ".hermes", "sessions");
  mkdirSync(dir, { recursive: true });
  for (const f of [JSONL, SNAPSHOT]) cpSync(join(TRACES, "hermes", f), join(dir, f));
  // The gateway's routing map lives beside the sessions and is not a transcript.
  writeFileSync(join(dir, "sessions.json"), '{"agent:main:telegram:dm:1":{"session_id":"x"}}');
  return { ...t, sessions: dir };
}

/** The messages of the SNAPSHOT fixture as `state.db` rows of its session. */
function snapshotRows() {
  const doc = JSON.parse(readFileSync(join(TRACES, "hermes", SNAPSHOT), "utf8")) as {
    messages: { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string }[];
  };
  return doc.messages.map((m, i) => ({
    session_id: "20250913_081200_d4e5f6",
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls === undefined ? null : JSON.stringify(m.tool_calls),
    tool_call_id: m.tool_call_id ?? null,
    timestamp: 1_757_751_120 + i,
  }));
}

traceSourceContract("hermes session files", {
  harness: "hermes",
  async make() {
    const t = sessionsDir();
    return { source: new HermesFilesSource(t.sessions), cleanup: t.cleanup };
  },
  async makeDamaged() {
    const t = sessionsDir();
    appendFileSync(join(t.sessions, JSONL), '{"role":"user","content":"torn');
    return { source: new HermesFilesSource(t.sessions), cleanup: t.cleanup };
  },
});

describe("Hermes session files", () => {
  it("reads OpenAI-chat rows: user, tool call with reasoning, tool output, answer", () => {
    const path = join(TRACES, "hermes", JSONL);
    const r = parseHermesSessionFile(readFileSync(path, "utf8"), { path });
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("20250912_101500_a1b2c3");
    expect(s.turns.map((t) => [t.turnUuid, t.role, t.blocks.map((b) => b.blockType)])).toEqual([
      ["20250912_101500_a1b2c3-0", "user", ["text"]],
      ["20250912_101500_a1b2c3-1", "assistant", ["thinking", "tool_use"]],
      ["20250912_101500_a1b2c3-2", "tool", ["tool_result"]],
      ["20250912_101500_a1b2c3-3", "assistant", ["text"]],
    ]);
    expect(s.turns[1]!.blocks[1]).toMatchObject({
      toolName: "terminal",
      text: '{"command": "ss -ltnp | grep 8080"}',
    });
    expect(s.turns[0]!.ts).toBe("2025-09-12T10:15:03.118204");
    expect(r.skipped).toEqual({});
  });

  it("keeps the text of a message with an attached image and counts the image part", () => {
    // Hermes builds a photo sent over a gateway as OpenAI-chat parts: the caption, then the image as a data URL.
    const rows = [
      {
        role: "user",
        content: [
          { type: "text", text: "what is on this whiteboard?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }, 7] },
      { role: "assistant", content: "A sequence diagram." },
    ];
    const path = "/h/.hermes/sessions/20260101_000000_abcdef.jsonl";
    const r = parseHermesSessionFile(rows.map((x) => JSON.stringify(x)).join("\n"), { path });
    expect(r.sessions[0]!.turns.map((t) => t.blocks.map((b) => b.text))).toEqual([
      ["what is on this whiteboard?"],
      ["A sequence diagram."],
    ]);
    expect(r.skipped).toEqual({
      'content part "image_url" not indexed': 2,
      "content part that is not a typed object": 1,
      "user message with no indexable content": 1,
    });
  });

  it("names a tool output after the call it answers (Hermes writes only the call id on tool rows)", () => {
    const rows = [
      { role: "user", content: "disk usage?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "terminal", arguments: '{"command":"df -h"}' },
          },
          { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"x"}' } },
        ],
      },
      { role: "tool", content: "/dev/sda1 40%", tool_call_id: "call_b" },
      { role: "tool", content: "x", tool_call_id: "call_a" },
      { role: "tool", content: "orphan", tool_call_id: "call_z" },
    ];
    for (const path of [
      "/h/.hermes/sessions/20260101_000000_abc.jsonl",
      "/h/.hermes/sessions/session_x.json",
    ]) {
      const text = path.endsWith(".json")
        ? JSON.stringify({ session_id: "x", messages: rows })
        : rows.map((r) => JSON.stringify(r)).join("\n");
      const results = parseHermesSessionFile(text, { path })
        .sessions[0]!.turns.flatMap((t) => t.blocks)
        .filter((b) => b.blockType === "tool_result")
        .map((b) => [b.toolUseId, b.toolName]);
      expect(results).toEqual([
        ["call_b", "read_file"],
        ["call_a", "terminal"],
        ["call_z", null],
      ]);
    }
  });

  it("reads a session_<id>.json snapshot; its system prompt is counted, not indexed", () => {
    const path = join(TRACES, "hermes", SNAPSHOT);
    const r = parseHermesSessionFile(readFileSync(path, "utf8"), { path });
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("20250913_081200_d4e5f6");
    expect(s.turns.map((t) => t.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(s.turns[0]!.ts).toBe("2025-09-13T08:12:00.512391");
    expect(s.turns[1]!.blocks[0]!.toolName).toBe("terminal");
    expect(r.skipped).toEqual({ "hermes system prompt (agent-injected) not indexed": 1 });
    expect(r.records).toBe(5);
  });

  it("leaves to state.db the sessions it holds, and to <id>.jsonl its snapshot — counted, never silent", async () => {
    const t = sessionsDir();
    try {
      const twin = join(t.sessions, "session_20250912_101500_a1b2c3.json");
      writeFileSync(
        twin,
        // An early snapshot: the transcript's first message, which the transcript holds too.
        JSON.stringify({
          session_id: "20250912_101500_a1b2c3",
          messages: [{ role: "user", content: "what's using port 8080 on the box?" }],
        }),
      );
      // The database holds every message of the snapshot's session.
      const db = join(t.dir, ".hermes", "state.db");
      writeHermesDb(db, "v20", [{ id: "20250913_081200_d4e5f6", cwd: "/srv" }], snapshotRows());
      const [dbSource, files] = sourcesForPath(join(t.dir, ".hermes"));
      expect(dbSource!.description).toContain("state.db");
      expect(files!.description).toBe(`scanning hermes session files under ${t.sessions}`);
      const reads = new Map<string, Awaited<ReturnType<HermesFilesSource["readUnit"]>>>();
      for (const u of await files!.listUnits()) reads.set(u.key, await files!.readUnit(u));
      expect([...reads.keys()].map((k) => k.slice(t.sessions.length + 1)).sort()).toEqual([
        JSONL,
        "session_20250912_101500_a1b2c3.json",
        SNAPSHOT,
      ]);
      expect(reads.get(join(t.sessions, JSONL))!.sessions[0]!.turns).toHaveLength(4);
      expect(reads.get(join(t.sessions, SNAPSHOT))).toMatchObject({
        sessions: [],
        skipped: { [SKIP_IN_STATE_DB]: 4 },
      });
      expect(reads.get(twin)).toMatchObject({ sessions: [], skipped: { [SKIP_SNAPSHOT_DUPLICATE]: 1 } });
    } finally {
      t.cleanup();
    }
  });

  it("reads from a session file only the messages the state.db beside it lacks", async () => {
    // A real damaged database listed every session but gave back 108 messages for a folder of thousands:
    // leaving whole files to it lost them. Here the database holds two of the snapshot's four turns.
    const t = sessionsDir();
    try {
      const db = join(t.dir, ".hermes", "state.db");
      const rows = snapshotRows();
      writeHermesDb(db, "v12", [{ id: "20250913_081200_d4e5f6" }], [rows[1]!, rows[4]!]);
      const files = new HermesFilesSource(t.sessions, db);
      const unit = (await files.listUnits()).find((u) => u.key.endsWith(SNAPSHOT))!;
      const read = await files.readUnit(unit);
      // The prompt and the answer are the database's; the tool call and its output keep their file ids.
      expect(read.sessions[0]!.turns.map((x) => [x.turnUuid, x.role])).toEqual([
        ["20250913_081200_d4e5f6-1", "assistant"],
        ["20250913_081200_d4e5f6-2", "tool"],
      ]);
      expect(read.skipped[SKIP_IN_STATE_DB]).toBe(2);
    } finally {
      t.cleanup();
    }
  });

  it("reads the longer of a snapshot and its <id>.jsonl twin, and leaves the other out, counted", async () => {
    const t = sessionsDir();
    try {
      // The snapshot holds the transcript's four messages and two more the transcript never got.
      const lines = readFileSync(join(t.sessions, JSONL), "utf8").trim().split("\n");
      const messages = [
        ...lines.map((l) => JSON.parse(l)),
        { role: "user", content: "and stop it for good" },
        { role: "assistant", content: "Disabled the unit; port 8080 stays free after reboot." },
      ];
      const snapshot = join(t.sessions, "session_20250912_101500_a1b2c3.json");
      writeFileSync(snapshot, JSON.stringify({ session_id: "20250912_101500_a1b2c3", messages }));
      const files = new HermesFilesSource(t.sessions);
      const units = await files.listUnits();
      const read = async (name: string) => files.readUnit(units.find((u) => u.key.endsWith(`/${name}`))!);
      const fromSnapshot = await read("session_20250912_101500_a1b2c3.json");
      expect(fromSnapshot.sessions[0]!.turns.map((x) => x.turnUuid)).toEqual(
        [0, 1, 2, 3, 4, 5].map((i) => `20250912_101500_a1b2c3-${i}`),
      );
      expect(JSON.stringify(fromSnapshot.sessions[0]!.turns.at(-1)!.blocks)).toContain(
        "stays free after reboot",
      );
      expect(await read(JSONL)).toMatchObject({ sessions: [], skipped: { [SKIP_TRANSCRIPT_SHORTER]: 4 } });

      // Once the transcript catches up, it is read again and the snapshot is the one left out.
      for (const m of messages.slice(4)) appendFileSync(join(t.sessions, JSONL), `${JSON.stringify(m)}\n`);
      expect((await read(JSONL)).sessions[0]!.turns).toHaveLength(6);
      expect(await read("session_20250912_101500_a1b2c3.json")).toMatchObject({
        sessions: [],
        skipped: { [SKIP_SNAPSHOT_DUPLICATE]: 6 },
      });
    } finally {
      t.cleanup();
    }
  });

  it("keeps the reasoning and times only the shorter transcript holds when its snapshot is read", async () => {
    // The shape of a real pair (Hermes 2026, Telegram): the transcript opens with a `session_meta` row and
    // keeps `reasoning` and a time on each answer; the snapshot, rewritten when the session was reset, holds
    // the same messages with neither, then the reset notice and what followed. Reading only the snapshot
    // lost every answer's reasoning.
    const t = tempDir();
    try {
      const id = "20260501_211916_a960c82a";
      const dir = join(t.dir, "sessions");
      mkdirSync(dir);
      const said = [
        { role: "user", content: "What is your workspace?" },
        { role: "assistant", content: "My workspace is ~/kb.", finish_reason: "stop" },
        { role: "user", content: "hello" },
        { role: "assistant", content: "Hey. Anything to do?", finish_reason: "stop" },
      ];
      const reasoning = ["He asks where I work; memory has it.", "A greeting; answer briefly."];
      const transcript = [
        {
          role: "session_meta",
          model: "m",
          platform: "telegram",
          tools: [],
          timestamp: "2026-05-01T21:19:16",
        },
        ...said.map((m, i) => ({
          ...m,
          timestamp: `2026-05-01T21:2${i}:00`,
          ...(m.role === "assistant" ? { reasoning: reasoning[(i - 1) / 2] } : {}),
        })),
      ];
      writeFileSync(join(dir, `${id}.jsonl`), transcript.map((m) => `${JSON.stringify(m)}\n`).join(""));
      const later = [
        { role: "user", content: "[System: This session is about to be reset.]" },
        { role: "assistant", content: "Saved what matters.", reasoning: "Flush memory first." },
      ];
      writeFileSync(
        join(dir, `session_${id}.json`),
        JSON.stringify({
          session_id: id,
          session_start: "2026-05-01T21:19:16",
          messages: [...said, ...later],
        }),
      );
      const files = new HermesFilesSource(dir);
      const reads = await Promise.all((await files.listUnits()).map((u) => files.readUnit(u)));
      const turns = reads.flatMap((r) => r.sessions.flatMap((s) => s.turns));
      expect(turns.map((x) => x.turnUuid)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `${id}-${i}`));
      // Each answer's text keeps block 0 (its chunk id); the transcript's reasoning follows it.
      expect(turns.map((x) => x.blocks.map((b) => b.blockType))).toEqual([
        ["text"],
        ["text", "thinking"],
        ["text"],
        ["text", "thinking"],
        ["text"],
        ["thinking", "text"],
      ]);
      expect(turns[1]!.blocks[1]!.text).toBe(reasoning[0]);
      expect(turns[3]!.blocks[1]!.text).toBe(reasoning[1]);
      // Messages both files hold take the transcript's times; the rest keep the session's start.
      expect(turns.map((x) => x.ts)).toEqual([
        "2026-05-01T21:20:00",
        "2026-05-01T21:21:00",
        "2026-05-01T21:22:00",
        "2026-05-01T21:23:00",
        "2026-05-01T21:19:16",
        "2026-05-01T21:19:16",
      ]);
      expect(reads.map((r) => r.skipped)).toContainEqual({
        'message role "session_meta" not indexed': 1,
        [SKIP_TRANSCRIPT_SHORTER]: 4,
      });
    } finally {
      t.cleanup();
    }
  });

  it("keeps the messages only the shorter twin holds when a reset left the two with different conversations", async () => {
    // A real pair's shape (Hermes 2026): the transcript holds the talk before a reset, the snapshot only the
    // longer talk after it; no message is in both. Reading the snapshot alone lost the first conversation.
    const t = tempDir();
    try {
      const id = "20260704_215358_7b49a93b";
      const dir = join(t.dir, "sessions");
      mkdirSync(dir);
      const before = [
        { role: "user", content: "What is our current inference server?", timestamp: "2026-07-04T21:54:00" },
        {
          role: "assistant",
          content: "\n\nLet me check the config.\n",
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "terminal", arguments: '{"command":"cat config.yaml"}' },
            },
          ],
          timestamp: "2026-07-04T21:54:05",
        },
        {
          role: "tool",
          content: '{"output":"model: MiniMax-M2.7"}',
          tool_call_id: "c1",
          timestamp: "2026-07-04T21:54:06",
        },
        { role: "assistant", content: "It is MiniMax-M2.7.", timestamp: "2026-07-04T21:54:09" },
      ];
      writeFileSync(join(dir, `${id}.jsonl`), before.map((m) => `${JSON.stringify(m)}\n`).join(""));
      const after = ["try gemma4", "Pulled gemma4.", "is it faster?", "Yes, twice.", "keep it", "Done."].map(
        (content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }),
      );
      writeFileSync(
        join(dir, `session_${id}.json`),
        JSON.stringify({ session_id: id, session_start: "2026-07-04T21:53:58", messages: after }),
      );
      const files = new HermesFilesSource(dir);
      const reads = await Promise.all((await files.listUnits()).map((u) => files.readUnit(u)));
      const turns = reads.flatMap((r) => r.sessions.flatMap((s) => s.turns));
      // The snapshot's six turns keep their numbers; the transcript's four follow them, with their own times.
      expect(turns.map((x) => x.turnUuid)).toEqual([...Array(10).keys()].map((i) => `${id}-${i}`));
      expect(turns.slice(0, 6).map((x) => x.blocks[0]!.text)).toEqual(after.map((m) => m.content));
      expect(
        turns.slice(6).map((x) => [x.role, x.ts, x.blocks.map((b) => [b.blockType, b.toolName])]),
      ).toEqual([
        ["user", "2026-07-04T21:54:00", [["text", null]]],
        [
          "assistant",
          "2026-07-04T21:54:05",
          [
            ["text", null],
            ["tool_use", "terminal"],
          ],
        ],
        ["tool", "2026-07-04T21:54:06", [["tool_result", "terminal"]]],
        ["assistant", "2026-07-04T21:54:09", [["text", null]]],
      ]);
      expect(turns[7]!.parentUuid).toBe(`${id}-6`);
      // Every turn is the snapshot's unit's: re-reading that file gives them all back.
      expect(new Set(turns.map((x) => x.sourcePath))).toEqual(new Set([join(dir, `session_${id}.json`)]));
    } finally {
      t.cleanup();
    }
  });

  it("reads agent-sessions' Hermes fixtures: cwd from the snapshot or its model_config, extra fields ignored", () => {
    const large = join(TRACES, "hermes", "agent-sessions-hermes-large.json");
    const a = parseHermesSessionFile(readFileSync(large, "utf8"), { path: large });
    expect(a.sessions[0]).toMatchObject({
      sessionId: "20260429_hermes_large",
      workdir: "--Repository-Codex-History",
    });
    expect(a.sessions[0]!.turns.map((t) => [t.role, t.blocks.map((b) => b.blockType)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["thinking", "text", "tool_use"]],
      ["tool", ["tool_result"]],
      ["assistant", ["text"]],
    ]);
    expect(a.skipped).toEqual({ 'message role "session_meta" not indexed': 1 });
    const drift = join(TRACES, "hermes", "agent-sessions-hermes-schema-drift.json");
    const b = parseHermesSessionFile(readFileSync(drift, "utf8"), { path: drift });
    expect(b.sessions[0]).toMatchObject({ workdir: "-tmp-hermes-drift", cwd: "/tmp/hermes-drift" });
    expect(b.sessions[0]!.turns[1]!.blocks[1]).toMatchObject({
      toolName: "memory",
      text: '{"query":"session format"}',
    });
    expect(b.sessions[0]!.turns[2]!.blocks[0]).toMatchObject({
      blockType: "tool_result",
      toolName: "memory",
    });
  });
});
