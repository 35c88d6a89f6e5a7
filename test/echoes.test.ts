/**
 * funes knows its own outputs when it reads them back (search/echoes.ts): every spelling of its tools the
 * agents build, a shell running it, and each of its output formats as the real formatters write them —
 * and nothing else: other tools' names, ordinary prose, logs and code are not echoes.
 */
import { describe, expect, it } from "vitest";
import { formatRecallHuman } from "../src/cli/render-recall.js";
import { askPrompt, type RecallResult } from "../src/commands/index.js";
import { formatGetAgent, formatRecallAgent } from "../src/format/index.js";
import { echoOf, exchangeKinds, funesToolOfName, hasFunesOutput, quotedTurns } from "../src/search/index.js";
import { recallHit } from "./helpers/hits.js";

const result: RecallResult = {
  memory: "local",
  notes: [],
  hits: [
    recallHit({
      sessionId: "7cdb234a-93a4-448b-bf5e-fbefa299ab09",
      turnUuid: "a3b0354d-0334-46f4-b9dc-5cbde19d32f5",
      harness: "claude_code",
      workdir: "-home-dev-app",
      text: "Decided: the cache goes through an LRU of 512 MB.",
      memory: "",
      relevance: 1,
      kind: "original",
      echoes: 0,
    }),
  ],
};

describe("funes's tools, however an agent spells them", () => {
  it("every MCP naming scheme, pi's bare tool and the shell", () => {
    for (const name of [
      "mcp__funes__recall",
      "mcp__plugin_funes_funes__recall",
      "funes___recall",
      "mcp_funes_recall",
      "funes_recall",
      "funes-recall",
      "funes.recall",
      "FUNES__RECALL",
      "recall",
      "mcp__funes-team__recall",
    ])
      expect(funesToolOfName(name), name).toBe("recall");
    expect(funesToolOfName("mcp__funes__get")).toBe("get");
    expect(funesToolOfName("funes-status")).toBe("status");
    for (const name of [
      "get",
      "mcp__github__get",
      "recall_notes",
      "Bash",
      "exec_command",
      "funesy_recall",
      null,
    ])
      expect(funesToolOfName(name), String(name)).toBeNull();
  });

  it("calls by name, by a shell command, and pi's bare get by its arguments", () => {
    const call = (toolName: string, text: string) =>
      echoOf({ role: "assistant", blockType: "tool_use", toolName, text });
    expect(call("mcp__funes__recall", '{"query":"cache"}')).toBe("call");
    expect(call("exec_command", '{"cmd":"funes recall \\"why lru\\" -k 5"}')).toBe("call");
    expect(call("Bash", '{"command":"cd app && npx funes get S T"}')).toBe("call");
    expect(call("bash", '{"command":"FUNES_HOME=/x funes --memory acme/m recall lru"}')).toBe("call");
    expect(call("shell", '{"command":["funes","ask","claude","why?"]}')).toBe("call");
    expect(call("get", '{"session_id":"S","turn_uuid":"T"}')).toBe("call");
    expect(call("get", '{"url":"https://example.com"}')).toBeNull();
    expect(call("Bash", '{"command":"grep -r funes src | wc -l"}')).toBeNull();
    expect(call("Bash", '{"command":"echo recall the funes story"}')).toBeNull();
  });
});

describe("funes's output formats, as its formatters write them", () => {
  const agent = formatRecallAgent(result);
  const human = formatRecallHuman(result, { width: 80, color: false, defaultMemory: "" });
  const json = JSON.stringify(result, null, 2);
  const get = formatGetAgent(
    [
      { ts: "2026-01-01T00:00:00Z", role: "assistant", seq: 3, turnUuid: "t-1", blocks: [{ text: "hello" }] },
    ] as never,
    "S",
    "t-1",
  );
  const prompt = askPrompt("why lru?", agent);

  it("recognises each, under any tool name and in any block", () => {
    for (const [label, text] of Object.entries({ agent, human, json, get, prompt })) {
      expect(hasFunesOutput(text), label).toBe(true);
      expect(echoOf({ role: "tool", blockType: "tool_result", toolName: "exec_command", text }), label).toBe(
        "output",
      );
      expect(echoOf({ role: "user", blockType: "text", toolName: null, text }), label).toBe("prompt");
    }
    // Compacted JSON (as some agents store tool output) too.
    expect(hasFunesOutput(JSON.stringify(result))).toBe(true);
  });

  it("a tool result named as funes's is an echo whatever it holds (the middle of a long output)", () => {
    expect(
      echoOf({ role: "user", blockType: "tool_result", toolName: "mcp__funes__recall", text: "no results" }),
    ).toBe("output");
  });

  it("reads the turns an output quotes", () => {
    expect(quotedTurns(agent)).toEqual([
      { sessionId: "7cdb234a-93a4-448b-bf5e-fbefa299ab09", turnUuid: "a3b0354d-0334-46f4-b9dc-5cbde19d32f5" },
    ]);
    expect(quotedTurns(human)).toEqual(quotedTurns(agent));
  });

  it("leaves ordinary text alone: prose, logs, code, markdown lists, other tools' scores", () => {
    for (const text of [
      "Decided: the cache goes through an LRU of 512 MB.",
      "[2026-01-01T00:00:00Z] INFO server started on :8080",
      "1. Install the package\n2. Run `npm test`",
      "score=0.812 for model run 3",
      '{"id": 3, "name": "sessionId"}',
      "→ next we get the data and render it",
      "get S T",
    ])
      expect(hasFunesOutput(text), text).toBe(false);
  });
});

describe("a recall's exchange in its session", () => {
  const row = (
    seq: number,
    role: string,
    blockType: string,
    text: string,
    toolName: string | null = null,
  ) => ({
    seq,
    role,
    blockType,
    text,
    toolName,
  });
  it("the prompt before a funes call asked it; the prose after its output restates it", () => {
    const rows = [
      row(0, "user", "text", "set up the repo"),
      row(1, "assistant", "text", "Done, the repo is set up."),
      row(2, "user", "text", "what did we decide about the cache?"),
      row(3, "assistant", "thinking", "I should check memory."),
      row(4, "assistant", "tool_use", '{"query":"cache decision"}', "mcp__funes__recall"),
      row(5, "user", "tool_result", "…", "mcp__funes__recall"),
      row(6, "assistant", "text", "From memory: an LRU of 512 MB."),
      row(7, "user", "text", "thanks, now bump the version"),
      row(8, "assistant", "text", "Bumped to 1.2.0."),
    ];
    const echo = (r: (typeof rows)[number]) => echoOf(r) !== null;
    expect(exchangeKinds(rows, echo)).toEqual([
      "original",
      "original",
      "question",
      "original",
      "echo",
      "echo",
      "restatement",
      "original",
      "original",
    ]);
  });

  it("ask's prompt is an echo and the answer after it a restatement", () => {
    const rows = [
      row(0, "user", "text", askPrompt("why?", formatRecallAgent(result))),
      row(1, "assistant", "text", "Because LRU."),
    ];
    expect(exchangeKinds(rows, (r) => echoOf(r) !== null)).toEqual(["echo", "restatement"]);
  });
});
