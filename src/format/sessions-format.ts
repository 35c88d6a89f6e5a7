/**
 * How `sessions` reads for an agent (the MCP tool, `--format agent`): a header saying which page of how
 * many, one entry per session (when, agent, repo, turns, its `→ get` line, the opening prompt on one line),
 * and how to walk on when the page is not the last.
 */
import type { SessionEntry, SessionsResult } from "../commands/index.js";
import { oneLine, shellId, shellMemory } from "./safe-text.js";

/** Code points of an opening prompt an entry shows. */
export const PROMPT_CHARS = 240;

/** A prompt as one line of at most `max` code points (blanks folded; `…` where it was cut). */
export function promptLine(text: string, max: number): string {
  const cps = Array.from(text.replace(/\s+/g, " ").trim());
  return cps.length <= max ? cps.join("") : `${cps.slice(0, Math.max(0, max - 1)).join("")}…`;
}

/** Where a session ran: its repo, else its working directory, else `-`. */
export function sessionPlace(s: SessionEntry): string {
  return s.repo !== "" ? s.repo : s.workdir !== "" ? s.workdir : "-";
}

/** The trailer: which sessions these are of how many, and the offset that continues (when more remain). */
export function sessionsTrailer(r: SessionsResult, flag: (name: string) => string): string {
  if (r.total === 0) return "";
  const first = r.offset + 1;
  const last = r.offset + r.sessions.length;
  if (r.sessions.length === 0)
    return `nothing past ${flag("offset")} ${r.offset}: ${r.total} session${r.total === 1 ? "" : "s"} match — give a lower offset`;
  const shown = `sessions ${first}–${last} of ${r.total}, newest first`;
  return last < r.total ? `${shown}; ${flag("offset")} ${last} continues` : shown;
}

/**
 * The agent format of a `sessions` page. Every field may be a stranger's (a Hub memory): ids are shell
 * words, texts one line each (safe-text.ts). No sessions → `no sessions`, after the notes.
 */
export function formatSessionsAgent(r: SessionsResult): string {
  const note = r.notes.map((n) => `${oneLine(n)}\n`).join("");
  let out = note;
  if (r.total === 0) return `${note}no sessions\n`;
  for (const s of r.sessions) {
    const when = s.started === "" ? "unknown time" : oneLine(s.started);
    out += `[${when}] ${oneLine(s.harness || "-")} ${oneLine(sessionPlace(s))} turns=${s.turns}\n`;
    const memory = s.memory === "" ? "" : ` --memory ${shellMemory(s.memory)}`;
    out +=
      s.promptTurn === ""
        ? `  session ${shellId(s.sessionId)}${memory}\n`
        : `  → get ${shellId(s.sessionId)} ${shellId(s.promptTurn)}${memory}\n`;
    out += `  ${s.prompt === "" ? "(no user text)" : oneLine(promptLine(s.prompt, PROMPT_CHARS))}\n`;
  }
  return `${out}---\n${sessionsTrailer(r, (n) => n)}\n`;
}
