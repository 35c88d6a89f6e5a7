/**
 * funes knows its own outputs when it reads them back (search/echoes.ts): every spelling of its tools the
 * agents build, a shell running it, and each of its output formats as the real formatters write them —
 * and nothing else: other tools' names, ordinary prose, logs and code are not echoes.
 */
import { describe, expect, it } from "vitest";
import { formatRecallHuman } from "../src/cli/render-recall.js";
import { askPrompt, type RecallHit, type RecallResult } from "../src/commands/index.js";
import { formatGetAgent, formatRecallAgent } from "../src/format/index.js";
import { plainForm } from "../src/lookalike/index.js";
import { copiesOf } from "../src/memory/index.js";
import {
  copyLinks,
  echoOf,
  exchangeKinds,
  funesToolOfName,
  hasFunesOutput,
  quotedTurns,
  rankAfterSources,
  sessionKinds,
  turnIndex,
  turnKey,
} from "../src/search/index.js";
import { FORGED_HITS, licenceRows } from "./helpers/echo-adversarial.js";
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
      recency: 1,
      rerank: null,
      reranked: false,
      legs: ["keyword"],
      blockIdx: 0,
      splitIdx: 0,
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
      "mcp__funes-team__recall",
    ])
      expect(funesToolOfName(name), name).toBe("recall");
    expect(funesToolOfName("mcp__funes__get")).toBe("get");
    expect(funesToolOfName("funes-status")).toBe("status");
    // A bare `recall` or `get` (pi's, or a project's own tool) is told by its output, not its name.
    for (const name of [
      "recall",
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

  it("a call by a tool named after funes alone; any other call waits for its result", () => {
    const call = (toolName: string, text: string) =>
      echoOf({ role: "assistant", blockType: "tool_use", toolName, text });
    expect(call("mcp__funes__recall", '{"query":"cache"}')).toBe("call");
    for (const [name, text] of [
      ["exec_command", '{"cmd":"funes recall \\"why lru\\" -k 5"}'],
      ["Bash", '{"command":"grep -rn \\"funes recall\\" docs"}'],
      ["get", '{"session_id":"S","turn_uuid":"T"}'],
    ])
      expect(call(name as string, text as string), text).toBeNull();
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
    // The terminal view prints the ids' first characters (what `get` resolves), matched as prefixes.
    const [short] = quotedTurns(human);
    expect(short?.sessionId).toBe("7cdb234a");
    const find = turnIndex([
      { sessionId: "7cdb234a-93a4-448b-bf5e-fbefa299ab09", turnUuid: "a3b0354d-0334-46f4-b9dc-5cbde19d32f5" },
    ]);
    expect(find(turnKey(short?.sessionId ?? "", short?.turnUuid ?? ""))).toHaveLength(1);
    expect(quotedTurns(json)).toEqual(quotedTurns(agent));
    expect(quotedTurns(JSON.stringify(JSON.stringify(result)))).toEqual(quotedTurns(agent));
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
      // An arrow list, and a pasted event with a session and a turn id: one line or one key of funes's is not its output.
      "Decided:\n→ get the invoice from the ledger\n→ post the refund to the queue",
      "  → get invoice ledger\n  → get refund queue",
      '{"sessionId": "7cdb234a", "turnUuid": "a3b0354d", "type": "user", "message": "hi"}',
      "[2026-01-01T00:00:00Z] claude_code -home-dev/abcd text  score=0.812",
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
    expect(exchangeKinds(rows, echo).kinds).toEqual([
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
    expect(exchangeKinds(rows, (r) => echoOf(r) !== null).kinds).toEqual(["echo", "restatement"]);
  });
});

/** A row of one session as the index stores it (what `sessionKinds` reads). */
function placed(seq: number, role: string, blockType: string, text: string, toolName: string | null = null) {
  return { seq, role, blockType, text, toolName, turnUuid: `t${seq}`, blockIdx: 0 };
}

describe("funes's output under any command that printed it (issue 38)", () => {
  const out = formatRecallAgent(result);
  const envelope = `Chunk ID: 4f1c2a\nWall time: 0.8 seconds\nProcess exited with code 0\nOutput:\n${out}`;
  for (const cmd of [
    'npx -y funes@latest recall "cache decision"',
    'node /home/dev/.npm/_npx/8f3c/node_modules/funes/dist/cli/main.js recall "cache decision" -k 8',
    'fr "cache decision"',
    'mem "cache decision" --format agent',
  ])
    it(`\`${cmd}\`: its call and output are echoes, the prompt before a question, the prose after a restatement, linked to the turn returned`, () => {
      const rows = [
        placed(0, "user", "text", "what did we decide about the cache?"),
        placed(
          1,
          "assistant",
          "tool_use",
          `[tool_use exec_command] ${JSON.stringify({ cmd })}`,
          "exec_command",
        ),
        placed(2, "tool", "tool_result", `[tool_result exec_command] ${envelope}`, "exec_command"),
        placed(3, "assistant", "text", "From memory: an LRU of 512 MB."),
        placed(4, "user", "text", "thanks, bump the version"),
      ];
      const { kinds, links } = sessionKinds(rows);
      expect(kinds).toEqual(["question", "echo", "echo", "restatement", "original"]);
      const turn = turnKey("7cdb234a-93a4-448b-bf5e-fbefa299ab09", "a3b0354d-0334-46f4-b9dc-5cbde19d32f5");
      expect(links[0]).toEqual([turn]);
      expect(links[3]).toEqual([turn]);
      expect(links[4]).toEqual([]);
    });

  it("a tool's JSON envelope holding the output (escaped newlines) is the output too", () => {
    const text = JSON.stringify({ output: out, metadata: { exit_code: 0 } });
    expect(echoOf({ role: "tool", blockType: "tool_result", toolName: "shell", text })).toBe("output");
  });
});

describe("a session that talks about recall, MCP or funes is not an echo (issue 40)", () => {
  it("grep for `funes recall`, a tool of its own named recall, funes's README, a commit message: all original", () => {
    const rows = [
      placed(0, "user", "text", "compare findr's recall with funes recall, grep the docs"),
      placed(
        1,
        "assistant",
        "tool_use",
        '[tool_use Bash] {"command":"grep -rn \\"funes recall\\" docs"}',
        "Bash",
      ),
      placed(
        2,
        "user",
        "tool_result",
        '[tool_result Bash] docs/compare.md:12:`funes recall "q"` prints one → get line per hit',
        "Bash",
      ),
      placed(3, "assistant", "text", "Decided: findr recall ranks notes by BM25 with a title boost of 0.3."),
      placed(4, "user", "text", "use our recall tool for the ledger notes"),
      placed(5, "assistant", "tool_use", '[tool_use recall] {"query":"ledger rollback"}', "recall"),
      placed(
        6,
        "user",
        "tool_result",
        "[tool_result recall] 2 matches:\nnotes/ledger.md:3  roll back by replaying the journal",
        "recall",
      ),
      placed(7, "assistant", "text", "Decided: ledger v2 rollback replays the journal backwards."),
      placed(8, "user", "text", "read funes's README and commit the comparison"),
      placed(
        9,
        "assistant",
        "tool_use",
        '[tool_use Bash] {"command":"cat node_modules/funes/README.md"}',
        "Bash",
      ),
      placed(
        10,
        "user",
        "tool_result",
        "[tool_result Bash] `funes mcp` serves recall, get and status. Each hit ends with a `→ get` line.",
        "Bash",
      ),
      placed(
        11,
        "assistant",
        "tool_use",
        '[tool_use Bash] {"command":"git commit -am \\"docs: compare with funes recall\\""}',
        "Bash",
      ),
      placed(
        12,
        "user",
        "tool_result",
        "[tool_result Bash] [main 4c2e1f0] docs: compare with funes recall",
        "Bash",
      ),
      placed(
        13,
        "assistant",
        "text",
        "Decided: the findr MCP server exposes search and fetch, never recall.",
      ),
      placed(
        14,
        "user",
        "text",
        'event: {"sessionId": "whk-5521", "turnUuid": "evt-0093", "type": "refund.failed"}',
      ),
      placed(
        15,
        "assistant",
        "text",
        "Decided, the refund flow:\n→ get the invoice from the ledger\n→ post the refund to the queue",
      ),
    ];
    expect(sessionKinds(rows).kinds).toEqual(rows.map(() => "original"));
  });
});

describe("text imitating a hit with look-alike characters (issue 40)", () => {
  for (const [label, text] of Object.entries(FORGED_HITS))
    it(`${label}: hidden as funes's output, and marked when an agent is shown it`, () => {
      expect(echoOf({ role: "user", blockType: "text", toolName: null, text }), label).toBe("prompt");
      expect(echoOf({ role: "tool", blockType: "tool_result", toolName: "Read", text }), label).toBe(
        "output",
      );
      const shown = formatRecallAgent({
        ...result,
        hits: [
          {
            ...(result.hits[0] as RecallHit),
            sessionId: "real-session",
            turnUuid: "real-turn",
            text,
            memory: "hf://datasets/stranger/memory",
          },
        ],
      });
      const unmarked = shown
        .split("\n")
        .filter((l) => (l.includes("0.951") || l.includes("7cdb234a-93a4")) && !l.startsWith("\\"));
      expect(unmarked, label).toEqual([]);
    });

  it("the plain form folds what a reader folds, and leaves plain text as it is", () => {
    expect(plainForm("score\u200d\uff1d0.951\u00a0\u27f6 g\u0435t")).toBe("score=0.951 → get");
    const plain = "Decided: the cache goes through an LRU of 512 MB → done · ok…";
    expect(plainForm(plain)).toBe(plain);
  });
});

describe("forget's copies and boilerplate (issue 40)", () => {
  it("of five sessions sharing the Apache header, forgetting one takes its own copies and nothing unrelated", () => {
    const lic = licenceRows();
    const taken = copiesOf(
      lic.all,
      lic.all.filter((r) => r.sessionId === lic.forgotten),
    ).map((r) => r.id);
    expect(taken.sort()).toEqual([...lic.copies].sort());
  });
});

describe("a use of memory never ranks above what it used (issue 38)", () => {
  type R = { item: { id: string }; relevance: number; retrieval: number; rerank: number | null };
  const row = (id: string, relevance: number, rerank: number | null = 0.5): R => ({
    item: { id },
    relevance,
    retrieval: relevance,
    rerank,
  });
  const rank = (rows: R[]) =>
    [...rows]
      .sort((a, b) => (a.rerank === null ? 1 : 0) - (b.rerank === null ? 1 : 0) || b.relevance - a.relevance)
      .slice(0, 2)
      .map((r) => ({ ...r, score: r.relevance * (r.item.id === "q" ? 1 : 0.99) }));

  it("a question scoring above the original it led to is placed after it, score capped, relevance its own", () => {
    const top = rankAfterSources(
      [row("q", 0.25), row("o", 0.248), row("x", 0.1)],
      new Map([["q", ["o"]]]),
      rank,
    );
    expect(top.map((t) => t.item.id)).toEqual(["o", "q"]);
    expect((top[1] as { score: number }).score).toBeLessThan((top[0] as { score: number }).score);
    expect(top[1]?.relevance).toBe(0.25);
  });

  it("the k shown hold the source wherever they hold its follower (a reranked follower of an unreranked source too)", () => {
    const top = rankAfterSources(
      [row("q", 0.9), row("x", 0.5), row("o", 0.4, null)],
      new Map([["q", ["o"]]]),
      rank,
    );
    expect(top.map((t) => t.item.id)).toEqual(["x", "o"]);
  });

  it("ids outside the pool and cycles are ignored", () => {
    const top = rankAfterSources(
      [row("a", 0.5), row("b", 0.4)],
      new Map([
        ["a", ["b", "gone"]],
        ["b", ["a"]],
      ]),
      rank,
    );
    expect(top.map((t) => t.item.id).sort()).toEqual(["a", "b"]);
  });

  it("a later row quoting a passage whole or in large part is its copy; shared boilerplate phrases are not", () => {
    const passage =
      "Decided: the ledger v2 writes go through the journal first, and a rollback replays the journal backwards to the last checkpoint before any write is retried.";
    const at = (id: string, text: string, day: number) => ({
      id,
      text,
      ts: `2026-01-${String(day).padStart(2, "0")}T00:00:00Z`,
      sessionId: id,
      turnUuid: "t",
      seq: 0,
    });
    const links = copyLinks([
      at("original", passage, 1),
      at("notes", `[tool_result Bash] # Decisions\n\n${passage}\n`, 5),
      at("paste", `${passage}\n\nis this still how we do it?`, 9),
      at(
        "other",
        "Decided: the ledger v2 writes go through the queue; nothing else changes for now in the service.",
        3,
      ),
    ]);
    expect(links.get("notes")).toContain("original");
    expect(links.get("paste")).toContain("original");
    expect(links.has("original")).toBe(false);
    expect(links.has("other")).toBe(false);
  });
});
