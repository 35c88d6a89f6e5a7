import { describe, expect, it } from "vitest";
import type { RecallHit, RecallResult } from "../commands/index.js";
import { terminalSafeRecall } from "../format/index.js";
import { formatRecallHuman, passageText, planCompact } from "./render-recall.js";
import { terminalRows } from "./terminal-text.js";

const hit = (over: Partial<RecallHit>): RecallHit => ({
  id: "x",
  text: "The fts build hangs on two cores unless LANCE_CPU_THREADS is set.",
  sessionId: "2026-01-05T10-20-30-123Z_7028acdd-e85a",
  workdir: "-home-dev-funes",
  turnUuid: "a-1",
  role: "assistant",
  blockIdx: 0,
  splitIdx: 0,
  ts: "2026-11-02T10:00:05.000Z",
  blockType: "text",
  toolName: null,
  seq: 3,
  harness: "pi",
  memory: "/home/u/.funes/memory",
  score: 0.5,
  relevance: 0.5,
  recency: 1,
  rerank: null,
  reranked: false,
  legs: ["keyword"],
  kind: "original",
  echoes: 0,
  neighbors: [
    { role: "user", blockType: "text", seq: 2, text: "why\ndoes it\nhang?" },
    {
      role: "assistant",
      blockType: "tool_use",
      seq: 4,
      text: '[tool_use Bash] {"command":"export A=1\\nrun"}',
    },
  ],
  ...over,
});

const result = (hits: RecallHit[]): RecallResult => ({ memory: "m", notes: ["note: keyword only"], hits });
const opts = { width: 60, color: false, defaultMemory: "/home/u/.funes/memory" };

describe("formatRecallHuman", () => {
  it("prints one header per hit, the passage, and the get command counting the turns around it", () => {
    expect(formatRecallHuman(result([hit({})]), { ...opts, width: 80 })).toBe(
      "1. 2026-11-02 10:00 · pi · -home-dev-funes/7028acdd · text  score 0.50\n" +
        "The fts build hangs on two cores unless LANCE_CPU_THREADS is set.\n" +
        "  → funes get 7028acdd a-1  (2 around it)\n",
    );
  });

  it("--full shows one line per neighbour and every line of the passage", () => {
    const long = hit({ text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n") });
    const out = formatRecallHuman(result([long]), { ...opts, width: 80, full: true });
    expect(out).toContain("line 19\n");
    expect(out).toContain(
      "  ~ user text: why does it hang?\n" +
        "  ~ assistant tool_use: [tool_use Bash] command: export A=1 run\n" +
        "  → funes get 2026-01-05T10-20-30-123Z_7028acdd-e85a a-1\n",
    );
  });

  it("fits a screen: eight long hits on 40 rows take at most 39 lines, the top ones with their text", () => {
    const long = hit({ text: "word ".repeat(400) });
    const out = formatRecallHuman(result(Array.from({ length: 8 }, () => long)), {
      ...opts,
      width: 100,
      rows: 40,
    });
    expect(out.split("\n").length - 1).toBeLessThanOrEqual(39);
    expect(out).toMatch(/→ funes get 7028acdd a-1 {2}\(\+\d+ lines, 2 around it\)/);
    expect(out).toMatch(/\+\d more hits? — --full shows all 8 whole/);
  });

  it("at 80x24, eight hits with 36-character ids: the view and two rows of notes fit, three hits keep text", () => {
    const uuid = "7028acdd-e85a-4fa0-88a5-71f4103333a0";
    const long = hit({
      sessionId: uuid,
      turnUuid: "4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978",
      text: "word ".repeat(400),
    });
    const out = formatRecallHuman(result(Array.from({ length: 8 }, () => long)), {
      ...opts,
      width: 80,
      rows: 24,
      taken: 2,
    });
    // Every row counted as the terminal wraps it, one row left for the prompt.
    expect(terminalRows(out, 80)).toBeLessThanOrEqual(24 - 1 - 2);
    for (const line of out.split("\n")) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    const blocks = out.split("\n\n");
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const b of blocks.slice(0, 3)) expect(b.split("\n")[1]).toMatch(/^word word/);
    expect(out).toContain("  → funes get 7028acdd 4f1c2e9a  (+");
  });

  it("plans the top hits' text before many headers, and gives spare rows back in turn", () => {
    const many = Array.from({ length: 8 }, () => ({ lines: 50, getRows: 1 }));
    // 23 rows: 8 + 6 + 6 (header, lines, get; a blank between) + the line for the hits left out.
    expect(planCompact(many, 23)).toEqual({ shown: 3, lines: [7, 4, 3] });
    // 14 rows (120x15): fewer lines each so that three hits show.
    expect(planCompact(many, 14).shown).toBe(3);
    // Short passages leave room for more hits.
    expect(
      planCompact(
        Array.from({ length: 8 }, () => ({ lines: 1, getRows: 1 })),
        23,
      ).shown,
    ).toBe(5);
    // Too short a screen for anything but the first hit's header and get line.
    expect(planCompact(many, 3)).toEqual({ shown: 1, lines: [0] });
  });

  it("a piece split from the middle of a block starts at a word", () => {
    expect(passageText({ text: "wnloads/win> and then the rest", splitIdx: 2 })).toBe("…and then the rest");
    expect(passageText({ text: "wnloads/win> and", splitIdx: 0 })).toBe("wnloads/win> and");
    expect(passageText({ text: "oneword", splitIdx: 1 })).toBe("oneword");
  });

  it("at 80 columns a long workdir gives way, never the session or the block type", () => {
    const deep = hit({
      workdir: "-home-someone-src-github.com-acme-a-very-long-project-name",
      blockType: "tool_result",
    });
    const head = formatRecallHuman(result([deep]), { ...opts, width: 80 }).split("\n")[0] ?? "";
    expect(Array.from(head).length).toBeLessThanOrEqual(80);
    expect(head).toMatch(
      /^1\. 2026-11-02 10:00 · pi · …[\w.-]+-project-name\/7028acdd · tool_result {2}score 0\.50$/,
    );
  });

  it("shows a stored colour code or clipboard write as control pictures, not as text the transcript typed", () => {
    const coloured = hit({ text: "\u001b[33mwarning\u001b[39m: \u001b]52;c;eA==\u0007 done" });
    const out = formatRecallHuman(terminalSafeRecall(result([coloured]), "people"), opts);
    expect(out).toContain("␛[33mwarning␛[39m: ␛]52;c;eA==␇ done");
    expect(out).not.toContain("\\x1b");
  });

  it("keeps notes out, names another memory, caps long passages, and ends 'no results' with a newline", () => {
    const long = hit({
      text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"),
      memory: "hf://datasets/a/b",
    });
    const out = formatRecallHuman(result([long]), opts);
    expect(out).not.toContain("note:");
    expect(out).toContain("line 5 …\n  → funes get");
    expect(formatRecallHuman(result([{ ...long, memory: "" }]), { ...opts, width: 100 })).toContain(
      "a-1  (+14 lines, 2 around it)\n",
    );
    expect(out).toContain("--memory hf://datasets/a/b\n");
    expect(formatRecallHuman(result([]), opts)).toBe("no results\n");
  });

  it("colours only when asked to, and fits the width", () => {
    const wide = hit({ workdir: "-x".repeat(80) });
    const plain = formatRecallHuman(result([wide]), opts);
    for (const line of plain.split("\n")) expect(Array.from(line).length).toBeLessThanOrEqual(60);
    expect(plain).not.toContain("\x1b[");
    expect(formatRecallHuman(result([wide]), { ...opts, color: true })).toContain("\x1b[1m");
  });
});
