/**
 * Letting Claude Code run funes's read-only MCP tools without asking: their names in `permissions.allow` of
 * the user's `~/.claude/settings.json`, so a headless `claude -p` turn can recall (Claude refuses an
 * unapproved MCP tool there). Only the entries funes added are taken out again: they are recorded beside
 * the other integration files, and an entry the user had already is left alone.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import { readTextOrNull, writeIfChanged } from "../files.js";
import { editJsonText, readJsonText } from "../json-text.js";
import { AgentSetupError, envDir, integrationsRoot } from "../setup.js";

/**
 * The permission rules of funes's read-only tools (`mcp__<server>__<tool>`, Claude's naming), every tool
 * `funes mcp` serves (mcp/server.ts). A user who allowed an earlier, shorter list is asked again by the
 * next `funes add claude`, which adds only the rules missing.
 */
export const CLAUDE_FUNES_TOOLS = [
  "mcp__funes__recall",
  "mcp__funes__get",
  "mcp__funes__sessions",
  "mcp__funes__scan",
  "mcp__funes__status",
] as const;

/** The user's home and environment, where Claude Code's own variable may move its folder. */
export interface ClaudeHome {
  home: string;
  env: Record<string, string | undefined>;
}

/** Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(o: ClaudeHome): string {
  return agentFolder("claude_code", o.home, o.env);
}

/** Claude Code's user settings file. */
export function claudeSettingsPath(o: ClaudeHome): string {
  return join(claudeConfigDir(o), "settings.json");
}

/** Claude Code's own state (its MCP servers among it): inside `$CLAUDE_CONFIG_DIR` when set, else `~/.claude.json`. */
export function claudeStatePath(o: ClaudeHome): string {
  return join(envDir(o.env.CLAUDE_CONFIG_DIR, o.home), ".claude.json");
}

const recordPath = (home: string) => join(integrationsRoot(home), "claude-permissions.json");

type Settings = Record<string, unknown> & { permissions?: Record<string, unknown> };

function readSettings(path: string): Settings {
  const parsed = readJsonText(readTextOrNull(path));
  if (parsed === null)
    throw new AgentSetupError(
      `${path} isn't a JSON object — fix it (Claude Code ignores it as it is), then run this again`,
    );
  return parsed as Settings;
}

function allowList(s: Settings): string[] {
  const allow = s.permissions?.allow;
  return Array.isArray(allow) ? allow.filter((x): x is string => typeof x === "string") : [];
}

/** Whether every one of funes's tools is already in `permissions.allow` (an unreadable file: false). */
export function claudeToolsAllowed(o: ClaudeHome): boolean {
  try {
    const allow = allowList(readSettings(claudeSettingsPath(o)));
    return CLAUDE_FUNES_TOOLS.every((t) => allow.includes(t));
  } catch {
    return false;
  }
}

/** Adds the tools to `permissions.allow`; returns the rules it added (none when all were there). */
export function allowClaudeTools(o: ClaudeHome): string[] {
  const path = claudeSettingsPath(o);
  const settings = readSettings(path);
  const allow = allowList(settings);
  const added = CLAUDE_FUNES_TOOLS.filter((t) => !allow.includes(t));
  if (added.length === 0) return [];
  const previous = readTextOrNull(recordPath(o.home));
  const recorded = previous === null ? [] : (JSON.parse(previous) as { added: string[] }).added;
  writeIfChanged(recordPath(o.home), `${JSON.stringify({ added: [...new Set([...recorded, ...added])] })}\n`);
  const permissions = { ...(settings.permissions ?? {}), allow: [...allow, ...added] };
  writeIfChanged(
    path,
    editJsonText(readTextOrNull(path), (root) => ({ ...root, permissions })),
  );
  return added;
}

/** Takes out the rules funes added (and only those); returns them. */
export function disallowClaudeTools(o: ClaudeHome): string[] {
  const record = readTextOrNull(recordPath(o.home));
  if (record === null) return [];
  const added = (JSON.parse(record) as { added: string[] }).added;
  const path = claudeSettingsPath(o);
  const settings = readSettings(path);
  const allow = allowList(settings);
  const removed = allow.filter((t) => added.includes(t));
  if (removed.length > 0) {
    // Edited in place (json-text.ts), so the rest of the file keeps its bytes.
    const kept = allow.filter((t) => !added.includes(t));
    const permissions: Record<string, unknown> = { ...(settings.permissions ?? {}), allow: kept };
    if (kept.length === 0) Reflect.deleteProperty(permissions, "allow");
    const next: Settings = { ...settings, permissions };
    if (Object.keys(permissions).length === 0) Reflect.deleteProperty(next, "permissions");
    writeIfChanged(
      path,
      editJsonText(readTextOrNull(path), () => next),
    );
  }
  rmSync(recordPath(o.home), { force: true });
  return removed;
}
