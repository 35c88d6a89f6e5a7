/**
 * The agents layer, loaded when a command wires or inspects an agent. Every command is reached through
 * this layer's index, and the agents' modules (Hermes's YAML parser alone ≈ 45 ms of CPU) are no part of a
 * recall or an MCP tool call.
 */
export const agentsLayer = () => import("../agents/index.js");
