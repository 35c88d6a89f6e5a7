import { describe, expect, it } from "vitest";
import type { IndexSummary } from "../commands/index.js";
import { etaText, formatIndexSummary, indexReporter } from "./render-index.js";

function summary(skipped: Record<string, number>): IndexSummary {
  return {
    memory: "/m",
    unitsRead: 8,
    unitsUnchanged: 2,
    sessions: 6,
    sessionsByHarness: { claude_code: 4, codex: 2 },
    turns: 120,
    chunksAdded: 300,
    chunksPresent: 0,
    chunksRepeated: 9,
    boilerplateRemoved: 0,
    bytesRead: 1_000_000,
    skipped,
    failed: [],
    redacted: {},
    notes: [],
    vectors: { model: null, embedded: 0, remaining: 300, seconds: 0 },
  };
}

const MANY = {
  'record type "progress"': 1509,
  'record type "file-history-snapshot"': 724,
  'record type "queue-operation"': 680,
  'record type "attachment"': 428,
  'record type "last-prompt"': 255,
  "agent-injected text left out: codex developer instructions": 14,
  "agent-injected text left out: codex <environment_context>": 7,
};

describe("the index summary", () => {
  it("reads in one glance: sessions by agent, the three biggest skip reasons, then how many more", () => {
    const text = formatIndexSummary(summary(MANY));
    expect(text).toBe(
      [
        "indexed sessions=6 skipped=2 chunks=300",
        "  memory: /m",
        "  sessions: 6 (claude_code 4, codex 2), turns: 120, unchanged (not read): 2",
        "  chunks added: 300, repeated within transcripts (stored once): 9",
        "  agent boilerplate left out: 21 block(s) (codex developer instructions: 14, codex <environment_context>: 7)",
        '  records passed over: 3596 (record type "progress": 1509, record type "file-history-snapshot": 724, record type "queue-operation": 680; 2 more (--verbose))',
        "  vectors: 300 rows waiting (keyword search finds them meanwhile)",
        "",
      ].join("\n"),
    );
    expect(text.split("\n").every((l) => l.length < 200)).toBe(true);
  });

  it("--verbose lists every reason", () => {
    const text = formatIndexSummary(summary(MANY), true);
    expect(text).toContain('record type "last-prompt": 255');
    expect(text).not.toContain("more (--verbose)");
  });

  it("says whether the vector index was trained, retrained or given the newest rows", () => {
    let out = "";
    const write = (s: string): boolean => {
      out += s;
      return true;
    };
    const err = { write } as unknown as NodeJS.WriteStream;
    const r = indexReporter(err, false);
    r.onEvent({ kind: "vector-index", action: "built", seconds: 12.34 });
    r.onEvent({ kind: "vector-index", action: "folded", seconds: 1.5 });
    r.onEvent({ kind: "vector-index", action: "rebuilt", seconds: 80 });
    r.end();
    const lines = out.trim().split("\n");
    expect(lines[0]).toMatch(/^built the vector index \(12\.3 s; later rows are added to it/);
    expect(lines[1]).toBe("added the newest rows to the vector index (1.5 s)");
    expect(lines[2]).toMatch(/^rebuilt the vector index \(80\.0 s;/);
  });

  it("estimates time left from the bytes done so far", () => {
    expect(etaText(10_000, 25, 100)).toBe(" · ~30s left");
    expect(etaText(60_000, 10, 100)).toBe(" · ~9 min left");
    // Nothing to go by yet, or done.
    expect(etaText(500, 25, 100)).toBe("");
    expect(etaText(10_000, 100, 100)).toBe("");
  });
});
