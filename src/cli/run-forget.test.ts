import { describe, expect, it } from "vitest";
import type { ForgetProposal } from "../commands/index.js";
import { previewLines } from "./run-forget.js";
import { terminalRows } from "./terminal-text.js";

const session = (i: number) => ({
  sessionId: `019ef2fb-6574-7f83-bd99-9118713271f${i}`,
  chunks: 3,
  turns: 2,
  first: "2026-06-23T05:37:17.902Z",
  last: "2026-06-23T05:40:01.000Z",
  samples: [
    `assistant: **Inspecting […] state** I need to check the current status of my workspace. It's important to do this ${i}`,
    'assistant: … {"cmd":"npm --version","workdir":"/[…]","yield_time_ms":10000,"max_output_tokens":12000}',
    "user: why does the fts build hang on two cores unless LANCE_CPU_THREADS is set to 2 or more?",
  ],
});

const proposal: ForgetProposal = {
  memory: "hf://datasets/acme/team-memory",
  preview: {
    chunks: 12,
    copies: 2,
    sessions: [session(1), session(2), session(3), session(4)],
    mentions: { chunks: 0, taken: false, sessions: [] },
  },
  hub: { adds: 3, deletes: 1, bytes: 40960, rewritten: 0, purgeHistory: false },
  released: 0,
};

describe("forget's preview", () => {
  it("at 80 columns takes a row per line: samples cut to one row, other lines wrapped at spaces", () => {
    const lines = previewLines(proposal, 80);
    for (const l of lines) expect(Array.from(l).length).toBeLessThanOrEqual(80);
    expect(terminalRows(`${lines.join("\n")}\n`, 80)).toBe(lines.length);
    // Each sample is one row, ending in … where it was cut.
    expect(lines.filter((l) => l.startsWith("    assistant: **Inspecting"))).toHaveLength(4);
    expect(lines.find((l) => l.startsWith("    assistant: **Inspecting"))).toMatch(/…$/);
    // Off a terminal, the lines as they are.
    expect(previewLines(proposal).some((l) => Array.from(l).length > 80)).toBe(true);
  });
});

describe("forget's preview of mentions (issue 42)", () => {
  const mentions = (taken: boolean): ForgetProposal => ({
    ...proposal,
    preview: { ...proposal.preview, mentions: { chunks: 3, taken, sessions: [session(5)] } },
  });

  it("lists them apart, and says the flag that takes them", () => {
    const lines = previewLines(mentions(false));
    expect(lines[0]).not.toContain("mentions");
    const at = lines.findIndex((l) => l.startsWith("  mentions: 3 chunk(s) in 1 session(s)"));
    expect(lines[at]).toContain("they stay — add --with-mentions to take them too");
    expect(lines[at + 1]).toBe(
      `    session ${session(5).sessionId}: 3 chunk(s), 2 turn(s), 2026-06-23T05:37 → 2026-06-23T05:40`,
    );
  });

  it("taken, they are counted in the first line and said to be taken", () => {
    const lines = previewLines(mentions(true));
    expect(lines[0]).toContain(
      ", 2 of them copies (earlier recalls that quoted the rest, read back), 3 mentions",
    );
    expect(lines.some((l) => l.endsWith("taken too (--with-mentions)"))).toBe(true);
  });
});
