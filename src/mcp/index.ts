/**
 * mcp: the MCP server. Tool schemas to commands, agent-format strings out. Knows the MCP SDK and the
 * commands layer; decides nothing about ranking, storage or models.
 */
export { createMcpServer, type McpContext } from "./server.js";
