/**
 * One named entry in a user's JSON or JSONC config file (OpenCode's `mcp.funes` in `opencode.json`,
 * Copilot's `mcpServers.funes` in `mcp-config.json`): added beside the user's own entries and taken out
 * again, in place (json-text.ts: comments, key order and layout kept), and the file's exact bytes restored
 * when nothing changed it since funes's last edit (else the user's edits are kept, funes's entry gone).
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { editKept, readTextOrNull, removeKept, writeIfChanged } from "./files.js";
import { type FunesCommand, INDEX_SCRIPT, removeHookScripts, writeHookScripts } from "./hook-scripts.js";
import { editJsonText, jsonTextIsEmpty, readJsonText } from "./json-text.js";
import { AgentSetupError, pruneIntegrations, type SetupReport } from "./setup.js";

type Json = Record<string, unknown>;

/** Where the entry lives: the file, the object holding it, its name, and the record of the file's bytes. */
export interface JsonEntryPlace {
  path: string;
  container: string;
  name: string;
  /** Where the file's text before funes first edited it is kept (under `~/.funes/integrations`). */
  record: string;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The file as an object ({} when absent or empty; comments allowed); refuses what funes should not edit. */
export function loadJsonConfig(path: string, container: string): Json {
  const v = readJsonText(readTextOrNull(path));
  if (v === null)
    throw new AgentSetupError(
      `${path} isn't a JSON object (a syntax error?) — the agent can't read it either; fix it, then run this again`,
    );
  if (v[container] !== undefined && !isObject(v[container]))
    throw new AgentSetupError(`${path}: "${container}" isn't an object — fix it, then run this again`);
  return v;
}

/** `config` without the entry (and without its container once that is empty). */
function withoutEntry(config: Json, container: string, name: string): Json {
  const held = config[container];
  if (!isObject(held) || !(name in held)) return config;
  const { [name]: _dropped, ...others } = held;
  if (Object.keys(others).length > 0) return { ...config, [container]: others };
  const { [container]: _empty, ...rest } = config;
  return rest;
}

const kept = (place: JsonEntryPlace) => ({ path: place.path, record: place.record });
const stripEntry = (place: JsonEntryPlace) => (text: string) =>
  editJsonText(text, (root) => withoutEntry(root, place.container, place.name));

/** Sets the entry (replacing funes's earlier one), remembering the file's bytes the first time. */
export function setJsonEntry(place: JsonEntryPlace, entry: unknown): void {
  loadJsonConfig(place.path, place.container);
  editKept(kept(place), {
    strip: stripEntry(place),
    edit: (text) =>
      editJsonText(text, (root) => {
        const held = isObject(root[place.container]) ? (root[place.container] as Json) : {};
        return { ...root, [place.container]: { ...held, [place.name]: entry } };
      }),
  });
}

/**
 * Takes the entry out: the original bytes back when nothing changed the file since funes's last edit.
 * False when there is no file.
 */
export function removeJsonEntry(place: JsonEntryPlace): boolean {
  if (readTextOrNull(place.path) === null) {
    rmSync(place.record, { force: true });
    return false;
  }
  loadJsonConfig(place.path, place.container);
  removeKept(kept(place), { strip: stripEntry(place), empty: jsonTextIsEmpty });
  return true;
}

/** The names in the file's container (an agent's MCP servers); none when the file is unreadable. */
export function jsonEntryNames(path: string, container: string): string[] {
  try {
    const held = loadJsonConfig(path, container)[container];
    return isObject(held) ? Object.keys(held) : [];
  } catch {
    return [];
  }
}

/** The entry as the file holds it, or null (also when the file is unreadable). */
export function readJsonEntry(place: Omit<JsonEntryPlace, "record">): Json | null {
  try {
    const held = loadJsonConfig(place.path, place.container)[place.container];
    const entry = isObject(held) ? held[place.name] : undefined;
    return isObject(entry) ? entry : null;
  } catch {
    return null;
  }
}

/** What an agent wired this way holds: the entry, a hook file of funes's own, and the hook scripts. */
export interface JsonWiringPlace {
  entry: JsonEntryPlace;
  /** The file funes writes into the agent's folder (OpenCode's plugin, Copilot's hooks file). */
  hookFile: string;
  /** Where the hook scripts and their log live. */
  scripts: string;
}

/** Whether funes is wired in, the funes command the MCP entry names, and whether the hook file is there. */
export function jsonWiring(
  place: JsonWiringPlace,
  commandOf: (entry: Record<string, unknown>) => string[] | null,
): { installed: boolean; mcp: string[] | null; script: string; hook: boolean } {
  const entry = readJsonEntry(place.entry);
  const mcp = entry === null ? null : commandOf(entry);
  const script = join(place.scripts, INDEX_SCRIPT);
  const hook = existsSync(place.hookFile);
  return { installed: mcp !== null || hook || existsSync(script), mcp, script, hook };
}

/**
 * Takes the entry out, deletes funes's hook file (and its folder once empty), the scripts and their log
 * (and `~/.funes/integrations` once empty); the report's lines.
 */
export function removeJsonWiring(home: string, place: JsonWiringPlace): SetupReport {
  const report: SetupReport = [];
  // The hook file first: a config folder funes created goes with the config once nothing is left in it.
  const hook = existsSync(place.hookFile);
  rmSync(place.hookFile, { force: true });
  const folder = dirname(place.hookFile);
  if (existsSync(folder) && readdirSync(folder).length === 0) rmSync(folder, { recursive: true });
  if (removeJsonEntry(place.entry)) report.push(`removed funes from ${place.entry.path}`);
  if (hook) report.push(`removed ${place.hookFile}`);
  if (removeHookScripts(place.scripts)) report.push(`removed the hook scripts from ${place.scripts}`);
  if (existsSync(place.scripts) && readdirSync(place.scripts).length === 0)
    rmSync(place.scripts, { recursive: true });
  pruneIntegrations(home);
  return report;
}

/**
 * Writes the hook scripts, the entry and funes's hook file (checking the config can be edited first, so a
 * refused one leaves nothing half done); the report's lines.
 */
export function installJsonWiring(
  o: { funes: FunesCommand; memory: string | null },
  place: JsonWiringPlace,
  parts: { entry: unknown; hookText: string; agent: string; tools: string; hook: string },
): SetupReport {
  loadJsonConfig(place.entry.path, place.entry.container);
  writeHookScripts(place.scripts, o.funes);
  setJsonEntry(place.entry, parts.entry);
  writeIfChanged(place.hookFile, parts.hookText);
  return [
    `registered funes recall with ${parts.agent} in ${place.entry.path} — ${parts.tools} are available`,
    `installed the funes ${parts.hook} (${place.hookFile}): each finished turn is indexed${o.memory === null ? "" : ` and published to ${o.memory}`}`,
  ];
}
