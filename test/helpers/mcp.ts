/**
 * The built CLI's MCP server (`funes mcp …`) driven by a real MCP client over stdio, for end-to-end tests.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, type CliEnv } from "./cli.js";

/** A connected client: `call` returns a tool's first text part. */
export interface McpSession {
  call(name: string, args: Record<string, unknown>): Promise<string>;
  /** The tool's result: its first text part and whether it is an error. */
  result(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** The server's tool list, as the SDK returns it. */
  tools(): ReturnType<Client["listTools"]>;
  /** Closes the client; the server exits when its input ends. */
  close(): Promise<void>;
}

/** Starts `funes mcp <args>` in the homes of `env` (models in-process, one thread) and connects to it. */
export async function connectMcp(args: string[], env: CliEnv): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", ...args],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: env.home,
      FUNES_HOME: env.funesHome,
      FUNES_THREADS: "1",
      FUNES_SERVER: "0",
      ...env.extra,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "funes-test", version: "0" });
  await client.connect(transport);
  return {
    async call(name, args) {
      const res = (await client.callTool({ name, arguments: args })) as { content: { text: string }[] };
      return res.content[0]?.text ?? "";
    },
    async result(name, args) {
      const res = (await client.callTool({ name, arguments: args })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      return { text: res.content[0]?.text ?? "", isError: res.isError === true };
    },
    tools: () => client.listTools(),
    close: () => client.close(),
  };
}
