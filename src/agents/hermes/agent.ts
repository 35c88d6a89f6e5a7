/**
 * What the agents layer does with Hermes (agent.ts): its install and removal (setup.ts, loaded only then:
 * its YAML library costs ~30 ms to import), its wiring check and its hook log. `funes ask` does not run it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { INDEX_SCRIPT, SYNC_LOG } from "../hook-scripts.js";
import { checkCommand, scriptCommand } from "../wiring-check.js";
import { hermesHome } from "./home.js";

/** The hook scripts, and whether Hermes's shell-hooks allowlist lets them run. */
function inspect({ home, env }: Where): Wiring {
  const problems: string[] = [];
  const script = join(hermesHome({ home, env }), "hooks", INDEX_SCRIPT);
  const installed = existsSync(script);
  if (installed) {
    checkCommand("the Hermes hooks", scriptCommand(script), env.PATH, problems);
    const allow = join(hermesHome({ home, env }), "shell-hooks-allowlist.json");
    if (!existsSync(allow) || !readFileSync(allow, "utf8").includes(INDEX_SCRIPT))
      problems.push("the funes hooks are not in Hermes's shell-hooks allowlist, so Hermes skips them");
  }
  return { installed, problems };
}

export const hermesAgent: AgentModule = {
  install: async (o) => (await import("./setup.js")).installHermes(o),
  remove: async (o) => (await import("./setup.js")).removeHermes(o),
  inspect,
  hookLog: (o) => join(hermesHome(o), "hooks", SYNC_LOG),
};
