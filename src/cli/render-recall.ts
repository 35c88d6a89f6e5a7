/**
 * `funes recall` for people on a terminal (the agent format, byte for byte the reference's, is
 * `formatRecallAgent`): per hit one header line, the passage wrapped to the terminal, each neighbour on one
 * line, and the `funes get` command that reads around it. Notes are not part of it: they go to stderr.
 */
import type { RecallHit, RecallResult } from "../commands/index.js";
import {
  clip,
  flattenSpaces,
  paint,
  readableTool,
  sessionLabels,
  type TerminalStyle,
  wrapText,
} from "./terminal-text.js";

/** Lines of one passage shown before the rest is left to `funes get`. */
const PASSAGE_LINES = 12;

const AGENT: Record<string, string> = {
  claude_code: "claude",
  codex: "codex",
  pi: "pi",
  hermes: "hermes",
  gemini: "gemini",
  qwen: "qwen",
};

/** `2026-11-02T10:00:05.000Z` → `2026-11-02 10:00` (as stored: UTC). */
function when(ts: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(ts);
  return m === null ? ts : `${m[1]} ${m[2]}`;
}

/** Options of the people's view. */
export interface RecallHumanOptions extends TerminalStyle {
  /** The local memory's label: a hit from it needs no `--memory` in its `funes get` line. */
  defaultMemory: string;
}

function hitLines(h: RecallHit, n: number, label: string, o: RecallHumanOptions): string[] {
  const p = paint(o.color);
  const meta = [when(h.ts), AGENT[h.harness] ?? h.harness, `${h.workdir}/${label}`, h.blockType].join(" · ");
  const score = `score ${h.score.toFixed(2)}`;
  const number = `${n}.`;
  const room = o.width - number.length - score.length - 4;
  const lines = [`${p.bold(p.cyan(number))} ${clip(meta, Math.max(10, room))}  ${p.dim(score)}`];
  const passage = wrapText(readableTool(h.text, h.blockType), o.width);
  lines.push(...passage.slice(0, PASSAGE_LINES));
  if (passage.length > PASSAGE_LINES) lines.push(p.dim(`… ${passage.length - PASSAGE_LINES} more lines`));
  for (const nb of h.neighbors)
    lines.push(
      p.dim(
        clip(
          `  ~ ${nb.role} ${nb.blockType}: ${flattenSpaces(readableTool(nb.text, nb.blockType))}`,
          o.width,
        ),
      ),
    );
  const memory = h.memory === "" || h.memory === o.defaultMemory ? "" : ` --memory ${h.memory}`;
  lines.push(p.yellow(`  → funes get ${h.sessionId} ${h.turnUuid}${memory}`));
  return lines;
}

/** The people's view of a recall; `no results` (with its newline) when nothing matched. */
export function formatRecallHuman(r: RecallResult, o: RecallHumanOptions): string {
  if (r.hits.length === 0) return "no results\n";
  const labels = sessionLabels(r.hits.map((h) => h.sessionId));
  return r.hits
    .map((h, i) => `${hitLines(h, i + 1, labels.get(h.sessionId) ?? h.sessionId, o).join("\n")}\n`)
    .join("\n");
}
