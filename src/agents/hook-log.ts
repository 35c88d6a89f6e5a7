/**
 * Reading the hook workers' logs back: where each agent's `funes-sync.log` is, and the outcome of the last
 * push a hook made to each memory (what `funes status` reports as "push failed: …"). The log is ours: one
 * `<stamp> push[<memory>]: <outcome> — <reason>` line per push run, written by the push script.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { claudePluginRoot } from "./claude.js";
import { codexHome } from "./codex.js";
import { copilotScriptsDir } from "./copilot.js";
import { geminiDir } from "./gemini.js";
import { hermesHome } from "./hermes.js";
import { SYNC_LOG } from "./hook-scripts.js";
import { openCodeScriptsDir } from "./opencode.js";
import { piExtensionDir } from "./pi.js";
import { qwenDir } from "./qwen.js";

/** How a hook's push run ended. */
export type HookPushState = "ok" | "again" | "warn" | "failed";

/** The last push outcome a hook log holds for one memory. */
export interface HookPushOutcome {
  /** The memory as the hook names it (the spec given to `funes add`). */
  memory: string;
  /** ms since the epoch, UTC. */
  at: number;
  state: HookPushState;
  /** The reason on the outcome line ("" when none). */
  detail: string;
  /** The log it came from. */
  log: string;
}

/** The hook logs of every agent funes can wire (those that exist are read). */
export function hookLogPaths(o: { home: string; env: Record<string, string | undefined> }): string[] {
  return [
    join(claudePluginRoot(o.home), "funes", "scripts", SYNC_LOG),
    join(codexHome(o), "hooks", SYNC_LOG),
    join(hermesHome(o), "hooks", SYNC_LOG),
    join(piExtensionDir(o.home), SYNC_LOG),
    join(geminiDir(o), "hooks", SYNC_LOG),
    join(qwenDir(o), "hooks", SYNC_LOG),
    join(openCodeScriptsDir(o.home), SYNC_LOG),
    join(copilotScriptsDir(o.home), SYNC_LOG),
  ];
}

const LINE = /^(\S+) push\[(.+)\]: (ok|again|WARN|FAILED)(?: \(exit \d+\))?(?: — (.*))?$/;
const STATE: Record<string, HookPushState> = { ok: "ok", again: "again", WARN: "warn", FAILED: "failed" };

/** The last outcome per memory in one log's text. Lines that are not outcomes are passed over. */
export function lastPushOutcomes(text: string, log: string): HookPushOutcome[] {
  const last = new Map<string, HookPushOutcome>();
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (m === null) continue;
    const at = Date.parse(m[1] as string);
    if (Number.isNaN(at)) continue;
    const memory = m[2] as string;
    last.set(memory, { memory, at, state: STATE[m[3] as string] ?? "failed", detail: m[4] ?? "", log });
  }
  return [...last.values()];
}

/** The last push outcome per memory across every agent's hook log, newest first. */
export function readHookPushes(o: {
  home: string;
  env: Record<string, string | undefined>;
}): HookPushOutcome[] {
  const all: HookPushOutcome[] = [];
  for (const log of hookLogPaths(o)) {
    let text: string;
    try {
      text = readFileSync(log, "utf8");
    } catch {
      continue; // that agent is not wired, or has not pushed yet
    }
    all.push(...lastPushOutcomes(text, log));
  }
  return all.sort((a, b) => b.at - a.at);
}
