/**
 * `funes sessions`: the sessions a memory holds, newest first, a page at a time; for people two lines a
 * session (when, agent, repo, turns and id; the opening prompt), for agents the agent format, or JSON.
 */
import {
  DEFAULT_SESSIONS_LIMIT,
  FunesError,
  listValues,
  type SessionsResult,
  sessionsOfMemories,
} from "../commands/index.js";
import {
  formatSessionsAgent,
  oneLine,
  promptLine,
  sessionPlace,
  sessionsTrailer,
  terminalLine,
} from "../format/index.js";
import type { CliConfig } from "./config.js";
import { nonNegativeInt, outputFormat } from "./parse-args.js";
import { clip, fitText, layoutWidth } from "./terminal-text.js";

/** Flags of `funes sessions`. */
export interface SessionsFlags {
  repo?: unknown;
  since?: unknown;
  until?: unknown;
  limit?: unknown;
  offset?: unknown;
  memory?: unknown;
  fallbackLocal?: boolean;
  format?: unknown;
  json?: boolean;
}

/** The people's view: per session a line of facts and a line of its opening prompt, fitted to `width`. */
export function formatSessionsHuman(r: SessionsResult, opts: { width: number; color: boolean }): string {
  const dim = (s: string) => (opts.color ? `\x1b[2m${s}\x1b[22m` : s);
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  if (r.total === 0) return "no sessions\n";
  const several = r.memory.includes(", ");
  let out = "";
  for (const s of r.sessions) {
    // A stranger's fields lose their control characters (control pictures) before our colour is added.
    const when =
      s.started === "" ? "unknown time    " : terminalLine(s.started.slice(0, 16).replace("T", " "));
    // The id before the place: a long working directory is what the line's end cuts, never the id.
    const facts = [
      terminalLine(s.harness || "-"),
      `${s.turns} turn${s.turns === 1 ? "" : "s"}`,
      terminalLine(s.sessionId),
      terminalLine(sessionPlace(s)),
      ...(several ? [terminalLine(s.memory)] : []),
    ].join("  ");
    out += `${bold(when)}  ${clip(facts, Math.max(10, opts.width - 18))}\n`;
    const prompt = s.prompt === "" ? "(no user text)" : terminalLine(promptLine(s.prompt, opts.width - 2));
    out += `  ${dim(prompt)}\n`;
  }
  const trailer = sessionsTrailer(r, (n) => `--${n}`);
  return `${out}${dim(trailer)}\n`;
}

/** Prints a page of the sessions of the memories `--memory` names. */
export async function runSessions(flags: SessionsFlags, cfg: CliConfig): Promise<void> {
  // Every argument is checked before a memory is opened (a Hub memory may be fetched).
  if (flags.json === true && flags.format !== undefined)
    throw new FunesError("bad_input", "--json and --format both choose the output — give one of them");
  const format = outputFormat(flags.format, cfg.stdinTty && cfg.stdoutTty);
  const str = (v: unknown) => (v === undefined ? undefined : String(v));
  const result = await sessionsOfMemories(
    listValues(flags.memory),
    {
      repo: str(flags.repo),
      since: str(flags.since),
      until: str(flags.until),
      limit: flags.limit === undefined ? DEFAULT_SESSIONS_LIMIT : nonNegativeInt(flags.limit, "--limit"),
      offset: flags.offset === undefined ? 0 : nonNegativeInt(flags.offset, "--offset"),
      now: cfg.now(),
    },
    { ...cfg, fallbackLocal: flags.fallbackLocal === true },
  );
  // Notes are for the person: on stderr whatever the output, wrapped at spaces on a terminal.
  const noteWidth = cfg.stderrTty ? layoutWidth(cfg.columns) : null;
  process.stderr.write(fitText(result.notes.map((n) => `${oneLine(n)}\n`).join(""), noteWidth));
  if (flags.json === true) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (format === "agent") process.stdout.write(formatSessionsAgent({ ...result, notes: [] }));
  else
    process.stdout.write(formatSessionsHuman(result, { width: layoutWidth(cfg.columns), color: cfg.color }));
}
