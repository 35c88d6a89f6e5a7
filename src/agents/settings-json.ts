/**
 * The `settings.json` Gemini CLI and Qwen Code (its fork) share: `mcpServers.<name>` entries and
 * `hooks.<Event>` groups. funes adds its server entry and hook groups, and takes out exactly those; the
 * file is remembered before funes first edits it, so `remove` puts the user's bytes back when nothing else
 * changed in it.
 */
import { canonicalJson, readTextOrNull, rememberOriginal, restoreOriginal, writeIfChanged } from "./files.js";
import {
  formatHooksFile,
  type HookSpec,
  mergeFunesHooks,
  parseHooksFile,
  stripFunesHooks,
} from "./json-hooks.js";
import { AgentSetupError } from "./setup.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** How one agent's settings are edited. */
export interface SettingsPlan {
  /** The settings file. */
  path: string;
  /** Where its text before funes's first edit is kept. */
  record: string;
  /** funes's MCP server entry. */
  server: Json;
  /** funes's hooks, and the handler each becomes in this agent's shape. */
  hooks: HookSpec[];
  handler: (spec: HookSpec) => Json;
  /** More of funes's own settings (Qwen's visible tools), added and taken out with the rest. */
  extra?: { add(root: Json): Json; strip(root: Json): Json };
}

/** funes's MCP server entry: the funes command running `mcp`, bound to `memory` when one is. */
export function funesServer(funes: readonly string[], memory: string | null): Json {
  return { command: funes[0], args: [...funes.slice(1), "mcp", ...(memory === null ? [] : [memory])] };
}

/** The settings as JSON; a file that is not a plain JSON object stops the edit with nothing changed. */
export function readSettings(path: string): Json {
  const root = parseHooksFile(readTextOrNull(path));
  if (root === null)
    throw new AgentSetupError(
      `${path} isn't plain JSON (a comment or a syntax error?) — funes edits only plain JSON there; fix it or move the comments out, then run this again`,
    );
  return root;
}

/** `root` without the MCP entry `name` (and without `mcpServers` once empty). */
function withoutServer(root: Json, name: string): Json {
  if (!isObject(root.mcpServers) || !(name in root.mcpServers)) return root;
  const { [name]: _dropped, ...servers } = root.mcpServers;
  if (Object.keys(servers).length > 0) return { ...root, mcpServers: servers };
  const { mcpServers: _empty, ...rest } = root;
  return rest;
}

/** Canonical JSON with empty objects and lists left out (funes drops the containers it emptied). */
function comparable(root: Json): string {
  const prune = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(prune);
    if (!isObject(v)) return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      const empty = (Array.isArray(p) && p.length === 0) || (isObject(p) && Object.keys(p).length === 0);
      if (!empty) out[k] = p;
    }
    return out;
  };
  return canonicalJson(prune(root));
}

/** The settings with funes's entries taken out. */
export function stripSettings(root: Json, plan: Pick<SettingsPlan, "extra">): Json {
  const base = stripFunesHooks(withoutServer(root, "funes"));
  return plan.extra === undefined ? base : plan.extra.strip(base);
}

/** Writes funes's entries into the settings, remembering the file as it was first. */
export function installSettings(plan: SettingsPlan): void {
  const text = readTextOrNull(plan.path);
  const current = readSettings(plan.path);
  rememberOriginal(plan.record, text);
  const base = stripSettings(current, plan);
  const servers = isObject(base.mcpServers) ? base.mcpServers : {};
  let next = mergeFunesHooks(
    { ...base, mcpServers: { ...servers, funes: plan.server } },
    plan.hooks,
    plan.handler,
  );
  if (plan.extra !== undefined) next = plan.extra.add(next);
  writeIfChanged(plan.path, formatHooksFile(next));
}

/**
 * Takes funes's entries out: the user's bytes come back when the file is otherwise as it was before funes
 * first edited it (empty containers aside); true when the file held any of them.
 */
export function removeSettings(plan: Pick<SettingsPlan, "path" | "record" | "extra">): boolean {
  const text = readTextOrNull(plan.path);
  if (text === null) return false;
  const current = readSettings(plan.path);
  const stripped = stripSettings(current, plan);
  if (canonicalJson(stripped) === canonicalJson(current) && readTextOrNull(plan.record) === null)
    return false;
  const same = (before: string | null) => {
    const original = parseHooksFile(before);
    return original !== null && comparable(stripSettings(original, plan)) === comparable(stripped);
  };
  restoreOriginal(plan.path, plan.record, same, formatHooksFile(stripped));
  return true;
}
