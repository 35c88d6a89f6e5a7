/**
 * A project memory's curation decisions on this machine: `$FUNES_HOME/curation/<owner>--<name>[--prefix]`,
 * one line per session, editable by people and agents (the reference's line format):
 *
 *     include <session_id> [<reviewed chunk count>]   # <date> <first prompt>
 *     exclude <session_id>   # <date> <first prompt>
 *
 * `#` starts a comment; blank lines are ignored; a line that fits neither form is reported and leaves its
 * session undecided. Recording a decision drops every line naming that session and appends the new one,
 * keeping all other lines as they were.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { remoteFileName, writeFileAtomicSync } from "../memory/index.js";
import type { HubLocation } from "../remote/index.js";

/** One session's decision. */
export type Decision =
  | { kind: "include"; sessionId: string; reviewed: number | null }
  | { kind: "exclude"; sessionId: string };

/** The decisions file, read. */
export interface Decisions {
  bySession: Map<string, Decision>;
  /** Lines that fit neither form. */
  unrecognized: string[];
}

/** Where a memory's decisions live. */
export function curationPath(funesHome: string, loc: HubLocation): string {
  return join(funesHome, "curation", remoteFileName(loc));
}

function parseLine(raw: string): Decision | "blank" | null {
  const body = (raw.includes("#") ? raw.slice(0, raw.indexOf("#")) : raw).trim();
  if (body === "") return "blank";
  const words = body.split(/\s+/);
  if (words[0] === "include" && (words.length === 2 || words.length === 3)) {
    const n = words[2] === undefined ? null : Number(words[2]);
    if (n !== null && !(Number.isInteger(n) && n >= 0)) return null;
    return { kind: "include", sessionId: words[1] as string, reviewed: n };
  }
  if (words[0] === "exclude" && words.length === 2) return { kind: "exclude", sessionId: words[1] as string };
  return null;
}

/** Reads the decisions (a missing file holds none). */
export function readDecisions(path: string): Decisions {
  const bySession = new Map<string, Decision>();
  const unrecognized: string[] = [];
  if (!existsSync(path)) return { bySession, unrecognized };
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const d = parseLine(line);
    if (d === "blank") continue;
    if (d === null) unrecognized.push(line.trim());
    else bySession.set(d.sessionId, d);
  }
  return { bySession, unrecognized };
}

/** The line funes writes for a decision, with its comment (date and first prompt) when there is one. */
export function decisionLine(d: Decision, comment: string): string {
  const head =
    d.kind === "include"
      ? `include ${d.sessionId}${d.reviewed === null ? "" : ` ${d.reviewed}`}`
      : `exclude ${d.sessionId}`;
  const c = comment.replace(/\s+/g, " ").trim();
  return c === "" ? head : `${head}   # ${c}`;
}

/** Records decisions: lines naming these sessions are replaced by the new ones, at the end. */
export function recordDecisions(path: string, decisions: { decision: Decision; comment: string }[]): void {
  const named = new Set(decisions.map((d) => d.decision.sessionId));
  const kept = (existsSync(path) ? readFileSync(path, "utf8").split("\n") : []).filter((line) => {
    const d = parseLine(line);
    return !(d !== null && d !== "blank" && named.has(d.sessionId));
  });
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  const text = [...kept, ...decisions.map((d) => decisionLine(d.decision, d.comment))].join("\n");
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomicSync(path, `${text}\n`);
}
