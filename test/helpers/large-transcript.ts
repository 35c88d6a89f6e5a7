/**
 * A generated Claude Code transcript of a chosen size, shaped like a long real session: prompts, thinking,
 * prose answers, Bash calls and their (sometimes very large) outputs, as streamed one block per line.
 * Deterministic (a seeded generator over plain words), so runs compare and no secret rule fires on it.
 */
import { closeSync, openSync, writeSync } from "node:fs";

const WORDS = (
  "the index reads each transcript once and stores its chunks so recall finds them later lance table " +
  "fragment vector keyword search session turn block tool output error retry build test commit branch " +
  "parser record line file folder memory dataset publish token cache model rerank recency window agent " +
  "claude codex hermes pi config hook worker progress summary skipped reason bytes estimate"
).split(" ");

function words(next: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(next() * WORDS.length)] ?? "the");
  return out.join(" ");
}

/** What was written. */
export interface LargeTranscript {
  bytes: number;
  lines: number;
  /** Exchanges of prompt, thinking, answer, tool call and tool output. */
  exchanges: number;
}

/** Writes at least `targetBytes` of transcript to `path`. */
export function writeLargeClaudeTranscript(path: string, targetBytes: number): LargeTranscript {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const fd = openSync(path, "w");
  let bytes = 0;
  let lines = 0;
  let exchanges = 0;
  let parent: string | null = null;
  const put = (type: "user" | "assistant", content: unknown) => {
    const uuid = `00000000-0000-4000-8000-${String(lines).padStart(12, "0")}`;
    const line = `${JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      type,
      message: { role: type, content },
      uuid,
      timestamp: new Date(Date.UTC(2026, 0, 1) + lines * 1000).toISOString(),
      cwd: "/home/dev/app",
      sessionId: "large-session",
      version: "2.1.111",
    })}\n`;
    bytes += writeSync(fd, line);
    lines++;
    parent = uuid;
  };
  try {
    while (bytes < targetBytes) {
      const id = `toolu_${String(exchanges).padStart(8, "0")}`;
      put("user", words(next, 40));
      put("assistant", [{ type: "thinking", thinking: words(next, 120), signature: "sig" }]);
      put("assistant", [{ type: "text", text: words(next, 250) }]);
      put("assistant", [
        { type: "tool_use", id, name: "Bash", input: { command: `grep -rn ${words(next, 2)} src` } },
      ]);
      // Most outputs are a few KB; every tenth is the size Claude Code would otherwise externalise.
      const output = Array.from(
        { length: exchanges % 10 === 0 ? 600 : 40 },
        (_, i) => `src/f${i}.ts:${i}: ${words(next, 12)}`,
      );
      put("user", [{ type: "tool_result", tool_use_id: id, content: output.join("\n") }]);
      exchanges++;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, lines, exchanges };
}

/**
 * Writes at least `targetBytes` of Codex rollout (the envelope generation) to `path`: the same exchanges as
 * {@link writeLargeClaudeTranscript}, as response items (and the `event_msg` copies Codex writes beside
 * them), so the two formats' index runs compare.
 */
export function writeLargeCodexRollout(path: string, targetBytes: number): LargeTranscript {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const fd = openSync(path, "w");
  let bytes = 0;
  let lines = 0;
  let exchanges = 0;
  const put = (type: string, payload: unknown) => {
    const timestamp = new Date(Date.UTC(2026, 0, 1) + lines * 1000).toISOString();
    bytes += writeSync(fd, `${JSON.stringify({ timestamp, type, payload })}\n`);
    lines++;
  };
  try {
    put("session_meta", { id: "large-rollout", cwd: "/home/dev/app", originator: "codex_cli_rs" });
    while (bytes < targetBytes) {
      const call = `call_${String(exchanges).padStart(8, "0")}`;
      const prompt = words(next, 40);
      put("response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: prompt }],
      });
      put("event_msg", { type: "user_message", message: prompt });
      put("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: words(next, 120) }],
      });
      put("response_item", {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: words(next, 250) }],
      });
      put("response_item", {
        type: "function_call",
        name: "shell",
        call_id: call,
        arguments: JSON.stringify({ command: ["bash", "-lc", `grep -rn ${words(next, 2)} src`] }),
      });
      const output = Array.from(
        { length: exchanges % 10 === 0 ? 600 : 40 },
        (_, i) => `src/f${i}.ts:${i}: ${words(next, 12)}`,
      );
      put("response_item", { type: "function_call_output", call_id: call, output: output.join("\n") });
      exchanges++;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, lines, exchanges };
}

/**
 * Writes at least `targetBytes` of Gemini CLI session log (docs/transcript-formats.md#gemini-cli) to `path`:
 * the same exchanges as {@link writeLargeClaudeTranscript}, each model message written twice as the CLI
 * writes it (first without its tool call, then again under the same id with the call and its result).
 */
export function writeLargeGeminiSession(path: string, targetBytes: number): LargeTranscript {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const fd = openSync(path, "w");
  let bytes = 0;
  let lines = 0;
  let exchanges = 0;
  const put = (record: unknown) => {
    bytes += writeSync(fd, `${JSON.stringify(record)}\n`);
    lines++;
  };
  const timestamp = () => new Date(Date.UTC(2026, 0, 1) + lines * 1000).toISOString();
  try {
    put({ sessionId: "large-session", projectHash: "abc123", startTime: timestamp() });
    while (bytes < targetBytes) {
      const n = String(exchanges).padStart(8, "0");
      put({ id: `u-${n}`, timestamp: timestamp(), type: "user", content: [{ text: words(next, 40) }] });
      const model = {
        id: `g-${n}`,
        timestamp: timestamp(),
        type: "gemini",
        content: words(next, 250),
        thoughts: [{ subject: "Planning", description: words(next, 120) }],
      };
      put(model);
      const output = Array.from(
        { length: exchanges % 10 === 0 ? 600 : 40 },
        (_, i) => `src/f${i}.ts:${i}: ${words(next, 12)}`,
      );
      const call = {
        id: `call-${n}`,
        name: "run_shell_command",
        args: { command: `grep -rn ${words(next, 2)} src` },
      };
      put({ ...model, toolCalls: [{ ...call, status: "success", result: output.join("\n") }] });
      exchanges++;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, lines, exchanges };
}
