/**
 * Loopback stand-ins for the model APIs the agent CLIs call, so real `claude`, `codex`, `gemini`, `qwen`,
 * `opencode` and `copilot` binaries can complete a turn offline: Anthropic Messages (`POST /v1/messages`,
 * streamed or not), OpenAI Responses (`POST /v1/responses`, streamed), Gemini
 * (`POST /v1beta/models/<m>:streamGenerateContent`, SSE) and OpenAI Chat Completions
 * (`POST /v1/chat/completions`, streamed or not: openai-chat-stub.ts). Every request body is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { openaiChat } from "./openai-chat-stub.js";

/** A tool call the Responses stub makes before it answers (Codex's MCP tools live in a `mcp__<server>` namespace). */
export interface StubToolCall {
  namespace?: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A running stub. */
export interface ModelStub {
  url: string;
  /** Request paths and parsed bodies, in order. */
  requests: { path: string; body: Record<string, unknown> }[];
  /** The answer every request gets. */
  answer: string;
  close(): Promise<void>;
}

function sse(res: ServerResponse, events: { type: string }[]): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** An Anthropic Messages reply before its content: what both a text answer and a tool call start from. */
function anthropicMessage(body: Record<string, unknown>, id: string) {
  return {
    id,
    type: "message",
    role: "assistant",
    model: String(body.model ?? "claude-stub"),
    content: [] as unknown[],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 0 },
  };
}

function anthropicToolUse(res: ServerResponse, body: Record<string, unknown>, call: StubToolCall): void {
  const message = anthropicMessage(body, "msg_stub_tool");
  const block = { type: "tool_use", id: "toolu_stub", name: call.name, input: call.arguments };
  if (body.stream !== true) {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ...message, content: [block], stop_reason: "tool_use" }));
    return;
  }
  sse(res, [
    { type: "message_start", message } as { type: string },
    { type: "content_block_start", index: 0, content_block: { ...block, input: {} } } as { type: string },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(call.arguments) },
    } as { type: string },
    { type: "content_block_stop", index: 0 } as { type: string },
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 5 },
    } as { type: string },
    { type: "message_stop" },
  ]);
}

/** Whether an Anthropic Messages request already carries a tool result. */
function hasToolResult(body: Record<string, unknown>): boolean {
  return JSON.stringify(body.messages ?? []).includes('"type":"tool_result"');
}

function anthropic(
  res: ServerResponse,
  body: Record<string, unknown>,
  text: string,
  call?: StubToolCall,
): void {
  // Only the agent's own turn (the request that offers the tool) is asked to call it.
  const offered = JSON.stringify(body.tools ?? []).includes(`"${call?.name}"`);
  if (call !== undefined && offered && !hasToolResult(body)) {
    anthropicToolUse(res, body, call);
    return;
  }
  const message = anthropicMessage(body, "msg_stub");
  if (body.stream !== true) {
    const full = { ...message, content: [{ type: "text", text }], stop_reason: "end_turn" };
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(full));
    return;
  }
  sse(res, [
    { type: "message_start", message } as { type: string },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } as { type: string },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } as { type: string },
    { type: "content_block_stop", index: 0 } as { type: string },
    {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    } as { type: string },
    { type: "message_stop" },
  ]);
}

/** The text of the last `function_call_output` in a Responses request, or null when there is none. */
function lastToolOutput(body: Record<string, unknown>): string | null {
  const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
  const outputs = input.filter((i) => i.type === "function_call_output");
  const last = outputs.at(-1);
  return last === undefined ? null : JSON.stringify(last.output ?? "");
}

function responses(
  res: ServerResponse,
  body: Record<string, unknown>,
  text: string,
  call?: StubToolCall,
): void {
  const output = lastToolOutput(body);
  // Codex 0.171 sometimes routes a call that comes back before its MCP tools are registered to "unsupported
  // call"; asking again (as a model would) keeps the turn deterministic.
  const ask = call !== undefined && (output === null || output.includes("unsupported call"));
  const item = ask
    ? {
        type: "function_call",
        id: "fc_stub",
        call_id: `call_${Math.random().toString(36).slice(2)}`,
        name: call.name,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
        arguments: JSON.stringify(call.arguments),
      }
    : { type: "message", role: "assistant", id: "msg_stub", content: [{ type: "output_text", text }] };
  sse(res, [
    { type: "response.created", response: { id: "resp_stub" } } as { type: string },
    { type: "response.output_item.done", item } as { type: string },
    {
      type: "response.completed",
      response: {
        id: "resp_stub",
        usage: {
          input_tokens: 10,
          input_tokens_details: null,
          output_tokens: 5,
          output_tokens_details: null,
          total_tokens: 15,
        },
      },
    } as { type: string },
  ]);
}

/** Whether a Gemini request offers the function `name` and whether it already carries a function response. */
function geminiState(
  body: Record<string, unknown>,
  name: string | undefined,
): { offered: boolean; answered: boolean } {
  return {
    offered: name !== undefined && JSON.stringify(body.tools ?? []).includes(`"name":"${name}"`),
    answered: JSON.stringify(body.contents ?? []).includes('"functionResponse"'),
  };
}

/** Gemini `streamGenerateContent?alt=sse`: one chunk with a thought and the whole answer (or the function call). */
function gemini(res: ServerResponse, body: Record<string, unknown>, text: string, call?: StubToolCall): void {
  const { offered, answered } = geminiState(body, call?.name);
  // A thought first, as a thinking model sends it (the CLI records it as the message's `thoughts`).
  const thought = { text: "**Answering** The stub answers at once.", thought: true };
  const part =
    call !== undefined && offered && !answered
      ? { functionCall: { name: call.name, args: call.arguments } }
      : { text };
  const chunk = {
    candidates: [{ content: { role: "model", parts: [thought, part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-stub",
  };
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
}

/**
 * Starts the stub on 127.0.0.1. With `call`, the Responses API first asks for that tool call and answers only
 * once the request carries its output.
 */
export async function startModelStub(answer = "The stub's answer.", call?: StubToolCall): Promise<ModelStub> {
  const state: ModelStub = { url: "", requests: [], answer, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        body = {};
      }
      state.requests.push({ path, body });
      if (req.method === "POST" && path.endsWith("/messages"))
        return anthropic(res, body, state.answer, call);
      if (req.method === "POST" && path.endsWith("/responses"))
        return responses(res, body, state.answer, call);
      if (req.method === "POST" && path.endsWith(":streamGenerateContent"))
        return gemini(res, body, state.answer, call);
      if (req.method === "POST" && path.endsWith("/chat/completions"))
        return openaiChat(res, body, state.answer, call);
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end('{"error":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** `-c` overrides that point `codex` at the stub (key from the FAKE_KEY variable). */
export function codexStubArgs(stubUrl: string): string[] {
  return [
    "-c",
    'model_provider="fake"',
    "-c",
    `model_providers.fake={name="fake",base_url="${stubUrl}/v1",env_key="FAKE_KEY",wire_api="responses",supports_websockets=false}`,
    "-c",
    'model="gpt-fake"',
  ];
}
