/**
 * `state.json`: which units are indexed at which signature (docs/memory-format.md#incremental-index-state),
 * in the reference's format so either tool can pick up where the other stopped. A file that does not parse is
 * not trusted: it is treated as empty and rewritten, and ids already stored keep the rerun from adding
 * duplicates.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic-file.js";

/** Tier levels, lowest first; a unit indexed at a level is current for every level up to it. */
export const LEVELS = ["Text", "ToolUse", "ToolResult"] as const;
/** A level name as stored. */
export type Level = (typeof LEVELS)[number];

/**
 * One unit's record. `sig` and `level` are the reference's; the rest say how the unit was read, so a
 * change of reader is noticed (the reference ignores fields it does not know, and entries it writes lack
 * them).
 */
export interface UnitState {
  sig: string;
  level: Level;
  /** The source kind that read it (`claude_code`, `codex`, `pi`, `hermes`). */
  harness?: string;
  /** That source's parser version. */
  parser?: number;
  /** Chunks the unit yielded (stored now or before). */
  chunks?: number;
}

/** How a source reads units now, to compare with how a recorded unit was read. */
export interface Reader {
  harness: string;
  parser: number;
}

/** The state file's contents, and whether it had to be discarded. */
export interface LoadedState {
  units: Map<string, UnitState>;
  discarded: "corrupt" | null;
}

/** Reads state.json; missing → empty; corrupt or of another shape → empty, flagged. */
export function loadIndexState(path: string): LoadedState {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { units: new Map(), discarded: null };
  }
  try {
    const raw = JSON.parse(text) as unknown;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error("not an object");
    const units = new Map<string, UnitState>();
    for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
      const e = v as {
        sig?: unknown;
        level?: unknown;
        harness?: unknown;
        parser?: unknown;
        chunks?: unknown;
      } | null;
      if (typeof e?.sig !== "string" || !LEVELS.includes(e.level as Level))
        throw new Error(`bad entry ${key}`);
      const entry: UnitState = { sig: e.sig, level: e.level as Level };
      if (typeof e.harness === "string") entry.harness = e.harness;
      if (typeof e.parser === "number") entry.parser = e.parser;
      if (typeof e.chunks === "number") entry.chunks = e.chunks;
      units.set(key, entry);
    }
    return { units, discarded: null };
  } catch {
    return { units: new Map(), discarded: "corrupt" };
  }
}

/**
 * True when the unit is recorded at this signature at `level` or above and, given the `reader`, was read
 * by the same harness with a parser at least as new. Entries without those fields (the reference's, or an
 * older funes's) count as read by the right harness with parser 1: where a parser has since learned more
 * (Claude's saved tool outputs, agent boilerplate), the unit is read once more.
 */
export function isUnitCurrent(
  units: Map<string, UnitState>,
  key: string,
  signature: string | null,
  reader?: Reader,
  level: Level = "ToolResult",
): boolean {
  if (signature === null) return false;
  const e = units.get(key);
  if (e === undefined || e.sig !== signature || LEVELS.indexOf(e.level) < LEVELS.indexOf(level)) return false;
  if (reader === undefined) return true;
  if (e.harness !== undefined && e.harness !== reader.harness) return false;
  // No parser recorded: read by the first parser (the reference's, or an older funes's).
  return (e.parser ?? 1) >= reader.parser;
}

/** Writes state.json atomically (temp file, then rename), pretty-printed like the reference. */
export async function saveIndexState(path: string, units: Map<string, UnitState>): Promise<void> {
  const obj: Record<string, UnitState> = {};
  for (const [k, v] of [...units.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) obj[k] = v;
  await writeFileAtomic(path, `${JSON.stringify(obj, null, 2)}\n`);
}
