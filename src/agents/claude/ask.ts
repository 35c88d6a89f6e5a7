/**
 * `funes ask claude`: `claude -p` with no tools (`--tools ""`), no MCP server, no session kept
 * (`--no-session-persistence`), its stream-json events read as they come.
 */
import type { AskSpec } from "../agent.js";
import { parseStreamJson } from "../stream-json.js";

export const claudeAsk: AskSpec = {
  prepare: async ({ prompt }) => ({
    args: [
      "-p",
      prompt,
      "--tools",
      "",
      "--strict-mcp-config",
      "--mcp-config",
      '{"mcpServers":{}}',
      "--output-format",
      "stream-json",
      "--verbose",
      "--no-session-persistence",
    ],
  }),
  parse: parseStreamJson,
};
