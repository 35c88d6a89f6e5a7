/**
 * The transcript formats funes reads, one descriptor each, listed once: the stored harness id, the
 * `--harness` spellings, the agent's folder (the variable that moves it and its place under the home), and
 * where under that folder its sessions live. Picking sources (`sources.ts`), the CLI's environment
 * (`cli/config.ts`), the agents' own set-up and the registry test read them from here.
 */
import { basename, dirname, join, resolve } from "node:path";
import type { Harness } from "./types.js";

/** Where a format's agent keeps its folder. */
export interface FolderRule {
  /** The agent's own variable that moves the folder. */
  variable: string;
  /** The folder under the variable's value (Gemini CLI's variable names the home holding `.gemini`). */
  inside?: readonly string[];
  /** The folder under the home when the variable is not set. */
  under: readonly string[];
}

/** One transcript format. */
export interface TraceFormat {
  harness: Harness;
  /** `--harness` spellings, lower case; the first is the one messages show. */
  names: readonly string[];
  folder: FolderRule;
  /**
   * Where its sessions are under the folder, in the order a no-path index walks them: a tree of
   * transcripts, a database, or the folder itself (`[]`).
   */
  roots: readonly (readonly string[])[];
  /** Whether a file in a tree of its transcripts is one, by its name and folder. */
  transcript: (name: string, dir: string) => boolean;
}

/** The usual transcript file: `*.jsonl`. */
const jsonl = (name: string) => name.endsWith(".jsonl");

export const TRACE_FORMATS: readonly TraceFormat[] = [
  {
    harness: "claude_code",
    names: ["claude", "claude_code", "claude-code"],
    folder: { variable: "CLAUDE_CONFIG_DIR", under: [".claude"] },
    roots: [["projects"]],
    transcript: jsonl,
  },
  {
    harness: "codex",
    names: ["codex"],
    folder: { variable: "CODEX_HOME", under: [".codex"] },
    // Codex moves sessions to archived_sessions when they are archived; the reference does not walk it.
    roots: [["sessions"], ["archived_sessions"]],
    // Its 2025 releases wrote whole-file `rollout-*.json`.
    transcript: (name) => jsonl(name) || (name.startsWith("rollout-") && name.endsWith(".json")),
  },
  {
    harness: "pi",
    names: ["pi"],
    folder: { variable: "PI_CODING_AGENT_DIR", under: [".pi", "agent"] },
    roots: [["sessions"]],
    transcript: jsonl,
  },
  {
    harness: "hermes",
    names: ["hermes"],
    folder: { variable: "HERMES_HOME", under: [".hermes"] },
    // Older Hermes kept conversations only in session files; the reference does not read them.
    roots: [["state.db"], ["sessions"]],
    // Its session files are read by their own source (hermes-legacy.ts); a tree of them as JSONL.
    transcript: jsonl,
  },
  {
    harness: "gemini",
    names: ["gemini"],
    folder: { variable: "GEMINI_CLI_HOME", inside: [".gemini"], under: [".gemini"] },
    // Gemini CLI deletes sessions older than 30 days by default (`general.sessionRetention`).
    roots: [["tmp"]],
    // Older releases wrote whole-file sessions: `session-*.json`, and a sub-agent's `chats/<parent session>/<id>.json`.
    transcript: (name, dir) =>
      jsonl(name) ||
      (name.endsWith(".json") && (name.startsWith("session-") || basename(dirname(dir)) === "chats")),
  },
  {
    harness: "qwen",
    names: ["qwen"],
    folder: { variable: "QWEN_HOME", under: [".qwen"] },
    roots: [["projects"]],
    // A bare id (`<id>.jsonl`, `agent-<id>.jsonl`); other logs beside them carry a second extension
    // (`<id>.ledger.jsonl`, a server's prompt ledger).
    transcript: (name) => /^[^.]+\.jsonl$/.test(name),
  },
  {
    harness: "opencode",
    names: ["opencode"],
    // OpenCode keeps its data under the XDG data folder, as xdg-basedir reads it.
    folder: { variable: "XDG_DATA_HOME", inside: ["opencode"], under: [".local", "share", "opencode"] },
    // Its database (and the `opencode-<channel>.db` of its other release channels) in the data folder.
    roots: [[]],
    transcript: () => false,
  },
  {
    harness: "copilot",
    names: ["copilot"],
    folder: { variable: "COPILOT_HOME", under: [".copilot"] },
    roots: [["session-state"]],
    // 1.x: `session-state/<id>/events.jsonl`, with other files beside each log (checkpoints, snapshots);
    // 0.0.x wrote the log flat, `session-state/<id>.jsonl`.
    transcript: (name, dir) => name === "events.jsonl" || (basename(dir) === "session-state" && jsonl(name)),
  },
];

/** The descriptor of `harness`. */
export function formatOf(harness: Harness): TraceFormat {
  const f = TRACE_FORMATS.find((x) => x.harness === harness);
  if (f === undefined) throw new Error(`no trace format for harness ${harness}`);
  return f;
}

/**
 * Where the agents' folder variables are read from: an environment's values, and the folder a relative
 * value is taken from (empty: kept relative). Commands receive it from the CLI and read folders from it
 * here, so the CLI's start does not load this layer.
 */
export interface AgentEnv {
  vars: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/**
 * The folders an environment moves, by harness (each `FolderRule.variable`), and `$OPENCODE_DB` (the
 * database OpenCode was told to use: absolute, or a name in its data folder). Absent: the default under the
 * home.
 */
export type AgentDirs = Partial<Record<Harness, string>> & { opencodeDb?: string | undefined };

/** The folders `env` moves; folders given as such are taken as they are. */
export function movedFolders(env: AgentEnv | AgentDirs | undefined): AgentDirs {
  if (env === undefined) return {};
  if (!("vars" in env)) return env as AgentDirs;
  const out: AgentDirs = {};
  for (const f of TRACE_FORMATS) {
    const v = env.vars[f.folder.variable]?.trim();
    if (v !== undefined && v !== "")
      out[f.harness] = join(env.cwd === "" ? v : resolve(env.cwd, v), ...(f.folder.inside ?? []));
  }
  // A bare name is a file in OpenCode's data folder, as OpenCode reads it: kept as given.
  const db = env.vars.OPENCODE_DB?.trim();
  if (db !== undefined && db !== "") out.opencodeDb = db;
  return out;
}

/** The folder of `harness`'s agent: its variable's (in `env`), else its default under `home`. */
export function agentFolder(
  harness: Harness,
  home: string,
  env: Readonly<Record<string, string | undefined>> = {},
): string {
  return movedFolders({ vars: env, cwd: "" })[harness] ?? join(home, ...formatOf(harness).folder.under);
}

/** The format a `--harness` spelling names, or null. */
export function formatNamed(value: string): TraceFormat | null {
  const v = value.trim().toLowerCase();
  return TRACE_FORMATS.find((f) => f.names.includes(v)) ?? null;
}
