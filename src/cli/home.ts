/** Where funes keeps its state: read before anything else loads (cli/main.ts, cli/config.ts). */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The user's home directory: `$HOME`, else the system's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
}

/** `$FUNES_HOME`, else `~/.funes`. */
export function funesHomeOf(env: NodeJS.ProcessEnv): string {
  return env.FUNES_HOME !== undefined && env.FUNES_HOME !== ""
    ? resolve(env.FUNES_HOME)
    : join(homeOf(env), ".funes");
}
