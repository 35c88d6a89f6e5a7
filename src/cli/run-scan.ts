/**
 * `funes scan <needle> <session>`: an exact text looked for in one session's turns, in order; for people the
 * answer on its first line, each matching turn with the text around each match marked (and the turns
 * around it, dimmed); for agents the agent format; or JSON. A scan that finds nothing is not a failure
 * (exit 0, as an empty recall or listing is): its answer says so, with the turns it read.
 */
import { join } from "node:path";
import { FunesError, listValues, type ScanResult, scanOfMemories, shortTurnId } from "../commands/index.js";
import {
  formatScanAgent,
  matchExcerpt,
  oneLine,
  scanSummary,
  scanTrailer,
  shellId,
  shellMemory,
  terminalLine,
} from "../format/index.js";
import type { CliConfig } from "./config.js";
import { nonNegativeInt, outputFormat } from "./parse-args.js";
import { clip, fitText, flattenSpaces, layoutWidth, paint } from "./terminal-text.js";

/** Flags of `funes scan`. */
export interface ScanFlags {
  ignoreCase?: boolean;
  context?: unknown;
  from?: unknown;
  to?: unknown;
  memory?: unknown;
  fallbackLocal?: boolean;
  format?: unknown;
  json?: boolean;
}

/**
 * The people's view: the answer first, then each run of listed turns, the matches marked. `defaultMemory`:
 * the local memory's label, which a `funes get` line needs no `--memory` for.
 */
export function formatScanHuman(
  r: ScanResult,
  opts: { width: number; color: boolean; defaultMemory: string },
): string {
  const p = paint(opts.color);
  const mark = (s: string) => (opts.color ? `\x1b[7m${s}\x1b[27m` : `»${s}«`);
  let out = `${p.bold(terminalLine(scanSummary(r)))}\n`;
  r.turns.forEach((t, i) => {
    const head = `${t.center ? "▶ " : "  "}${terminalLine(t.role)} · seq ${t.seq} · ${terminalLine(t.ts)}`;
    const count = t.matches.length + t.unlisted;
    if (!t.center) {
      out += `${p.dim(head)}\n`;
      for (const b of t.blocks)
        out += `${p.dim(clip(`    ${terminalLine(flattenSpaces(b.text))}`, opts.width))}\n`;
    } else {
      out += `${p.bold(`${head} · ${count} match${count === 1 ? "" : "es"}`)}\n`;
      for (const m of t.matches) {
        const block = t.blocks[m.block];
        if (block === undefined) continue;
        const e = matchExcerpt(block.text, m);
        const label = `    ${terminalLine(block.blockType)}  `;
        // The match stays in view: the text before it gives way first when the line is too long.
        const room = Math.max(10, opts.width - Array.from(label).length - Array.from(e.match).length);
        const before = Array.from(terminalLine(e.before));
        const keep = Math.min(before.length, Math.floor(room / 2));
        const lead =
          keep < before.length ? `…${before.slice(before.length - keep + 1).join("")}` : before.join("");
        const tail = clip(terminalLine(e.after), Math.max(1, room - Array.from(lead).length));
        out += `${label}${lead}${mark(terminalLine(e.match))}${tail}\n`;
      }
      if (t.unlisted > 0) out += `${p.dim(`    (+${t.unlisted} more in this turn)`)}\n`;
      const memory = r.memory === opts.defaultMemory ? "" : ` --memory ${shellMemory(r.memory)}`;
      out += `${p.dim(`  → funes get ${shellId(r.sessionId)} ${shellId(shortTurnId(r.sessionId, t.turnUuid))}${memory}`)}\n`;
    }
    const next = r.turns[i + 1];
    if (next !== undefined && next.seq !== t.seq + 1) out += `${p.dim("--")}\n`;
  });
  const trailer = scanTrailer(r, (n) => `--${n}`);
  return trailer === "" ? out : `${out}${p.dim(trailer)}\n`;
}

/** Scans one session of the memories `--memory` names and prints what it found. */
export async function runScan(
  needle: unknown,
  sessionId: unknown,
  flags: ScanFlags,
  cfg: CliConfig,
): Promise<void> {
  // Every argument is checked before a memory is opened (a Hub memory may be fetched).
  if (flags.json === true && flags.format !== undefined)
    throw new FunesError("bad_input", "--json and --format both choose the output — give one of them");
  const format = outputFormat(flags.format, cfg.stdinTty && cfg.stdoutTty);
  const num = (v: unknown, flag: string) => (v === undefined ? undefined : nonNegativeInt(v, flag));
  const result = await scanOfMemories(
    listValues(flags.memory),
    {
      needle: String(needle ?? ""),
      sessionId: String(sessionId ?? ""),
      ignoreCase: flags.ignoreCase === true,
      context: num(flags.context, "--context") ?? 0,
      from: num(flags.from, "--from"),
      to: num(flags.to, "--to"),
    },
    { ...cfg, fallbackLocal: flags.fallbackLocal === true },
  );
  // Notes are for the person: on stderr whatever the output, wrapped at spaces on a terminal.
  const noteWidth = cfg.stderrTty ? layoutWidth(cfg.columns) : null;
  process.stderr.write(fitText(result.notes.map((n) => `${oneLine(n)}\n`).join(""), noteWidth));
  if (flags.json === true) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (format === "agent") process.stdout.write(formatScanAgent({ ...result, notes: [] }));
  else
    process.stdout.write(
      formatScanHuman(result, {
        width: layoutWidth(cfg.columns),
        color: cfg.color,
        defaultMemory: join(cfg.funesHome, "memory"),
      }),
    );
}
