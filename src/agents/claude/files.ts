/**
 * Leaving Claude Code's files as funes found them. `claude plugin install`/`uninstall` and `claude mcp
 * add`/`remove` rewrite `settings.json` (keys reordered, 2-space indent, empty `enabledPlugins` and
 * `extraKnownMarketplaces` left behind), `~/.claude.json` (an empty `mcpServers`), the plugin registries
 * (`plugins/installed_plugins.json`, `plugins/known_marketplaces.json`) and keep a copy of the plugin in
 * `plugins/cache/<marketplace>/`. So `add` records each file's text before its first change and after its
 * last, and `remove`, once Claude's own commands ran: a file nothing changed since `add` goes back byte for
 * byte (or away, when it did not exist); in one that changed meanwhile, what changed is kept and only what
 * funes left goes: empty keys the file did not have, in the key order and indentation the file had.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, readTextOrNull, writeIfChanged } from "../files.js";
import { readJsonText } from "../json-text.js";
import { integrationsRoot } from "../setup.js";
import { claudeConfigDir, claudeSettingsPath, claudeStatePath } from "./permissions.js";

type Json = Record<string, unknown>;
type Where = { home: string; env: Record<string, string | undefined> };

/** What was recorded: each file's text before funes's first change and after its last (null: absent). */
interface Recorded {
  files: Record<string, { before: string | null; after: string | null }>;
  /** Folders funes's install made Claude create (removed again once empty). */
  newDirs: string[];
  /** Claude's backups of its state file (`backups/`) before `add`. */
  backups: string[];
}

const recordPath = (home: string) => join(integrationsRoot(home), "claude-files.json");

/** The plugin registries: removed when they did not exist and list nothing after `remove`. */
function registries(o: Where): string[] {
  const plugins = join(claudeConfigDir(o), "plugins");
  return [join(plugins, "installed_plugins.json"), join(plugins, "known_marketplaces.json")];
}

function trackedFiles(o: Where): string[] {
  return [claudeSettingsPath(o), claudeStatePath(o), ...registries(o)];
}

/** The folders Claude may create for the plugin (deepest last). */
function trackedDirs(o: Where): string[] {
  const dir = claudeConfigDir(o);
  return [dir, join(dir, "plugins"), join(dir, "plugins", "cache"), join(dir, "plugins", "marketplaces")];
}

function backupsOf(o: Where): string[] {
  try {
    return readdirSync(join(claudeConfigDir(o), "backups"));
  } catch {
    return [];
  }
}

function load(home: string): Recorded | null {
  const text = readTextOrNull(recordPath(home));
  return text === null ? null : (JSON.parse(text) as Recorded);
}

function save(home: string, r: Recorded): void {
  writeIfChanged(recordPath(home), `${JSON.stringify(r)}\n`);
}

/**
 * Records the files as they are before `add` changes them (a second `add` keeps the first record). Files
 * that already hold funes (the plugin `plugin`, or the MCP server: set up by a funes that kept no record)
 * are not a state to go back to: nothing is recorded, and `remove` takes out only what Claude's commands do.
 */
export function recordClaudeFilesBefore(o: Where, plugin: string): void {
  if (load(o.home) !== null) return;
  const files: Recorded["files"] = {};
  for (const f of trackedFiles(o)) files[f] = { before: readTextOrNull(f), after: null };
  const servers = parse(files[claudeStatePath(o)]?.before ?? null)?.mcpServers;
  if (
    Object.values(files).some((v) => v.before?.includes(plugin)) ||
    (isObject(servers) && "funes" in servers)
  )
    return;
  save(o.home, { files, newDirs: trackedDirs(o).filter((d) => !existsSync(d)), backups: backupsOf(o) });
}

/** Records the files as `add` left them. */
export function recordClaudeFilesAfter(o: Where): void {
  const r = load(o.home);
  if (r === null) return;
  for (const [f, v] of Object.entries(r.files)) v.after = readTextOrNull(f);
  save(o.home, r);
}

/** The files still as `add` left them (call before `remove` runs Claude's commands). */
export function claudeFilesUntouched(o: Where): Set<string> {
  const r = load(o.home);
  return new Set(
    r === null ? [] : Object.entries(r.files).flatMap(([f, v]) => (readTextOrNull(f) === v.after ? [f] : [])),
  );
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const isEmpty = (v: unknown) =>
  Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;

/** `now` with `was`'s key order (its keys first, recursively), new keys after. */
function inOrderOf(now: Json, was: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(was))
    if (k in now) out[k] = isObject(now[k]) && isObject(was[k]) ? inOrderOf(now[k], was[k]) : now[k];
  for (const k of Object.keys(now)) if (!(k in out)) out[k] = now[k];
  return out;
}

function parse(text: string | null): Json | null {
  if (text === null || text.trim() === "") return null;
  return readJsonText(text);
}

/** The file without the empty keys it did not have, in its old key order and indentation. */
function tidy(path: string, before: string | null, registry: boolean): void {
  const now = parse(readTextOrNull(path));
  if (now === null) return;
  const was = parse(before) ?? {};
  const kept: Json = {};
  for (const [k, v] of Object.entries(now)) if (k in was || !isEmpty(v)) kept[k] = v;
  // A registry Claude created for funes's plugin, listing nothing now ("version" aside), goes.
  if (before === null && registry && Object.entries(kept).every(([k, v]) => k === "version" || isEmpty(v))) {
    rmSync(path, { force: true });
    return;
  }
  if (before === null && Object.keys(kept).length === 0) {
    rmSync(path, { force: true });
    return;
  }
  const ordered = inOrderOf(kept, was);
  if (before !== null && canonicalJson(ordered) === canonicalJson(was)) {
    writeIfChanged(path, before);
    return;
  }
  const indent = /^([ \t]+)"/m.exec(before ?? "")?.[1] ?? "  ";
  const end = before === null || before.endsWith("\n") ? "\n" : "";
  writeIfChanged(path, `${JSON.stringify(ordered, null, indent)}${end}`);
}

/**
 * Puts Claude's files back after `remove` ran Claude's own commands: exactly as before `add` those in
 * `untouched` (nothing changed them since `add`), the others tidied. Removes the plugin's cached copy and the
 * folders `add` made Claude create once empty, and forgets the record.
 */
export function restoreClaudeFiles(o: Where, untouched: Set<string>, marketplace: string): void {
  const cache = join(claudeConfigDir(o), "plugins", "cache", marketplace);
  rmSync(cache, { recursive: true, force: true });
  const r = load(o.home);
  if (r === null) return;
  const regs = new Set(registries(o));
  for (const [f, v] of Object.entries(r.files)) {
    if (untouched.has(f)) {
      if (v.before === null) rmSync(f, { force: true });
      else writeIfChanged(f, v.before);
    } else tidy(f, v.before, regs.has(f));
  }
  // Claude's backups of its state file, made by the runs funes started, when that state is put back whole.
  if (untouched.has(claudeStatePath(o))) {
    const backups = join(claudeConfigDir(o), "backups");
    for (const b of backupsOf(o)) if (!r.backups.includes(b)) rmSync(join(backups, b), { force: true });
    if (existsSync(backups) && readdirSync(backups).length === 0 && r.backups.length === 0)
      rmSync(backups, { recursive: true, force: true });
  }
  rmSync(recordPath(o.home), { force: true });
  for (const d of [...r.newDirs].reverse())
    if (existsSync(d) && readdirSync(d).length === 0) rmSync(d, { recursive: true, force: true });
}

const read = (path: string) => parse(readTextOrNull(path)) ?? {};

/**
 * What Claude Code's own files say is set up: the marketplace (declared in settings.json and known, at
 * `root`) and the plugin (installed and enabled).
 */
export function claudeHolds(
  o: Where,
  want: { marketplace: string; plugin: string; root: string },
): { marketplace: boolean; plugin: boolean } {
  const settings = read(claudeSettingsPath(o));
  const [installed, known] = registries(o).map(read) as [Json, Json];
  const declared = (settings.extraKnownMarketplaces as Json | undefined)?.[want.marketplace] as
    | Json
    | undefined;
  const source = declared?.source as Json | undefined;
  const marketplace =
    source?.source === "directory" && source.path === want.root && isObject(known[want.marketplace]);
  const plugins = (installed.plugins as Json | undefined)?.[want.plugin];
  const enabled = (settings.enabledPlugins as Json | undefined)?.[want.plugin] === true;
  return { marketplace, plugin: enabled && Array.isArray(plugins) && plugins.length > 0 };
}

/** Whether Claude's user-scope MCP entry `funes` runs `command args…` (in its state file). */
export function claudeServerIs(o: Where, command: string, args: string[]): boolean {
  const server = (read(claudeStatePath(o)).mcpServers as Json | undefined)?.funes as Json | undefined;
  return server?.command === command && canonicalJson(server.args) === canonicalJson(args);
}
