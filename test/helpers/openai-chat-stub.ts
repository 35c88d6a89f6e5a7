/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`, streamed or not) for the model stub: what Qwen Code,
 * OpenCode (through the AI SDK's openai-compatible provider) and Copilot CLI in its bring-your-own-key mode
 * speak.
 */
import type { ServerResponse } from "node:http";
import type { StubToolCall } from "./model-stubs.js";

/** Whether the request offers the function `name`, and whether a tool result follows the last user message. */
function chatState(body: Record<string, unknown>, name: string | undefined) {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
  const lastUser = messages.map((m) => m.role).lastIndexOf("user");
  return {
    offered: name !== undefined && JSON.stringify(body.tools ?? []).includes(`"name":"${name}"`),
    answered: messages.slice(lastUser + 1).some((m) => m.role === "tool"),
  };
}

/**
 * Answers with `text`, or, when `call` is offered and not yet answered in this turn, with that tool call
 * (its arguments as a JSON string, as the API sends them).
 */
export function openaiChat(
  res: ServerResponse,
  body: Record<string, unknown>,
  text: string,
  call?: StubToolCall,
): void {
  const { offered, answered } = chatState(body, call?.name);
  const toolCalls =
    call !== undefined && offered && !answered
      ? [
          {
            index: 0,
            id: `call_${Math.random().toString(36).slice(2, 10)}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          },
        ]
      : null;
  const finish = toolCalls === null ? "stop" : "tool_calls";
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const base = { id: "chatcmpl-stub", created: 1_700_000_000, model: String(body.model ?? "gpt-stub") };
  if (body.stream !== true) {
    const message =
      toolCalls === null
        ? { role: "assistant", content: text }
        : { role: "assistant", content: null, tool_calls: toolCalls };
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  const delta =
    toolCalls === null ? { role: "assistant", content: text } : { role: "assistant", tool_calls: toolCalls };
  const chunks = [
    { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }] },
    {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: {}, finish_reason: finish }],
      usage,
    },
  ];
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.end("data: [DONE]\n\n");
}
