import { describe, expect, it } from "vitest";
import type { RecallHit, RecallResult } from "../commands/index.js";
import { formatRecallHuman } from "./render-recall.js";

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
  it("prints one header per hit, the passage, one line per neighbour and the get command", () => {
    expect(formatRecallHuman(result([hit({})]), { ...opts, width: 80 })).toBe(
      "1. 2026-11-02 10:00 · pi · -home-dev-funes/7028acdd · text  score 0.50\n" +
        "The fts build hangs on two cores unless LANCE_CPU_THREADS is set.\n" +
        "  ~ user text: why does it hang?\n" +
        "  ~ assistant tool_use: [tool_use Bash] command: export A=1 run\n" +
        "  → funes get 2026-01-05T10-20-30-123Z_7028acdd-e85a a-1\n",
    );
  });

  it("keeps notes out, names another memory, caps long passages, and ends 'no results' with a newline", () => {
    const long = hit({
      text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"),
      memory: "hf://datasets/a/b",
    });
    const out = formatRecallHuman(result([long]), opts);
    expect(out).not.toContain("note:");
    expect(out).toContain("line 11\n… 8 more lines\n");
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
