import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { copyFixture, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { ALL_TIERS, chunkTurns } from "../chunk/index.js";
import { sniffFile } from "./detect.js";
import { parseGeminiSession } from "./gemini.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { knownSources, sourcesForPath } from "./sources.js";

/** Real sessions Gemini CLI 0.61.0 wrote (test/fixtures/traces/README.md). */
const CHATS = join(TRACES, "gemini", "tmp", "app", "chats");
const RESUMED = join(CHATS, "session-2026-12-01T23-39-b5c61e55.jsonl");
const CWD = "/tmp/gemini-fixture/home/app";

const parse = (text: string, path = RESUMED) => parseGeminiSession(text, { path, cwd: CWD });
const chunks = (text: string) =>
  chunkTurns(
    parse(text).sessions.flatMap((s) => s.turns),
    { tiers: ALL_TIERS, thinking: true, repo: "" },
  ).map((c) => [c.id, c.text] as const);

traceSourceContract("gemini", {
  harness: "gemini",
  async make() {
    const t = tempDir();
    copyFixture("gemini/tmp", join(t.dir, "tmp"));
    return { source: new JsonlTreeSource("gemini", join(t.dir, "tmp")), cleanup: t.cleanup };
  },
  async makeDamaged() {
    const t = tempDir();
    copyFixture("gemini/tmp", join(t.dir, "tmp"));
    appendFileSync(
      join(t.dir, "tmp", "app", "chats", "session-2026-12-01T23-39-b5c61e55.jsonl"),
      "{not json\n",
    );
    return { source: new JsonlTreeSource("gemini", join(t.dir, "tmp")), cleanup: t.cleanup };
  },
});

describe("parseGeminiSession", () => {
  it("replays a real resumed session: each message once, the CLI's context left out, answers after their calls", () => {
    const r = parse(readFileSync(RESUMED, "utf8"));
    const s = r.sessions[0]!;
    expect(s.sessionId).toBe("b5c61e55-d839-4b0a-92b4-0327f6ba007a");
    expect(s.cwd).toBe(CWD);
    expect(s.workdir).toBe("-tmp-gemini-fixture-home-app");
    expect(s.turns.map((t) => [t.role, t.blocks.map((b) => b.blockType)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["thinking", "tool_use"]],
      ["tool", ["tool_result"]],
      ["assistant", ["thinking", "text"]],
      ["user", ["text"]],
      ["assistant", ["thinking", "text"]],
    ]);
    const [call, answer] = [s.turns[1]!.blocks[1]!, s.turns[2]!.blocks[0]!];
    expect(call).toMatchObject({
      toolName: "mcp_funes_recall",
      text: '{"query":"fix the failing test","k":2}',
    });
    expect(answer.toolName).toBe("mcp_funes_recall");
    expect(answer.text).toContain("→ get ");
    expect(s.turns[2]!.turnUuid).toBe(call.toolUseId);
    // The resume restamped every message it wrote back; each keeps the time it was first written.
    expect(s.turns[0]!.ts).toBe("2026-12-01T23:39:42.840Z");
    expect(s.turns.some((t) => t.blocks.some((b) => b.text.includes("<session_context>")))).toBe(false);
    expect(r.skipped).toMatchObject({
      "gemini <session_context> (the CLI's, injected)": 1,
      'content part "functionResponse" already read with its call': 1,
    });
  });

  it("gives every prefix's chunks again, unchanged, in the whole file: an incremental re-read doubles and loses nothing", () => {
    const lines = readFileSync(RESUMED, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const whole = new Map(chunks(lines.join("\n")));
    const ids = [...chunks(lines.join("\n"))].map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    for (let n = 1; n < lines.length; n++)
      for (const [id, text] of chunks(lines.slice(0, n).join("\n"))) expect(whole.get(id)).toBe(text);
    // Before the resume (11 lines) the session had four turns; the resume rewrote them and added two.
    const before = parse(lines.slice(0, 11).join("\n")).sessions[0]!.turns.map((t) => t.turnUuid);
    const after = parse(lines.join("\n")).sessions[0]!.turns.map((t) => t.turnUuid);
    expect(after.slice(0, 4)).toEqual(before);
    expect(after).toHaveLength(6);
  });

  it("drops what a $rewindTo takes back, and everything when its id is unknown", () => {
    const text = readFileSync(RESUMED, "utf8");
    const turns = parse(text).sessions[0]!.turns;
    const second = turns[4]!.turnUuid;
    const rewound = parse(`${text}{"$rewindTo":"${second}"}\n`);
    expect(rewound.sessions[0]!.turns.map((t) => t.turnUuid)).toEqual(
      turns.slice(0, 4).map((t) => t.turnUuid),
    );
    expect(rewound.skipped["message rewound or left out of a rewritten list"]).toBe(2);
    expect(parse(`${text}{"$rewindTo":"no-such-id"}\n`).sessions[0]!.turns).toEqual([]);
  });

  it("reads a model message written again with its tool calls once, in the last version", () => {
    const lines = readFileSync(RESUMED, "utf8").split("\n").slice(0, 7);
    const r = parse(lines.join("\n"));
    const model = r.sessions[0]!.turns.filter((t) => t.role === "assistant");
    expect(model).toHaveLength(1);
    expect(model[0]!.blocks.map((b) => b.blockType)).toEqual(["thinking", "tool_use"]);
    expect(r.skipped["message written again (its last version is read)"]).toBe(1);
  });
});

describe("Gemini CLI's older whole-file sessions", () => {
  it("reads a session-*.json document as its message list, found by name and by content", async () => {
    const lines = readFileSync(RESUMED, "utf8").split("\n");
    // The real resumed list (line 15) under the real metadata (line 1), as the older CLI kept a session.
    const { messages } = JSON.parse(lines[14]!).$set;
    const doc = { ...JSON.parse(lines[0]!), messages };
    const t = tempDir();
    try {
      const chats = join(t.dir, "tmp", "app", "chats");
      mkdirSync(chats, { recursive: true });
      const legacy = join(chats, "session-2026-12-01T23-39-b5c61e55.json");
      writeFileSync(legacy, JSON.stringify(doc, null, 2));
      expect(sniffFile(legacy)).toEqual({ kind: "transcript", harness: "gemini" });
      const source = new JsonlTreeSource("gemini", join(t.dir, "tmp"));
      const [unit] = await source.listUnits();
      expect(unit?.key).toBe(legacy);
      const read = await source.readUnit(unit!);
      const blocks = (r: typeof read) =>
        r.sessions[0]!.turns.map((x) => [x.turnUuid, x.blocks.map((b) => b.text)]);
      expect(read.sessions[0]!.sessionId).toBe("b5c61e55-d839-4b0a-92b4-0327f6ba007a");
      expect(blocks(read)).toEqual(blocks(parse(lines.slice(0, 11).join("\n"))));
      // A record per message, whatever order the document's keys come in (other tools write `kind` first).
      expect(read.records).toBe(messages.length);
      const { sessionId, ...rest } = doc;
      const reordered = parse(JSON.stringify({ kind: "main", messages, ...rest, sessionId }, null, 1));
      expect(blocks(reordered)).toEqual(blocks(read));
      expect(reordered.records).toBe(messages.length);
    } finally {
      t.cleanup();
    }
  });
});

describe("Gemini CLI's folders", () => {
  it("list the older whole-file sessions, a sub-agent's under its parent's folder among them, and nothing else", async () => {
    // A real ~/.gemini/tmp (three projects, one with a sub-agent's `chats/<parent session>/<id>.json`), with
    // the CLI's other JSON beside the chats (logs, checkpoints) that is no session.
    const t = tempDir();
    try {
      const tmp = join(t.dir, "tmp");
      cpSync(join(TRACES, "corpus/gemini/idaho-vault/tmp"), tmp, { recursive: true });
      writeFileSync(join(tmp, "loganf", "logs.json"), "[]");
      writeFileSync(join(tmp, "loganf", "checkpoint-a.json"), "{}");
      const source = new JsonlTreeSource("gemini", tmp);
      const units = await source.listUnits();
      expect(units.map((u) => relative(tmp, u.key).split(sep).join("/")).sort()).toEqual([
        "f528f00f72f21423df709bb5104dfe181c28474fac473cf1028c3bfd64be534a/chats/session-2026-03-29T19-11-7726f628.json",
        "idaho-vault/chats/f328310d-05ea-45ce-b9cb-fe2717bebe12/twynek.json",
        "idaho-vault/chats/session-2026-04-13T17-57-b9d28477.json",
        "loganf/chats/session-2026-04-14T19-55-d031dc7c.json",
      ]);
      const sub = await source.readUnit(units.find((u) => u.key.endsWith("twynek.json"))!);
      expect(sub.sessions[0]!.isSubagent).toBe(true);
      expect(sub.sessions[0]!.turns.length).toBeGreaterThan(0);
    } finally {
      t.cleanup();
    }
  });

  it("are walked from ~/.gemini/tmp and from GEMINI_CLI_HOME, and a session file is known by its content", async () => {
    const t = tempDir();
    try {
      const home = join(t.dir, "home");
      copyFixture("gemini/tmp", join(home, ".gemini", "tmp"));
      const [source] = knownSources(home, "gemini");
      expect(source?.kind).toBe("gemini");
      const units = await source!.listUnits();
      expect(units).toHaveLength(2);
      const read = await source!.readUnit(units.find((u) => u.key.endsWith("b5c61e55.jsonl"))!);
      // The cwd comes from `.project_root` beside `chats/`.
      expect(read.sessions[0]!.cwd).toBe(CWD);
      const moved = join(t.dir, "elsewhere");
      copyFixture("gemini/tmp", join(moved, ".gemini", "tmp"));
      expect(
        knownSources(home, "gemini", { gemini: join(moved, ".gemini") }).map((s) => s.description),
      ).toEqual([`scanning gemini transcripts under ${join(moved, ".gemini", "tmp")}`]);
      expect(sniffFile(RESUMED)).toEqual({ kind: "transcript", harness: "gemini" });
      const loose = join(t.dir, "loose");
      mkdirSync(loose);
      writeFileSync(join(loose, "a.jsonl"), readFileSync(RESUMED));
      expect(sourcesForPath(join(loose, "a.jsonl")).map((s) => s.kind)).toEqual(["gemini"]);
    } finally {
      t.cleanup();
    }
  });
});
