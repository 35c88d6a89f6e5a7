/**
 * How parsers read records: one that cannot be read is passed over, named by line, never the session; a
 * record without an id is a turn of its own; a file is read a line at a time, in two passes for Claude
 * Code, and a parser's work grows with its input, not its square.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { parseClaudeTranscript, streamClaudeTranscript } from "./claude.js";
import { parseCodexRollout } from "./codex.js";
import { parseCopilotEvents } from "./copilot.js";
import { parseGeminiSession, streamGeminiSession } from "./gemini.js";
import { fileLines, type OverlongLine, readTextLossy, SKIP_UNREADABLE } from "./jsonl.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { parsePiSession } from "./pi.js";
import { parseQwenSession, streamQwenSession } from "./qwen.js";
import { collectStream } from "./two-pass.js";
import type { Turn } from "./types.js";

/** JSON nested `depth` deep: an array of arrays around one float (so serde's number form is needed too). */
const deep = (depth: number) => `${"[".repeat(depth)}1.5${"]".repeat(depth)}`;
const DEPTH = 100_000;

/** 18 user records with no uuid, as tools other than Claude Code write them (issue 38's session). */
function uuidless(sessionId: string, n = 18): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(
      JSON.stringify({
        type: "user",
        message: { role: "user", content: `Speaker ${i % 3}: distinct point number ${i}` },
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        sessionId,
      }),
    );
  return `${lines.join("\n")}\n`;
}

describe("records without an id", () => {
  it("are turns of their own, named by session and line, the same on every read", () => {
    const path = "/p/droid-session.jsonl";
    const text = uuidless("droid-session");
    const turns = parseClaudeTranscript(text, { path }).sessions[0]?.turns ?? [];
    expect(turns).toHaveLength(18);
    expect(new Set(turns.map((t) => t.turnUuid)).size).toBe(18);
    expect(turns[0]?.turnUuid).toBe("droid-session-line-1");
    expect(turns[17]?.turnUuid).toBe("droid-session-line-18");
    const again = parseClaudeTranscript(text, { path }).sessions[0]?.turns ?? [];
    expect(again.map((t) => t.turnUuid)).toEqual(turns.map((t) => t.turnUuid));
  });

  it("leave a record that has a uuid with it", () => {
    const rec = { type: "user", uuid: "u-1", message: { role: "user", content: "kept as it was" } };
    const text = `${JSON.stringify(rec)}\n${uuidless("s", 1)}`;
    const turns = parseClaudeTranscript(text, { path: "/p/s.jsonl" }).sessions[0]?.turns ?? [];
    expect(turns.map((t) => t.turnUuid)).toEqual(["u-1", "s-line-2"]);
  });

  it("under a uuid an earlier record had with other content, are named by line; with the same, keep it", () => {
    const rec = (content: string) =>
      JSON.stringify({ type: "user", uuid: "[placeholder]", message: { role: "user", content } });
    const text = [rec("first point"), rec("second point"), rec("first point")].join("\n");
    const turns = parseClaudeTranscript(text, { path: "/p/s.jsonl" }).sessions[0]?.turns ?? [];
    expect(turns.map((t) => t.turnUuid)).toEqual(["[placeholder]", "s-line-2", "[placeholder]"]);
  });
});

describe("a record that cannot be read", () => {
  const claudeLine = (i: number, input: string) =>
    `{"type":"assistant","uuid":"a${i}","message":{"role":"assistant","content":[{"type":"tool_use","id":"t${i}","name":"Bash","input":${input}}]}}`;

  it("is passed over by the Claude parser, counted and named by its line; the rest of the file is read", () => {
    for (const input of [deep(DEPTH), deep(DEPTH).replace("1.5", "1")]) {
      const text = [claudeLine(1, '{"c":"ls"}'), claudeLine(2, input), claudeLine(3, '{"c":"pwd"}')].join(
        "\n",
      );
      const r = parseClaudeTranscript(text, { path: "/p/s.jsonl" });
      expect(r.sessions[0]?.turns.map((t) => t.turnUuid)).toEqual(["a1", "a3"]);
      expect(r.skipped[SKIP_UNREADABLE]).toBe(1);
      expect(r.unreadable).toEqual([{ at: "line 2", reason: "JSON nested too deep to read" }]);
    }
  });

  it("is passed over by every other JSONL parser too", () => {
    const codex = [
      `{"timestamp":"t","type":"session_meta","payload":{"id":"c1","cwd":"/w"}}`,
      `{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":${deep(DEPTH)}}}`,
      `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"still here"}}`,
    ].join("\n");
    const pi = [
      `{"type":"session","cwd":"/w"}`,
      `{"type":"message","id":"m1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":${deep(DEPTH)}}]}}`,
      `{"type":"message","id":"m2","message":{"role":"user","content":[{"type":"text","text":"still here"}]}}`,
    ].join("\n");
    const copilot = [
      `{"type":"assistant.message","id":"e1","data":{"content":"x","toolRequests":[{"toolCallId":"c","name":"bash","arguments":${deep(DEPTH)}}]}}`,
      `{"type":"user.message","id":"e2","data":{"content":"still here"}}`,
    ].join("\n");
    const qwen = [
      `{"type":"assistant","uuid":"q1","sessionId":"s","message":{"role":"model","parts":[{"functionCall":{"id":"c","name":"run","args":${deep(DEPTH)}}}]}}`,
      `{"type":"user","uuid":"q2","sessionId":"s","message":{"role":"user","parts":[{"text":"still here"}]}}`,
    ].join("\n");
    const gemini = [
      `{"sessionId":"g","projectHash":"h","startTime":"t"}`,
      `{"id":"m1","type":"gemini","timestamp":"t","content":"","toolCalls":[{"id":"c","name":"run","args":${deep(DEPTH)}}]}`,
      `{"id":"m2","type":"user","timestamp":"t","content":[{"text":"still here"}]}`,
    ].join("\n");
    const reads = [
      parseCodexRollout(codex, { path: "/p/rollout-1.jsonl" }),
      parsePiSession(pi, { path: "/p/pi.jsonl" }),
      parseCopilotEvents(copilot, { path: "/p/s/events.jsonl" }),
      parseQwenSession(qwen, { path: "/p/s.jsonl" }),
      parseGeminiSession(gemini, { path: "/p/chats/session-1.jsonl" }),
    ];
    const lines = ["line 2", "line 2", "line 1", "line 1", "line 2"];
    reads.forEach((r, i) => {
      const texts = r.sessions.flatMap((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text)));
      expect(texts).toContain("still here");
      expect(r.skipped[SKIP_UNREADABLE]).toBe(1);
      expect(r.unreadable?.[0]?.at).toBe(lines[i]);
    });
  });
});

describe("a file read a line at a time", () => {
  it("gives the lines of the whole text: long lines across reads, a character split between reads, CRLF", async () => {
    const t = tempDir();
    try {
      const path = join(t.dir, "x.jsonl");
      // 1 MiB reads: a 2.5 MiB line, and a 4-byte character straddling the first read's end.
      const pad = "a".repeat((1 << 20) - 3);
      const text = `${pad}😀tail\r\n${"b".repeat(2.5 * (1 << 20))}\n\nlast line without newline`;
      writeFileSync(path, text);
      const lines = [...fileLines(path)] as (string | OverlongLine)[];
      expect(lines).toEqual((await readTextLossy(path)).split("\n"));
      expect([...fileLines(path)]).toEqual(lines); // every iteration reads the file again
    } finally {
      t.cleanup();
    }
  });
});

/** Every turn as plain data (the blocks' text and names, ids, workdir), for comparing two reads. */
const plain = (turns: Iterable<Turn>) => [...turns].map((t) => JSON.parse(JSON.stringify(t)) as Turn);

describe("a transcript streamed for indexing", () => {
  it("gives what reading it whole gives, for every real fixture of the streamed formats", async () => {
    const formats = [
      ["claude_code", "claude"],
      ["codex", "codex"],
      ["pi", "pi"],
      ["copilot", "copilot"],
      ["qwen", "qwen"],
      ["gemini", "gemini"],
      ["gemini", "corpus/gemini"],
    ] as const;
    for (const [harness, folder] of formats) {
      const source = new JsonlTreeSource(harness, join(TRACES, folder));
      const units = await source.listUnits();
      expect(units.length).toBeGreaterThan(0);
      for (const unit of units) {
        const whole = await source.readUnit(unit);
        const streamed = await source.streamUnit(unit);
        if (streamed === null) throw new Error(`${unit.key} was not streamed`);
        const got = collectStream(streamed);
        expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(whole)));
      }
    }
  });
});

describe("Qwen Code read in two passes", () => {
  const piece = (uuid: string, text: string) =>
    `{"type":"assistant","uuid":"${uuid}","sessionId":"s","message":{"role":"model","parts":[{"text":"${text}"}]}}`;

  it("gives a message once its last piece is read, in the order messages begin", () => {
    const text = [piece("a", "a1"), piece("b", "b1"), piece("a", "a2"), piece("c", "c1")].join("\n");
    const pulled: number[] = [];
    let n = 0;
    const lines: Iterable<string> = {
      *[Symbol.iterator]() {
        for (const l of text.split("\n")) {
          n++;
          yield l;
        }
      },
    };
    const s = streamQwenSession(lines, { path: "/p/s.jsonl" }).sessions[0];
    const start = n;
    const got: [string, string[]][] = [];
    for (const t of s?.turns ?? []) {
      pulled.push(n - start);
      got.push([t.turnUuid, t.blocks.map((b) => b.text)]);
    }
    expect(got).toEqual([
      ["a", ["a1", "a2"]],
      ["b", ["b1"]],
      ["c", ["c1"]],
    ]);
    // "a" waits for its second piece (line 3), "b" behind it; "c" comes with its own line.
    expect(pulled).toEqual([3, 3, 4]);
  });
});

/** `lines` as an iterable that counts the lines pulled from it (both passes' together). */
function counting(lines: string[]): { lines: Iterable<string>; pulled: () => number } {
  let n = 0;
  const it: Iterable<string> = {
    *[Symbol.iterator]() {
      for (const l of lines) {
        n++;
        yield l;
      }
    },
  };
  return { lines: it, pulled: () => n };
}

describe("Gemini CLI read in two passes", () => {
  const msg = (o: Record<string, unknown>) => JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", ...o });
  const run = (id: string) => ({ id, name: "run", args: {} });
  const answer = (id: string, output: string) => ({
    functionResponse: { id, name: "run", response: { output } },
  });

  it("gives each surviving message in the list's order once its last version is read, a call's answer with it", () => {
    const lines = [
      `{"sessionId":"g","projectHash":"h","startTime":"t"}`,
      msg({ id: "a", type: "gemini", content: "looking" }),
      msg({ id: "u", type: "user", content: [{ text: "meanwhile" }] }),
      // "a" written again with its call and the call's result: its final version, so "u" waited for it.
      msg({
        id: "a",
        type: "gemini",
        content: "looking",
        toolCalls: [{ ...run("c1"), result: [answer("c1", "out")] }],
      }),
      msg({ id: "b", type: "gemini", content: "", toolCalls: [run("c2")] }),
      msg({ id: "r2", type: "user", content: [answer("c2", "done")] }),
      msg({ id: "x", type: "user", content: [{ text: "taken back" }] }),
      `{"$rewindTo":"x"}`,
      msg({ id: "z", type: "user", content: [{ text: "last" }] }),
    ];
    const path = "/p/chats/session-1.jsonl";
    const c = counting(lines);
    const s = streamGeminiSession(c.lines, { path }).sessions[0];
    const first = c.pulled();
    // Each pass looks at the first line once more to tell a legacy whole-file document (the first pass read
    // the file through).
    expect(first).toBe(lines.length + 1);
    const got: [string, string, number][] = [];
    for (const t of s?.turns ?? [])
      got.push([t.turnUuid, t.blocks.map((b) => b.text).join("|"), c.pulled() - first]);
    expect(got).toEqual([
      ["a", `looking|{}`, 5],
      ["c1", "out", 5],
      ["u", "meanwhile", 5],
      ["b", "{}", 6], // given before its answer: only the call's own turn waits
      ["c2", "done", 7],
      ["z", "last", 10],
    ]);
    const whole = parseGeminiSession(lines.join("\n"), { path });
    const again = collectStream(streamGeminiSession(lines, { path }));
    expect(JSON.parse(JSON.stringify(again))).toEqual(JSON.parse(JSON.stringify(whole)));
  });

  it("holds one record at a time in its second pass: a turn is given before the lines after it are read", () => {
    const n = 1000;
    const lines = [`{"sessionId":"g","projectHash":"h","startTime":"t"}`];
    for (let i = 0; i < n; i++)
      lines.push(msg({ id: `m${i}`, type: "user", content: [{ text: `message ${i}` }] }));
    const c = counting(lines);
    const s = streamGeminiSession(c.lines, { path: "/p/chats/session-1.jsonl" }).sessions[0];
    expect(c.pulled()).toBe(n + 2); // the first line looked at once more in each pass (a legacy document?)
    const it = (s?.turns ?? [])[Symbol.iterator]();
    expect(it.next().value?.turnUuid).toBe("m0");
    expect(c.pulled()).toBe(n + 2 + 1 + 2); // that look, the metadata line and the first message's
    expect(it.next().value?.turnUuid).toBe("m1");
    expect(c.pulled()).toBe(n + 2 + 1 + 3);
  });
});

describe("Claude Code read in two passes", () => {
  it("gives the turns, skips and counts that reading the whole file gives, for every real fixture", () => {
    const dir = join(TRACES, "claude");
    const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const path = join(dir, f);
      const whole = parseClaudeTranscript(readFileSync(path, "utf8"), { path });
      const stream = streamClaudeTranscript(fileLines(path), { path });
      const [s] = stream.sessions;
      const w = whole.sessions[0];
      expect([s?.sessionId, s?.workdir, s?.cwd]).toEqual([w?.sessionId, w?.workdir, w?.cwd]);
      expect(plain(s?.turns ?? [])).toEqual(plain(w?.turns ?? []));
      expect(stream.read.skipped).toEqual(whole.skipped);
      expect(stream.read.records).toBe(whole.records);
    }
  });

  it("backfills a tool result's name from a call written after it, as the whole-file read does", () => {
    const result = `{"type":"user","uuid":"r","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}`;
    const call = `{"type":"assistant","uuid":"c","cwd":"/home/dev/app","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{}}]}}`;
    const text = `${result}\n${call}\n`;
    const s = streamClaudeTranscript(text, { path: "/p/s.jsonl" }).sessions[0];
    const turns = [...(s?.turns ?? [])];
    expect(turns[0]?.blocks[0]?.toolName).toBe("Grep");
    expect(turns.every((t) => t.workdir === "-home-dev-app")).toBe(true);
  });

  it("names a tool result whose call the agent appended between the two passes", () => {
    const call = `{"type":"assistant","uuid":"c","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{}}]}}`;
    const result = `{"type":"user","uuid":"r","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}`;
    const first = `{"type":"user","uuid":"u","message":{"role":"user","content":"find it"}}`;
    let reads = 0;
    // A live session: the first pass sees one line, the second three.
    const growing: Iterable<string> = {
      [Symbol.iterator]: () => (reads++ === 0 ? [first] : [first, call, result])[Symbol.iterator](),
    };
    const turns = [...(streamClaudeTranscript(growing, { path: "/p/s.jsonl" }).sessions[0]?.turns ?? [])];
    expect(turns.map((t) => t.blocks[0]?.toolName ?? null)).toEqual([null, "Grep", "Grep"]);
  });

  it("holds one record at a time in its second pass: a turn is given before the lines after it are read", () => {
    const n = 1000;
    const lines = uuidless("s", n).trimEnd().split("\n");
    let pulled = 0;
    const counted: Iterable<string> = {
      *[Symbol.iterator]() {
        for (const l of lines) {
          pulled++;
          yield l;
        }
      },
    };
    const s = streamClaudeTranscript(counted, { path: "/p/s.jsonl" }).sessions[0];
    expect(pulled).toBe(n); // the first pass read the file through
    const it = (s?.turns ?? [])[Symbol.iterator]();
    expect(it.next().value?.turnUuid).toBe("s-line-1");
    expect(pulled).toBe(n + 1); // and the second one line, for the first turn
  });
});

describe("work that grows with the input, not its square", () => {
  // Sizes at which the quadratic reads (every piece compared with every earlier one: ≈ 5 minutes; every
  // rewind listing every message: over a minute) outlast the test's time limit; linear, each is a second
  // or two.
  it("joins a Qwen message written in 50,000 pieces", () => {
    const n = 50_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++)
      lines.push(
        `{"type":"assistant","uuid":"m","sessionId":"s","message":{"role":"model","parts":[{"text":"piece ${i}"}]}}`,
      );
    lines.push(lines[7] as string); // a piece written again whole is read once
    const r = parseQwenSession(lines.join("\n"), { path: "/p/s.jsonl" });
    expect(r.sessions[0]?.turns).toHaveLength(1);
    expect(r.sessions[0]?.turns[0]?.blocks).toHaveLength(n);
    expect(r.skipped["record written again (read once)"]).toBe(1);
  });

  it("replays 60,000 Gemini rewinds in a session of 60,000 messages", () => {
    const n = 60_000;
    const lines = [`{"sessionId":"g","projectHash":"h","startTime":"t"}`];
    for (let i = 0; i < n; i++)
      lines.push(`{"id":"m${i}","type":"user","timestamp":"t","content":[{"text":"message ${i}"}]}`);
    // A message retried n times: each retry written, then rewound away (the list keeps its n messages).
    for (let i = 0; i < n; i++)
      lines.push(
        `{"id":"r${i}","type":"user","timestamp":"t","content":[{"text":"retry"}]}`,
        `{"$rewindTo":"r${i}"}`,
      );
    const r = parseGeminiSession(lines.join("\n"), { path: "/p/chats/session-1.jsonl" });
    const ids = r.sessions[0]?.turns.map((t) => t.turnUuid) ?? [];
    expect(ids).toHaveLength(n);
    expect([ids[0], ids[n - 1]]).toEqual(["m0", `m${n - 1}`]);
  });
});
