/**
 * What the agents layer does with OpenCode (agent.ts): its install and removal (setup.ts), its wiring
 * check, its hook log and its one-shot run: `opencode run` with every tool off and each of the user's MCP
 * servers disabled (a config given in `OPENCODE_CONFIG_CONTENT`), its database in memory
 * (`OPENCODE_DB=:memory:`, no session stored), its `--format json` events read as they come.
 */
import { join } from "node:path";
import type { AgentModule } from "../agent.js";
import { SYNC_LOG } from "../hook-scripts.js";
import { jsonFileWiring } from "../wiring-check.js";
import {
  installOpenCode,
  openCodeMcpServers,
  openCodeScriptsDir,
  openCodeWiring,
  removeOpenCode,
} from "./setup.js";

export const openCodeAgent: AgentModule = {
  install: installOpenCode,
  remove: removeOpenCode,
  inspect: (o) =>
    jsonFileWiring(
      openCodeWiring(o),
      { agent: "OpenCode", config: "opencode.json", hook: "plugins/funes.js" },
      o.env.PATH,
    ),
  hookLog: (o) => join(openCodeScriptsDir(o.home), SYNC_LOG),
  ask: {
    prepare: async ({ prompt, home, env }) => {
      const mcp = Object.fromEntries(
        openCodeMcpServers({ home, env }).map((name) => [name, { enabled: false }]),
      );
      return {
        args: ["run", "--format", "json", prompt],
        env: {
          OPENCODE_DB: ":memory:",
          OPENCODE_CONFIG_CONTENT: JSON.stringify({ tools: { "*": false }, mcp }),
        },
      };
    },
    parse: (e) => {
      const part = e.part as Record<string, unknown> | undefined;
      if (e.type === "text" && typeof part?.text === "string") return { kind: "text", text: part.text };
      if (e.type === "step_start") return { kind: "status", text: "thinking…" };
      return { kind: "none" };
    },
  },
};
