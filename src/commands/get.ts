/**
 * `funes get`: a turn and the turns around it (seq ± window), each block's pieces rejoined with their
 * overlap removed, in the reference's agent format or a compact human view.
 */
import { stitch } from "../chunk/index.js";
import type { HitRow } from "../local/index.js";
import { noIndexMessage, openReader, type SingleMemory } from "../memory/index.js";
import { FunesError } from "./errors.js";

/** One reassembled turn. */
export interface TurnView {
  seq: number;
  turnUuid: string;
  ts: string;
  role: string;
  /** Rendered blocks in order (tool blocks keep their `[tool_use Name]` label). */
  blocks: { blockType: string; text: string }[];
  /** True for the turn asked for. */
  center: boolean;
}

/**
 * An id as pasted: blanks around it, a leading `→ get`, and one pair of quotes the shell did not remove
 * (`'abc'`, `"abc"`) taken off.
 */
export function pastedId(id: string): string {
  // An agent may pass the hit's whole `→ get <session>` words as the session id.
  const t = id.trim().replace(/^(→\s*)?(get\s+)?/, "");
  const m = /^(["'`“‘])(.*)(["'`”’])$/s.exec(t);
  return m === null ? t : (m[2] ?? "").trim();
}

/**
 * The turn and its window, or null when the turn is not in the memory. The ids are looked up as given
 * first (a stranger's id may hold spaces or quotes); only when that finds nothing are they looked up again
 * as pasted ids (pastedId).
 */
export async function getTurn(
  memory: SingleMemory,
  sessionId: string,
  turnUuid: string,
  window: number,
): Promise<TurnView[] | null> {
  const reader = await openReader(memory);
  if (reader === null) throw new FunesError("no_memory", noIndexMessage(memory));
  try {
    const exact = assembleTurns(await reader.session(sessionId), turnUuid, window);
    const [sid, tid] = [pastedId(sessionId), pastedId(turnUuid)];
    if (exact !== null || (sid === sessionId && tid === turnUuid)) return exact;
    return assembleTurns(await reader.session(sid), tid, window);
  } finally {
    reader.close();
  }
}

/** Groups a session's rows into turns around the one named (pure). */
export function assembleTurns(rows: HitRow[], turnUuid: string, window: number): TurnView[] | null {
  const center = rows.find((r) => r.turnUuid === turnUuid);
  if (center === undefined) return null;
  // Sessions are keyed by agent and id: another agent's session with the same id is not this one.
  const near = rows.filter((r) => r.harness === center.harness && Math.abs(r.seq - center.seq) <= window);
  const groups = new Map<string, HitRow[]>();
  for (const r of near) {
    const key = `${r.seq}\u0000${r.turnUuid}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [r]);
    else g.push(r);
  }
  const turns = [...groups.values()].map((g) => {
    g.sort((a, b) => a.blockIdx - b.blockIdx || a.splitIdx - b.splitIdx);
    const blocks: { blockType: string; text: string }[] = [];
    let i = 0;
    while (i < g.length) {
      const first = g[i] as HitRow;
      const pieces: string[] = [];
      while (i < g.length && (g[i] as HitRow).blockIdx === first.blockIdx)
        pieces.push((g[i++] as HitRow).text);
      blocks.push({ blockType: first.blockType, text: stitch(pieces) });
    }
    const head = g[0] as HitRow;
    return {
      seq: head.seq,
      turnUuid: head.turnUuid,
      ts: head.ts,
      role: head.role,
      blocks,
      center: head.turnUuid === turnUuid,
    };
  });
  return turns.sort(
    (a, b) => a.seq - b.seq || (a.turnUuid < b.turnUuid ? -1 : a.turnUuid > b.turnUuid ? 1 : 0),
  );
}
