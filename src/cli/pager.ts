/**
 * Long output for people goes through their pager, as git and gh do: only when stdout is a terminal and
 * the text is taller than it. `$FUNES_PAGER`, else `$PAGER`, else `less` (with `LESS=FRX` unless set:
 * quit when it fits, keep colours, leave the text on screen); an empty value or `cat` means none.
 */
import { spawn } from "node:child_process";
import { guardedText } from "./output-guard.js";

/** Where and how to page. */
export interface PagerOptions {
  /** stdout is a terminal. */
  tty: boolean;
  /** The terminal's height, when known. */
  rows: number | null;
  env: Record<string, string | undefined>;
}

/** The pager command, or null for none. */
export function pagerCommand(env: Record<string, string | undefined>): string | null {
  const cmd = (env.FUNES_PAGER ?? env.PAGER ?? "less").trim();
  return cmd === "" || cmd === "cat" ? null : cmd;
}

/** Writes `text` to stdout, through the pager when it is taller than the terminal. */
export async function writePaged(text: string, o: PagerOptions): Promise<void> {
  const cmd = pagerCommand(o.env);
  const lines = text.split("\n").length - 1;
  if (!o.tty || o.rows === null || lines < o.rows || cmd === null) {
    process.stdout.write(text);
    return;
  }
  const child = spawn(cmd, {
    shell: true,
    stdio: ["pipe", "inherit", "inherit"],
    env: { ...o.env, LESS: o.env.LESS ?? "FRX" } as NodeJS.ProcessEnv,
  });
  // The pager quit before reading everything (`q` in less): nothing more to show.
  child.stdin.on("error", () => {});
  // What goes to the pager bypasses stdout's guard: it passes the same one here.
  child.stdin.end(guardedText(text));
  const code = await new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(127));
    child.on("close", resolve);
  });
  // A pager that is not there (the shell's 127): the text is shown without one.
  if (code === 127) process.stdout.write(text);
}
