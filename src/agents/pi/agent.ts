/**
 * What the agents layer does with pi (agent.ts): its install and removal (setup.ts), its wiring check and
 * its hook log. `funes ask` does not run it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentModule, Where, Wiring } from "../agent.js";
import { SYNC_LOG } from "../hook-scripts.js";
import { checkCommand } from "../wiring-check.js";
import { installPi, piExtensionDir, removePi } from "./setup.js";

/** The extension, and the funes command it names. */
function inspect({ home, env }: Where): Wiring {
  const problems: string[] = [];
  // index.js since the extension is the built module; index.ts as earlier releases wrote it.
  const ext = ["index.js", "index.ts"].map((n) => join(piExtensionDir(home), n)).find((p) => existsSync(p));
  const installed = ext !== undefined;
  if (installed) {
    const m = /^const FUNES(?:: string\[\])? = (\[.*\]);/m.exec(readFileSync(ext, "utf8"));
    checkCommand(
      "the pi extension",
      m === null ? null : (JSON.parse(m[1] ?? "[]") as string[]),
      env.PATH,
      problems,
    );
  }
  return { installed, problems };
}

export const piAgent: AgentModule = {
  install: installPi,
  remove: removePi,
  inspect,
  hookLog: (o) => join(piExtensionDir(o.home), SYNC_LOG),
};
