/**
 * Codex (0.171) runs a hook from `hooks.json` only once it is trusted: `config.toml` must hold
 * `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` with `trusted_hash = "sha256:<hex>"`, the
 * hash of the handler's normalised identity (docs/agents.md#how-funes-trusts-its-codex-hooks). funes trusts
 * exactly its own handlers, editing those tables as text so the rest of the file keeps its bytes; the user's
 * hooks stay as trusted or untrusted as they were.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../files.js";
import type { HookPosition } from "../json-hooks.js";

/** A trust entry: its table key and hash. */
export interface TrustEntry {
  key: string;
  hash: string;
}

/** `SessionStart` → `session_start`. */
export function snakeEvent(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The hash Codex records for a trusted command handler of `event` (in a group without a matcher). */
export function trustHash(event: string, handler: Record<string, unknown>, matcher?: string): string {
  const timeout = typeof handler.timeout === "number" ? Math.max(1, handler.timeout) : 600;
  const normal: Record<string, unknown> = {
    type: "command",
    command: handler.command,
    timeout,
    async: handler.async === true,
  };
  if (typeof handler.statusMessage === "string") normal.statusMessage = handler.statusMessage;
  const identity: Record<string, unknown> = { event_name: snakeEvent(event), hooks: [normal] };
  if (matcher !== undefined) identity.matcher = matcher;
  const hex = createHash("sha256").update(canonicalJson(identity)).digest("hex");
  return `sha256:${hex}`;
}

/** Trust entries for funes's handlers at their positions in `hooksPath`. */
export function trustEntries(hooksPath: string, positions: HookPosition[]): TrustEntry[] {
  return positions.map((p) => ({
    key: `${hooksPath}:${snakeEvent(p.event)}:${p.group}:${p.handler}`,
    hash: trustHash(p.event, p.entry),
  }));
}

const HEADER = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*")\s*\]\s*(?:#.*)?$/;

function tomlString(s: string): string {
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The value of a `trusted_hash = "…"` line, or null. */
function hashOf(line: string): string | null {
  const m = /^\s*trusted_hash\s*=\s*("(?:[^"\\]|\\.)*")\s*(?:#.*)?$/.exec(line);
  if (m === null) return null;
  try {
    return JSON.parse(m[1] as string) as string;
  } catch {
    return null;
  }
}

/**
 * `config` (config.toml's text, or null) without the trust tables whose keys are in `drop`, and with a table
 * for each of `add`: one already there keeps its bytes when its hash is the same (its hash line is replaced
 * where it stands otherwise), a new one is appended. Other lines keep their bytes; a blank line funes put
 * before a table it takes out goes with it.
 */
export function editTrust(config: string | null, drop: Set<string>, add: TrustEntry[]): string {
  const lines = (config ?? "").split("\n");
  const wanted = new Map(add.map((a) => [a.key, a.hash]));
  const present = new Set<string>();
  const out: string[] = [];
  // In a table funes takes out (skip), or in one of its tables that stays (the hash it should hold).
  let skipping = false;
  let hash: string | null = null;
  for (const line of lines) {
    const m = HEADER.exec(line);
    // A table funes wrote is its header and key lines: it ends at a blank line or the next header.
    if (line.trim() === "") skipping = false;
    if (m !== null || /^\s*\[/.test(line)) {
      skipping = false;
      hash = null;
      if (m !== null) {
        let key: string | null = null;
        try {
          key = JSON.parse(m[1] as string) as string;
        } catch {
          key = null;
        }
        if (key !== null && wanted.has(key) && !present.has(key)) {
          present.add(key);
          hash = wanted.get(key) ?? null;
        } else if (key !== null && (drop.has(key) || wanted.has(key))) {
          skipping = true;
          if (out.length > 0 && out[out.length - 1] === "") out.pop();
          continue;
        }
      }
    }
    if (skipping) continue;
    const held = hash === null ? null : hashOf(line);
    out.push(hash !== null && held !== null && held !== hash ? `trusted_hash = ${tomlString(hash)}` : line);
  }
  let text = out.join("\n");
  for (const a of add) {
    if (present.has(a.key)) continue;
    if (text !== "" && !text.endsWith("\n")) text += "\n";
    text += `${text === "" ? "" : "\n"}[hooks.state.${tomlString(a.key)}]\ntrusted_hash = ${tomlString(a.hash)}\n`;
  }
  return text;
}
