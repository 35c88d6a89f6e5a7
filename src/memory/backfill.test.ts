import { describe, expect, it } from "vitest";
import { backfillOrder } from "./backfill.js";

describe("backfillOrder", () => {
  it("puts the newest session first, and text before tool_use before tool_result within it", () => {
    const rows = [
      { id: "old-text", sessionId: "old", ts: "2026-01-01T00:00:00Z", blockType: "text" },
      { id: "new-result", sessionId: "new", ts: "2026-06-01T00:00:02Z", blockType: "tool_result" },
      { id: "new-use", sessionId: "new", ts: "2026-06-01T00:00:01Z", blockType: "tool_use" },
      { id: "new-think", sessionId: "new", ts: "2026-06-01T00:00:00Z", blockType: "thinking" },
      { id: "new-text", sessionId: "new", ts: "2026-06-01T00:00:03Z", blockType: "text" },
    ];
    expect(backfillOrder(rows).map((r) => r.id)).toEqual([
      "new-think",
      "new-text",
      "new-use",
      "new-result",
      "old-text",
    ]);
  });
});
