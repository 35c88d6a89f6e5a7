/**
 * Hook groups in the JSON shape Claude Code and Codex share:
 * `{"hooks": {"<Event>": [{"matcher"?: …, "hooks": [{"type": "command", "command": …, …}]}]}}`. funes owns a
 * group when one of its handlers runs a funes hook script; only those are ever removed or replaced, and
 * funes's groups go last in each event, so the user's own groups keep their positions.
 */
import { join } from "node:path";
import { canonicalJson } from "./files.js";
import { hookCommand, INDEX_SCRIPT, isFunesCommand, PUSH_SCRIPT } from "./hook-scripts.js";
import { readJsonText } from "./json-text.js";

/** One hook funes wants: an event and the command it runs. */
export interface HookSpec {
  event: string;
  command: string;
  statusMessage: string;
  /** Seconds. */
  timeout: number;
}

/**
 * The hooks of an agent with no session end funes can count on (Codex has none; Qwen Code's does not fire
 * headless): with a memory bound, the Stop hook's worker also publishes once its index pass is done and no
 * newer turn waits, so a session reaches the Hub right after its last turn (a one-shot run too), not when
 * the next session starts. SessionStart still pushes what is left. `scripts` is the scripts' folder.
 */
export function stopHookSpecs(scripts: string, agent: string, memory: string | null): HookSpec[] {
  const index = join(scripts, INDEX_SCRIPT);
  const specs: HookSpec[] = [
    {
      event: "Stop",
      command: memory === null ? hookCommand(index, agent) : hookCommand(index, agent, memory),
      statusMessage: "Indexing turn into funes memory",
      timeout: 15,
    },
  ];
  if (memory !== null)
    specs.push({
      event: "SessionStart",
      command: hookCommand(join(scripts, PUSH_SCRIPT), memory, agent),
      statusMessage: "Publishing funes memory",
      timeout: 15,
    });
  return specs;
}

/** A handler as funes writes it. */
export interface CommandHandler {
  type: "command";
  command: string;
  timeout: number;
  statusMessage: string;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function ownsGroup(group: unknown): boolean {
  if (!isObject(group) || !Array.isArray(group.hooks)) return false;
  return group.hooks.some((h) => isObject(h) && isFunesCommand(h.command));
}

/** The handler funes writes for a spec. */
export function handlerOf(spec: HookSpec): CommandHandler {
  return { type: "command", command: spec.command, timeout: spec.timeout, statusMessage: spec.statusMessage };
}

/** `root` without funes's groups (events left empty are dropped, and `hooks` itself once empty). */
export function stripFunesHooks(root: Json): Json {
  if (!isObject(root.hooks)) return root;
  const hooks: Json = {};
  for (const [event, groups] of Object.entries(root.hooks)) {
    const kept = Array.isArray(groups) ? groups.filter((g) => !ownsGroup(g)) : groups;
    if (!Array.isArray(kept) || kept.length > 0) hooks[event] = kept;
  }
  if (Object.keys(hooks).length > 0) return { ...root, hooks };
  const { hooks: _dropped, ...rest } = root;
  return rest;
}

/**
 * `root` with exactly funes's `specs` as its groups (one group per spec, after the user's groups); `handler`
 * gives each its agent's shape (Claude Code's and Codex's by default). When funes's groups are already
 * exactly those, `root` comes back as it is: a user's group added after them does not move them.
 */
export function mergeFunesHooks(
  root: Json,
  specs: HookSpec[],
  handler: (spec: HookSpec) => Json = (s) => ({ ...handlerOf(s) }),
): Json {
  const wanted = new Map<string, unknown[]>();
  for (const spec of specs)
    wanted.set(spec.event, [...(wanted.get(spec.event) ?? []), { hooks: [handler(spec)] }]);
  const held = new Map<string, unknown[]>();
  if (isObject(root.hooks))
    for (const [event, groups] of Object.entries(root.hooks))
      if (Array.isArray(groups) && groups.some(ownsGroup)) held.set(event, groups.filter(ownsGroup));
  const same =
    held.size === wanted.size &&
    [...wanted].every(([event, groups]) => canonicalJson(held.get(event) ?? null) === canonicalJson(groups));
  if (same) return root;
  const base = stripFunesHooks(root);
  if (specs.length === 0) return base;
  const hooks: Json = isObject(base.hooks) ? { ...base.hooks } : {};
  for (const [event, groups] of wanted)
    hooks[event] = [...(Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []), ...groups];
  return { ...base, hooks };
}

/** Where one of funes's handlers sits. */
export interface HookPosition {
  event: string;
  group: number;
  handler: number;
  entry: Json;
}

/** Where each of funes's handlers sits. */
export function funesPositions(root: Json): HookPosition[] {
  const out: HookPosition[] = [];
  if (!isObject(root.hooks)) return out;
  for (const [event, groups] of Object.entries(root.hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g, gi) => {
      if (!isObject(g) || !Array.isArray(g.hooks)) return;
      g.hooks.forEach((h, hi) => {
        if (isObject(h) && isFunesCommand(h.command)) out.push({ event, group: gi, handler: hi, entry: h });
      });
    });
  }
  return out;
}

/**
 * Parses a hooks file's text: empty → {}; not JSON or not an object → null, and so is a comment or a
 * trailing comma, which Codex (reading plain JSON) would refuse the whole file for.
 */
export function parseHooksFile(text: string | null): Json | null {
  return readJsonText(text, true);
}

/** Pretty JSON with a trailing newline, as funes writes a hooks file of its own. */
export function formatHooksFile(root: Json): string {
  return `${JSON.stringify(root, null, 2)}\n`;
}
