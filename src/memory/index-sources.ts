/**
 * What `funes index` reads: the known agent directories, an explicit path judged by its content, or a Hub
 * agent-traces dataset; and the one-line answers for a path that cannot be indexed.
 */

import { existsSync } from "node:fs";
import { HubTraceSource } from "../cache/index.js";
import type { ModelsConfig } from "../models/index.js";
import { hubClient } from "../remote/index.js";
import {
  type AgentEnv,
  type Harness,
  knownRoots,
  knownSources,
  sourcesForPath,
  TracePathError,
  type TraceSource,
} from "../traces/index.js";
import { FunesError } from "./errors.js";

/** What decides the sources of an index run (a subset of `funes index`'s options). */
export interface SourceOptions {
  /** A transcript file, directory, `state.db` or `.parquet`, or a Hub agent-traces dataset; absent → every known agent directory. */
  path?: string | undefined;
  harness?: Harness | undefined;
  /** The user's home, for the known agent directories. */
  home: string;
  /** Agent folders their own variables moved (`CODEX_HOME`, …). */
  agentEnv?: AgentEnv | undefined;
  /** Where the Hub is (for a Hub dataset). */
  models?: ModelsConfig | undefined;
  /**
   * A memory exists already: agents' folders holding no transcripts (their clean-up took them) are a note,
   * not a failure — what was indexed stays, and there is nothing new to read.
   */
  kept?: boolean | undefined;
}

/** What a run reads: its sources, and whether the one source is a guess that a bare `a/b` names a Hub repo. */
export type Resolved =
  | { kind: "sources"; sources: TraceSource[]; hubGuess: string | null }
  | { kind: "note"; text: string };

/**
 * `owner/name` or `hf://datasets/owner/name` that is not a local path: a Hub agent-traces dataset. A path
 * that starts with `/`, `.` or `~`, or has more than two parts, is always local.
 */
function hubTraceRepo(path: string): string | null {
  if (existsSync(path)) return null;
  if (path.startsWith("hf://")) return /^hf:\/\/datasets\/([\w.-]+\/[\w.-]+)\/?$/.exec(path)?.[1] ?? null;
  if (/^[/.~\\]/.test(path)) return null;
  const m = /^([\w-][\w.-]*\/[\w.-]+)\/?$/.exec(path);
  return m === null || /\.(jsonl|json|parquet|db)$/i.test(path) ? null : (m[1] ?? null);
}

/** The sources a run reads, or a note when there is nothing to read (an empty file). */
export function resolveSources(opts: SourceOptions): Resolved {
  const repo = opts.path === undefined ? null : hubTraceRepo(opts.path);
  if (repo !== null) {
    if (opts.models === undefined)
      throw new FunesError(
        "bad_input",
        `can't reach the Hub to index ${repo} — run it from the funes CLI, which gives the Hub's settings`,
      );
    const client = hubClient(opts.models);
    const hubGuess = opts.path?.startsWith("hf://") ? null : repo;
    return {
      kind: "sources",
      sources: [new HubTraceSource({ client, hubCache: opts.models.hubCache, repo })],
      hubGuess,
    };
  }
  if (opts.path !== undefined) {
    try {
      return { kind: "sources", sources: sourcesForPath(opts.path, opts.harness), hubGuess: null };
    } catch (err) {
      if (!(err instanceof TracePathError)) throw err;
      switch (err.reason) {
        case "empty":
          return { kind: "note", text: err.message };
        case "not_transcript":
          throw new FunesError("bad_input", err.message, err);
        case "missing":
          throw new FunesError("no_sessions", `${err.message} — check the path`, err);
        case "no_hermes_db":
          throw new FunesError("no_sessions", err.message, err);
      }
    }
  }
  const sources = knownSources(opts.home, opts.harness, opts.agentEnv);
  if (sources.length > 0) return { kind: "sources", sources, hubGuess: null };
  const tilde = (p: string) => (p.startsWith(`${opts.home}/`) ? `~${p.slice(opts.home.length)}` : p);
  const none =
    opts.harness !== undefined
      ? `no ${opts.harness} session dir found on this machine`
      : `no local sessions found (looked in ${knownRoots(opts.home, opts.agentEnv)
          .map((r) => tilde(r.path))
          .join(", ")})`;
  if (opts.kept === true)
    return {
      kind: "note",
      text: `${none} — nothing new to index; the memory keeps every session it indexed before`,
    };
  if (opts.harness !== undefined)
    throw new FunesError("no_sessions", `${none} — pass the path to its sessions`);
  throw new FunesError("no_sessions", `${none} — pass a path to \`funes index\`, or run an agent here first`);
}
