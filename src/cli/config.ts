/**
 * Everything funes reads from its environment, read once here and passed down as values.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The process's view of the world. */
export interface CliConfig {
  /** The user's home (agent session directories live under it). */
  home: string;
  /** `$FUNES_HOME`, else `~/.funes`. */
  funesHome: string;
  /** True when stderr is a terminal (progress bars, prompts). */
  stderrTty: boolean;
  stdoutTty: boolean;
  stdinTty: boolean;
  color: boolean;
  now: () => number;
}

/** Reads the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  const funesHome =
    env.FUNES_HOME !== undefined && env.FUNES_HOME !== "" ? resolve(env.FUNES_HOME) : join(home, ".funes");
  return {
    home,
    funesHome,
    stderrTty: process.stderr.isTTY === true,
    stdoutTty: process.stdout.isTTY === true,
    stdinTty: process.stdin.isTTY === true,
    color: env.NO_COLOR === undefined && process.stdout.isTTY === true,
    now: () => Date.now(),
  };
}
