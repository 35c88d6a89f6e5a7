import { beforeAll, describe, expect, it } from "vitest";
import type { AskEvent } from "./agent.js";
import { askSpec, parseAskLine as parseWith } from "./ask-run.js";
import type { AskAgent } from "./registry.js";

/** Each agent's parser, as `funes ask` loads it from the agent's folder. */
const parsers = new Map<AskAgent, (e: Record<string, unknown>) => AskEvent>();
const parseAskLine = (agent: AskAgent, line: string) => {
  const parse = parsers.get(agent);
  if (parse === undefined) throw new Error(`no parser loaded for ${agent}`);
  return parseWith(parse, line);
};
beforeAll(async () => {
  for (const agent of ["claude", "codex"] as const) parsers.set(agent, (await askSpec(agent)).parse);
});

// Lines as claude 2.1.197 and codex 0.171 print them (trimmed to the fields read).
describe("an agent's event stream", () => {
  it("reads claude's logged-out message as a failure, not as the answer", () => {
    const made = JSON.stringify({
      type: "assistant",
      message: {
        model: "<synthetic>",
        content: [{ type: "text", text: "Not logged in · Please run /login" }],
      },
      error: "authentication_failed",
    });
    expect(parseAskLine("claude", made)).toEqual({
      kind: "failed",
      text: "Not logged in · Please run /login",
    });
    const result = JSON.stringify({
      type: "result",
      is_error: true,
      result: "Not logged in · Please run /login",
    });
    expect(parseAskLine("claude", result).kind).toBe("failed");
    expect(parseAskLine("claude", JSON.stringify({ type: "result", is_error: false, result: "ok" }))).toEqual(
      {
        kind: "answer",
        text: "ok",
      },
    );
  });

  it("tells a failed connection from an HTTP error in claude's retries", () => {
    const retry = (status: number | null) =>
      JSON.stringify({
        type: "system",
        subtype: "api_retry",
        attempt: 2,
        max_retries: 10,
        error_status: status,
      });
    expect(parseAskLine("claude", retry(null))).toEqual({
      kind: "retry",
      text: "connection failed, retry 2 of 10",
      network: true,
    });
    expect(parseAskLine("claude", retry(529))).toEqual({
      kind: "retry",
      text: "HTTP 529, retry 2 of 10",
      network: false,
    });
  });

  it("reads codex's reconnects, its errors and a failed turn", () => {
    const error = (message: string) => JSON.stringify({ type: "error", message });
    expect(
      parseAskLine("codex", error("Reconnecting... 2/5 (stream disconnected before completion: no route)")),
    ).toEqual({
      kind: "retry",
      text: "stream disconnected before completion: no route, retry 2/5",
      network: true,
    });
    expect(
      parseAskLine(
        "codex",
        error("Reconnecting... waiting for network (Connection failed: error sending request)"),
      ),
    ).toEqual({
      kind: "retry",
      text: "Connection failed: error sending request, waiting for network",
      network: true,
    });
    expect(parseAskLine("codex", error("Missing environment variable: `FAKE_KEY`."))).toEqual({
      kind: "failed",
      text: "Missing environment variable: `FAKE_KEY`.",
    });
    const failed = JSON.stringify({ type: "turn.failed", error: { message: "unexpected status 401" } });
    expect(parseAskLine("codex", failed)).toEqual({ kind: "failed", text: "unexpected status 401" });
    // A warning item (model metadata, a transport fallback) is neither.
    const warning = JSON.stringify({
      type: "item.completed",
      item: { type: "error", message: "Falling back" },
    });
    expect(parseAskLine("codex", warning)).toEqual({ kind: "none" });
    expect(parseAskLine("codex", "not json")).toEqual({ kind: "none" });
    expect(parseAskLine("codex", "null")).toEqual({ kind: "none" });
  });
});
