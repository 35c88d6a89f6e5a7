/**
 * Running an agent's own CLI (`claude`, `codex`, `hermes`, `pi`): its exit code and output, or that it is
 * not installed. Input, when given, is written to its stdin; otherwise stdin is empty.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** How a run ended. */
export type CliOutcome =
  | { kind: "ran"; code: number | null; stdout: string; stderr: string }
  | { kind: "missing"; bin: string };

/** What every agent command needs: its environment (PATH finds the CLI; HOME, CODEX_HOME, … place config). */
export interface AgentEnv {
  env: Record<string, string | undefined>;
}

/** Runs `bin args…` to completion. */
export function runCli(
  bin: string,
  args: string[],
  o: AgentEnv & { input?: string | undefined; cwd?: string | undefined },
): Promise<CliOutcome> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      env: o.env as NodeJS.ProcessEnv,
      cwd: o.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let missing = false;
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") missing = true;
      else stderr += String(err.message);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(o.input ?? "");
    child.on("close", (code) =>
      resolve(missing ? { kind: "missing", bin } : { kind: "ran", code, stdout, stderr }),
    );
  });
}

/** The last non-empty line a failed run printed (for error messages). */
export function lastLine(o: CliOutcome): string {
  if (o.kind === "missing") return `${o.bin} not found`;
  const lines = `${o.stderr}\n${o.stdout}`
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return lines[lines.length - 1] ?? `exit ${o.code}`;
}

/** Whether `cmd` (an absolute path, or a name looked up on `path`, PATH's value) is an executable that exists. */
export function onPath(cmd: string, path: string | undefined): boolean {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(cmd)) return ok(cmd);
  return (path ?? "").split(delimiter).some((d) => d !== "" && ok(join(d, cmd)));
}
