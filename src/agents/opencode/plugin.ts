/**
 * The plugin funes installs into OpenCode (`plugins/funes.js`; `funes add opencode` copies this module as
 * `tsc` built it, with `SCRIPT` and `ARGS` filled in: agents/shipped.ts). OpenCode has no shell hooks, and
 * `session.idle` is its end of a turn: then it runs the index hook script, naming the agent (and the bound
 * memory, which the script publishes to after its last pass), detached — the script returns at once anyway.
 */
import { spawn } from "node:child_process";

/** The index hook script (filled in by `funes add opencode`). */
const SCRIPT: string = ""; // funes:fill
/** Its arguments: the agent, and the bound memory when there is one (filled in by `funes add opencode`). */
const ARGS: string[] = []; // funes:fill

/** What OpenCode hands a plugin's event hook. */
interface EventInput {
  event?: { type?: unknown } | null;
}

export const FunesPlugin = async () => ({
  event: async ({ event }: EventInput) => {
    if (event?.type !== "session.idle") return;
    try {
      const child = spawn("bash", [SCRIPT, ...ARGS], { detached: true, stdio: "ignore" });
      child.on("error", () => {});
      child.unref();
    } catch {
      // Indexing is best effort here: the next turn's run catches up.
    }
  },
});
