/**
 * The agent format: what an agent reads from `recall` and `get` (an MCP tool's result, `--format agent`,
 * the passages of an `ask` prompt). The reference's format, byte for byte
 * (docs/memory-format.md#the-agent-format).
 */
import type { RangeResult, RecallResult, TurnView } from "../commands/index.js";
import { oneLine, safeText, shellId, terminalSafeRecall, unforgeable } from "./safe-text.js";

/**
 * The reference's agent format (docs/memory-format.md#the-agent-format), byte for byte: header, `→ get` line,
 * the full chunk text, `~` neighbour lines clipped to 160 code points, `---`. No hits → exactly `no results`.
 * Notes, if any, come first, one per line.
 */
export function formatRecallAgent(result: RecallResult): string {
  const r = terminalSafeRecall(result); // every field may be a stranger's (a Hub memory): safe-text.ts
  const note = r.notes.map((n) => `${n}\n`).join("");
  if (r.hits.length === 0) return `${note}no results`;
  let out = note;
  for (const h of r.hits) {
    const session8 = Buffer.from(h.sessionId, "utf8").subarray(0, 8).toString("utf8");
    out += `[${h.ts}] ${h.harness} ${h.workdir}/${session8} ${h.blockType}  score=${h.score.toFixed(3)}\n`;
    out += `  → get ${h.sessionId} ${h.turnUuid}${h.memory === "" ? "" : ` --memory ${h.memory}`}\n`;
    out += `${unforgeable(h.text)}\n`;
    for (const n of h.neighbors)
      out += `  ~ [${n.role} ${n.blockType} seq${n.seq}] ${Array.from(n.text).slice(0, 160).join("")}\n`;
    out += "---\n";
  }
  return out;
}

/** The reference's agent format for `get` (and its not-found line). */
export function formatGetAgent(
  turns: TurnView[] | null,
  sessionId: string,
  turnUuid: string,
  notes: string[] = [],
): string {
  // Texts and ids may be a stranger's (a Hub memory): see safe-text.ts.
  const note = notes.map((n) => `${oneLine(n)}\n`).join("");
  if (turns === null) return `${note}turn ${shellId(turnUuid)} not found in session ${shellId(sessionId)}\n`;
  let out = note;
  for (const t of turns) out += turnText(t);
  return out;
}

/** One turn as `get` gives it: `[ts] role seqN turn=<id>`, its blocks (a blank line between), `---`. */
function turnText(t: TurnView): string {
  return `[${oneLine(t.ts)}] ${oneLine(t.role)} seq${t.seq} turn=${shellId(t.turnUuid)}\n${t.blocks.map((b) => unforgeable(safeText(b.text))).join("\n\n")}\n---\n`;
}

/**
 * The last line of a range read: the positions shown, of how many turns in the session, and where to read
 * on (`seq 0–19: 20 of 786 turns of session <id>; from 20 continues`).
 */
export function rangeTrailer(r: RangeResult, flag: (name: string) => string): string {
  const first = r.turns[0];
  const last = r.turns[r.turns.length - 1];
  if (first === undefined || last === undefined) return "";
  const seq = first.seq === last.seq ? `seq ${first.seq}` : `seq ${first.seq}–${last.seq}`;
  const shown = `${seq}: ${r.turns.length} of ${r.sessionTurns} turn${r.sessionTurns === 1 ? "" : "s"} of session ${shellId(r.sessionId)}`;
  const more =
    r.unshown > 0
      ? `; ${r.unshown} more in the range not shown (a read stops past ${r.maxChars.toLocaleString("en-US")} characters)`
      : "";
  return r.next === null ? `${shown}${more}` : `${shown}${more}; ${flag("from")} ${r.next} continues`;
}

/** The agent format of a range read (`get --from/--to`): notes, each turn as `get` gives it, the trailer. */
export function formatRangeAgent(r: RangeResult): string {
  const note = r.notes.map((n) => `${oneLine(n)}\n`).join("");
  return `${note}${r.turns.map(turnText).join("")}${rangeTrailer(r, (n) => n)}\n`;
}
