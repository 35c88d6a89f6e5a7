/**
 * What the agents layer does with Qwen Code (agent.ts): its install and removal (setup.ts), its wiring
 * check, its hook log and its one-shot run: `qwen` in safe and plan mode (read-only tools; Qwen has no switch
 * for none), no chat recorded, its stream-json events (Claude Code's) read as they come.
 */
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { SYNC_LOG } from "../hook-scripts.js";
import { parseStreamJson } from "../stream-json.js";
import { readJson, settingsWiring } from "../wiring-check.js";
import { installQwen, qwenDir, removeQwen } from "./setup.js";

/** settings.json's MCP entry and the hook scripts, and funes's tools in `tools.visible`. */
function inspect(o: Where): Wiring {
  const dir = qwenDir(o);
  return settingsWiring("Qwen Code", dir, o.env.PATH, (problems) => {
    const visible = (readJson(join(dir, "settings.json"))?.tools as { visible?: unknown } | undefined)
      ?.visible;
    if (!Array.isArray(visible) || !visible.includes("mcp__funes__recall"))
      problems.push("funes's tools are not in tools.visible, so Qwen Code hides them behind tool_search");
  });
}

export const qwenAgent: AgentModule = {
  install: installQwen,
  remove: removeQwen,
  inspect,
  hookLog: (o) => join(qwenDir(o), "hooks", SYNC_LOG),
  ask: {
    prepare: async ({ prompt }) => ({
      args: ["--safe-mode", "--chat-recording=false", "--approval-mode", "plan", "-o", "stream-json", prompt],
    }),
    parse: parseStreamJson,
  },
};
