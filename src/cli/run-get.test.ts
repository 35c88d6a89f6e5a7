import { describe, expect, it } from "vitest";
import { formatGetHuman } from "./run-get.js";

describe("formatGetHuman", () => {
  const turns = [
    {
      seq: 2,
      turnUuid: "q",
      ts: "2026-11-02T10:00:00Z",
      role: "user",
      center: false,
      blocks: [{ blockType: "text", text: "why does it hang?" }],
    },
    {
      seq: 3,
      turnUuid: "a",
      ts: "2026-11-02T10:00:05Z",
      role: "assistant",
      center: true,
      blocks: [
        { blockType: "text", text: "The fts build hangs on two cores unless LANCE_CPU_THREADS is set." },
        { blockType: "tool_use", text: '[tool_use Bash] {"command":\n"export LANCE_CPU_THREADS=2"}' },
      ],
    },
  ];

  it("marks the asked-for turn, folds tool blocks to one unescaped line, wraps prose and highlights", () => {
    const out = formatGetHuman(turns, { width: 40, color: false, highlight: "lance_cpu_threads  is" });
    expect(out).toBe(
      "  user · seq 2 · 2026-11-02T10:00:00Z\nwhy does it hang?\n\n" +
        "▶ assistant · seq 3 · 2026-11-02T10:00:05Z\n" +
        "The fts build hangs on two cores unless\n»LANCE_CPU_THREADS is« set.\n" +
        "  [tool_use Bash] command: export LANCE…\n\n",
    );
  });

  it("uses ANSI styles only when colour is on", () => {
    expect(formatGetHuman(turns, { width: 80, color: true })).toContain("\x1b[1m▶ assistant");
    expect(formatGetHuman(turns, { width: 80, color: false })).not.toContain("\x1b[");
  });
});
