/**
 * The `settings.json` Gemini CLI and Qwen Code (its fork) share: `mcpServers.<name>` entries and
 * `hooks.<Event>` groups. funes adds its server entry and hook groups, and takes out exactly those, editing
 * the file in place (json-text.ts: comments, key order and layout kept; both agents read comments there);
 * the file is remembered before funes first edits it, so `remove` puts the user's bytes back when nothing
 * changed it since.
 */
import { existsSync, rmSync } from "node:fs";
import { canonicalJson, editKept, type KeptFile, readTextOrNull, removeKept } from "./files.js";
import { type HookSpec, mergeFunesHooks, stripFunesHooks } from "./json-hooks.js";
import { editJsonText, jsonTextIsEmpty, readJsonText } from "./json-text.js";
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

/** The settings as an object; a file that is not a JSON object (comments allowed) stops the edit. */
export function readSettings(path: string): Json {
  const root = readJsonText(readTextOrNull(path));
  if (root === null)
    throw new AgentSetupError(
      `${path} isn't a JSON object (a syntax error?) — the agent can't read it either; fix it, then run this again`,
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

/** The settings with funes's entries taken out. */
export function stripSettings(root: Json, plan: Pick<SettingsPlan, "extra">): Json {
  const base = stripFunesHooks(withoutServer(root, "funes"));
  return plan.extra === undefined ? base : plan.extra.strip(base);
}

/** The settings with funes's entries as the plan has them (funes's hook groups left where they are when unchanged). */
function addSettings(root: Json, plan: SettingsPlan): Json {
  const servers = isObject(root.mcpServers) ? root.mcpServers : {};
  let next = mergeFunesHooks(
    { ...root, mcpServers: { ...servers, funes: plan.server } },
    plan.hooks,
    plan.handler,
  );
  if (plan.extra !== undefined) next = plan.extra.add(next);
  return next;
}

const fileOf = (plan: Pick<SettingsPlan, "path" | "record">): KeptFile => ({
  path: plan.path,
  record: plan.record,
});

/** Writes funes's entries into the settings, remembering the file as it was first. */
export function installSettings(plan: SettingsPlan): void {
  readSettings(plan.path);
  editKept(fileOf(plan), {
    strip: (text) => editJsonText(text, (root) => stripSettings(root, plan)),
    edit: (text) => editJsonText(text, (root) => addSettings(root, plan)),
  });
}

/**
 * Takes funes's entries out: the user's bytes come back when nothing changed the file since funes's
 * last edit; true when the file held any of them.
 */
export function removeSettings(plan: Pick<SettingsPlan, "path" | "record" | "extra">): boolean {
  const text = readTextOrNull(plan.path);
  if (text === null) {
    rmSync(plan.record, { force: true });
    return false;
  }
  const current = readSettings(plan.path);
  if (canonicalJson(stripSettings(current, plan)) === canonicalJson(current) && !existsSync(plan.record))
    return false;
  removeKept(fileOf(plan), {
    strip: (t) => editJsonText(t, (root) => stripSettings(root, plan)),
    empty: jsonTextIsEmpty,
  });
  return true;
}
