/**
 * What the agents layer does with GitHub Copilot CLI (agent.ts): its install and removal (setup.ts), its
 * wiring check, its hook log and its one-shot run: `copilot -p` with no tools (`--available-tools none`),
 * its built-in and the user's MCP servers off, a session id of funes's whose folder is deleted after
 * (Copilot keeps every session), its `--output-format json` events read as they come.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule } from "../agent.js";
import { SYNC_LOG } from "../hook-scripts.js";
import { jsonFileWiring } from "../wiring-check.js";
import {
  copilotHome,
  copilotMcpServers,
  copilotScriptsDir,
  copilotWiring,
  installCopilot,
  removeCopilot,
} from "./setup.js";

export const copilotAgent: AgentModule = {
  install: installCopilot,
  remove: removeCopilot,
  inspect: (o) =>
    jsonFileWiring(
      copilotWiring(o),
      { agent: "Copilot", config: "mcp-config.json", hook: "hooks/funes.json" },
      o.env.PATH,
    ),
  hookLog: (o) => join(copilotScriptsDir(o.home), SYNC_LOG),
  ask: {
    prepare: async ({ prompt, home, env }) => {
      const session = randomUUID();
      return {
        args: [
          "-p",
          prompt,
          "--output-format",
          "json",
          "--available-tools",
          "none",
          "--disable-builtin-mcps",
          ...copilotMcpServers({ home, env }).flatMap((name) => ["--disable-mcp-server", name]),
          "--session-id",
          session,
        ],
        cleanup: () => {
          const state = join(copilotHome({ home, env }), "session-state");
          rmSync(join(state, session), { recursive: true, force: true });
          rmSync(join(state, ".session-operation-locks", `${session}.lock`), { force: true });
        },
      };
    },
    parse: (e) => {
      const data = e.data as Record<string, unknown> | undefined;
      if (e.type === "assistant.message_delta" && typeof data?.deltaContent === "string")
        return { kind: "text", text: data.deltaContent };
      if (e.type === "assistant.message" && typeof data?.content === "string" && data.content !== "")
        return { kind: "answer", text: data.content };
      if (e.type === "assistant.turn_start") return { kind: "status", text: "thinking…" };
      return { kind: "none" };
    },
  },
};
