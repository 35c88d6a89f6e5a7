/**
 * Hook figures for `npm run bench`: how long an agent waits on funes's index hook (the foreground script
 * drains the payload and hands off to a background worker; goal < 300 ms).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHookScripts } from "../src/agents/hook-scripts.js";
import { CLI } from "../test/helpers/cli.js";
import type { Row } from "./models-bench.js";

function runHook(script: string, payload: string, env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const child = spawn("bash", [script, "claude"], { stdio: ["pipe", "ignore", "ignore"], env });
  child.stdin.end(payload);
  return new Promise((resolve) => child.on("close", () => resolve(performance.now() - t0)));
}

/** Times the index hook's foreground run with a realistic Stop payload. */
export async function benchHooks(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "funes-hooks-"));
  try {
    writeHookScripts(join(dir, "hooks"), [process.execPath, CLI]);
    const env = { PATH: process.env.PATH ?? "", HOME: dir, FUNES_HOME: join(dir, "funes") };
    const payload = JSON.stringify({
      session_id: "0f0e",
      transcript_path: join(dir, "s.jsonl"),
      hook_event_name: "Stop",
      last_assistant_message: "done. ".repeat(2000),
    });
    const ms: number[] = [];
    for (let i = 0; i < 15; i++) {
      ms.push(await runHook(join(dir, "hooks", "funes-index.sh"), payload, env));
      await new Promise((r) => setTimeout(r, 150));
    }
    ms.sort((a, b) => a - b);
    return [
      [
        "index hook, agent waits (p50 / max of 15)",
        `${(ms[7] as number).toFixed(0)} / ${(ms[14] as number).toFixed(0)} ms`,
        "< 300 ms",
      ],
    ];
  } finally {
    await new Promise((r) => setTimeout(r, 2000));
    rmSync(dir, { recursive: true, force: true });
  }
}
