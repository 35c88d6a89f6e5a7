/**
 * What the agents layer does with Gemini CLI (agent.ts): its install and removal (setup.ts), its wiring
 * check, its hook log, its one-shot run (ask.ts), and what `funes add` says about its tokens.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { SYNC_LOG } from "../hook-scripts.js";
import { settingsWiring } from "../wiring-check.js";
import { geminiAsk } from "./ask.js";
import { geminiDir, installGemini, removeGemini } from "./setup.js";

/** settings.json's MCP entry and the hook scripts, and funes's policy file. */
function inspect(o: Where): Wiring {
  const dir = geminiDir(o);
  return settingsWiring("Gemini CLI", dir, o.env.PATH, (problems) => {
    if (!existsSync(join(dir, "policies", "funes.toml")))
      problems.push(
        "funes's policy file is missing, so Gemini CLI asks before each funes tool (and headless runs can't use them)",
      );
  });
}

export const geminiAgent: AgentModule = {
  install: installGemini,
  remove: removeGemini,
  inspect,
  hookLog: (o) => join(geminiDir(o), "hooks", SYNC_LOG),
  ask: geminiAsk,
  installNotes: ({ memory, env }) =>
    memory !== null && (env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN) !== undefined
      ? [
          "Gemini CLI withholds variables named like *TOKEN* from MCP servers, so its recall of a private memory reads the token `hf auth login` saved, not HF_TOKEN (the hooks see HF_TOKEN)",
        ]
      : [],
};
