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
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HubLocation } from "../remote/index.js";

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

/**
 * The locally forgotten ids. A missing file is none; a file that does not parse is an error (silently
 * treating it as empty would let a re-index bring forgotten rows back).
 */
export function readForgotten(funesHome: string): Map<string, ForgottenEntry> {
  let text: string;
  try {
    text = readFileSync(forgottenPath(funesHome), "utf8");
  } catch {
    return new Map();
  }
  const raw = JSON.parse(text) as { ids?: Record<string, Partial<ForgottenEntry>> };
  const out = new Map<string, ForgottenEntry>();
  for (const [id, e] of Object.entries(raw.ids ?? {}))
    out.set(id, {
      session: String(e.session ?? ""),
      turn: String(e.turn ?? ""),
      source: String(e.source ?? ""),
      at: String(e.at ?? ""),
    });
  return out;
}

/** Writes the locally forgotten ids atomically (temp file, then rename). */
export async function writeForgotten(funesHome: string, ids: Map<string, ForgottenEntry>): Promise<void> {
  const sorted = Object.fromEntries([...ids.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const path = forgottenPath(funesHome);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ version: FILE_VERSION, ids: sorted }, null, 1)}\n`);
  await rename(tmp, path);
}

/** The repo path of a Hub memory's forgotten-ids file. */
export function remoteForgottenPath(loc: HubLocation): string {
  return loc.prefix === "" ? ".funes-forgotten.json" : `${loc.prefix}/.funes-forgotten.json`;
}

/** Parses a Hub memory's forgotten-ids file (null text → none). Unknown shapes → none, with ids kept if any. */
export function parseRemoteForgotten(text: string | null): Set<string> {
  if (text === null) return new Set();
  const raw = JSON.parse(text) as { ids?: unknown };
  return new Set(Array.isArray(raw.ids) ? raw.ids.filter((x): x is string => typeof x === "string") : []);
}

/** The file's text for a set of ids (sorted, one per line, so commits diff cleanly). */
export function renderRemoteForgotten(ids: Set<string>): string {
  const list = [...ids].sort();
  return `{"version": ${FILE_VERSION}, "ids": [\n${list.map((id) => `  ${JSON.stringify(id)}`).join(",\n")}\n]}\n`;
}
