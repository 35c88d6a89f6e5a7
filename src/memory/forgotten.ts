/**
 * Forgotten ids: what `funes forget` took out of a memory, remembered so it does not come back.
 * - Locally, `$FUNES_HOME/forgotten.json` lists each id with its session, turn and time of forgetting, so a
 *   re-index skips those chunks and `--allow-reindex` can release them by session or turn.
 * - On the Hub, `<prefix>/.funes-forgotten.json` beside `chunks.lance` lists the ids only, and every funes
 *   push leaves those ids out, so a teammate's copy cannot bring them back. Lance (7.0.0 too) and the
 *   reference never read it (they read `chunks.lance/` only); a leading dot keeps dataset tools from
 *   taking it for data.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HubLocation } from "../remote/index.js";
import { writeFileAtomic } from "./atomic-file.js";
import { FunesError } from "./errors.js";

/** One locally forgotten chunk. */
export interface ForgottenEntry {
  session: string;
  turn: string;
  /** The transcript it came from. */
  source: string;
  /** When it was forgotten (ISO, UTC). */
  at: string;
}

const FILE_VERSION = 1;

/** `$FUNES_HOME/forgotten.json`. */
export function forgottenPath(funesHome: string): string {
  return join(funesHome, "forgotten.json");
}

/** A forgotten-ids file (local or the Hub's) that is not one funes wrote: reading on could bring rows back. */
export class ForgottenFileError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The locally forgotten ids. A missing file is none; a file that cannot be read, does not parse or has any
 * shape but `{"version": 1, "ids": {<id>: {session, turn, source, at}}}` is refused (fail
 * closed: counting it as empty would let a re-index bring forgotten rows back): a FunesError saying how to
 * repair it.
 */
export function readForgotten(funesHome: string): Map<string, ForgottenEntry> {
  const path = forgottenPath(funesHome);
  const damaged = (why: string) =>
    new FunesError(
      "bad_input",
      `${path} is damaged (${why}) — copy it back from a backup, or move it aside and run the forget of those chunks again (it lists what \`funes forget\` took out)`,
    );
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw damaged(`unreadable: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw damaged("not valid JSON");
  }
  if (!isRecord(raw) || raw.version !== FILE_VERSION || !isRecord(raw.ids))
    throw damaged(`not a forgotten-ids file of version ${FILE_VERSION}`);
  const out = new Map<string, ForgottenEntry>();
  for (const [id, e] of Object.entries(raw.ids)) {
    if (!isRecord(e)) throw damaged(`the entry of ${JSON.stringify(id)} is not an object`);
    out.set(id, {
      session: String(e.session ?? ""),
      turn: String(e.turn ?? ""),
      source: String(e.source ?? ""),
      at: String(e.at ?? ""),
    });
  }
  return out;
}

/** Writes the locally forgotten ids atomically (temp file, then rename). */
export async function writeForgotten(funesHome: string, ids: Map<string, ForgottenEntry>): Promise<void> {
  const sorted = Object.fromEntries([...ids.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const path = forgottenPath(funesHome);
  await writeFileAtomic(path, `${JSON.stringify({ version: FILE_VERSION, ids: sorted }, null, 1)}\n`);
}

/** The repo path of a Hub memory's forgotten-ids file. */
export function remoteForgottenPath(loc: HubLocation): string {
  return loc.prefix === "" ? ".funes-forgotten.json" : `${loc.prefix}/.funes-forgotten.json`;
}

/**
 * Parses a Hub memory's forgotten-ids file (null text → none). Only its own shape, `{"version": 1, "ids":
 * [<string>, …]}`, is a list; anything else (a plain array, other keys' types, another version) is a
 * ForgottenFileError: a push that took it for empty would publish every forgotten row again.
 */
export function parseRemoteForgotten(text: string | null): Set<string> {
  if (text === null) return new Set();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ForgottenFileError("is not valid JSON");
  }
  if (!isRecord(raw) || raw.version !== FILE_VERSION || !Array.isArray(raw.ids))
    throw new ForgottenFileError(`is not {"version": ${FILE_VERSION}, "ids": […]}`);
  if (!raw.ids.every((x): x is string => typeof x === "string"))
    throw new ForgottenFileError("lists an id that is not a string");
  return new Set(raw.ids);
}

/** The file's text for a set of ids (sorted, one per line, so commits diff cleanly). */
export function renderRemoteForgotten(ids: Set<string>): string {
  const list = [...ids].sort();
  return `{"version": ${FILE_VERSION}, "ids": [\n${list.map((id) => `  ${JSON.stringify(id)}`).join(",\n")}\n]}\n`;
}
