/**
 * Reading the hook workers' logs back: where each agent's `funes-sync.log` is, and the outcome of the last
 * push a hook made to each memory (what `funes status` reports as "push failed: …"). The log is ours: one
 * `<stamp> push[<memory>]: <outcome> — <reason>` line per push run, written by the push script.
 */
import { readFileSync } from "node:fs";
import type { Env } from "./agent.js";
import { AGENTS } from "./registry.js";

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

/** The hook logs of every agent funes can wire (those that exist are read), from each agent's folder. */
export async function hookLogPaths(o: { home: string; env: Env }): Promise<string[]> {
  return Promise.all(AGENTS.map(async (a) => (await a.load()).hookLog(o)));
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
export async function readHookPushes(o: { home: string; env: Env }): Promise<HookPushOutcome[]> {
  const all: HookPushOutcome[] = [];
  for (const log of await hookLogPaths(o)) {
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
