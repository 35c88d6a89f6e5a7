import { describe, expect, it } from "vitest";
import type { RecallHit, RecallResult } from "../commands/index.js";
import { terminalSafeRecall } from "../format/index.js";
import { compactLines, formatRecallHuman } from "./render-recall.js";

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
        "  → funes get 2026-01-05T10-20-30-123Z_7028acdd-e85a a-1  (2 around it)\n",
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

  it("fits a screen: eight long hits on 40 rows take at most 39 lines", () => {
    const long = hit({ text: "word ".repeat(400) });
    const out = formatRecallHuman(result(Array.from({ length: 8 }, () => long)), {
      ...opts,
      width: 100,
      rows: 40,
    });
    expect(out.split("\n").length - 1).toBeLessThanOrEqual(39);
    expect(out).toMatch(/→ funes get \S+ a-1 {2}\(\+\d+ lines, 2 around it\)/);
    expect(compactLines(8, 40)).toBe(2);
    expect(compactLines(1, 40)).toBe(12);
    expect(compactLines(8, 24)).toBe(0);
    expect(compactLines(50, 24)).toBe(0);
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
    expect(out).toContain("line 5\n  → funes get");
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
