/**
 * `funes get <session_id> <turn_uuid>`: a turn and the turns around it; `funes get <session_id> --from N
 * --to M`: a stretch of the session by position (with neither, its first turns).
 */
import {
  checkBounds,
  FunesError,
  getTurn,
  holdsSession,
  listValues,
  openReadTarget,
  type RangeResult,
  type ReadTarget,
  rangeOfMemories,
  resolveTurnIds,
  sessionHolder,
  settledMemories,
  settledTarget,
  type TurnView,
} from "../commands/index.js";
import {
  formatGetAgent,
  formatRangeAgent,
  oneLine,
  rangeTrailer,
  terminalLine,
  terminalText,
} from "../format/index.js";
import type { CliConfig } from "./config.js";
import { nonNegativeInt, outputFormat } from "./parse-args.js";
import { fitText, flattenSpaces, layoutWidth, readableTool } from "./terminal-text.js";

/** Flags of `funes get`. */
export interface GetFlags {
  window?: unknown;
  from?: unknown;
  to?: unknown;
  memory?: unknown;
  format?: unknown;
  highlight?: unknown;
  fallbackLocal?: boolean;
  json?: boolean;
}

/** A compact view for people: tool blocks on one line, prose wrapped, the asked-for turn marked. */
export function formatGetHuman(
  turns: TurnView[],
  opts: { width: number; color: boolean; highlight?: string },
): string {
  const dim = (s: string) => (opts.color ? `\x1b[2m${s}\x1b[22m` : s);
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const mark = (s: string) => {
    if (opts.highlight === undefined || opts.highlight.trim() === "") return s;
    const pattern = opts.highlight
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("\\s+");
    return s.replace(new RegExp(pattern, "gi"), (m) => (opts.color ? `\x1b[7m${m}\x1b[27m` : `»${m}«`));
  };
  const wrap = (text: string) =>
    text
      .split("\n")
      .flatMap((line) => {
        const out: string[] = [];
        let cur = "";
        for (const w of line.split(" ")) {
          if (cur !== "" && cur.length + 1 + w.length > opts.width) {
            out.push(cur);
            cur = w;
          } else cur = cur === "" ? w : `${cur} ${w}`;
        }
        out.push(cur);
        return out;
      })
      .join("\n");
  let out = "";
  for (const t of turns) {
    const head = `${t.center ? "▶ " : "  "}${t.role} · seq ${t.seq} · ${t.ts}`;
    out += `${t.center ? bold(head) : dim(head)}\n`;
    for (const b of t.blocks) {
      if (b.blockType === "tool_use" || b.blockType === "tool_result") {
        const one = flattenSpaces(readableTool(b.text, b.blockType));
        out += `${dim(`  ${one.length > opts.width - 2 ? `${one.slice(0, opts.width - 3)}…` : one}`)}\n`;
      } else out += `${mark(wrap(b.text))}\n`;
    }
    out += "\n";
  }
  return out;
}

/** A turn's blocks and header fields with control characters shown as control pictures (`␛[33m`). */
function safeTurns(turns: TurnView[]): TurnView[] {
  return turns.map((t) => ({
    ...t,
    ts: terminalLine(t.ts),
    role: terminalLine(t.role),
    blocks: t.blocks.map((b) => ({ blockType: terminalLine(b.blockType), text: terminalText(b.text) })),
  }));
}

/** Prints a turn and its window, or a stretch of the session (`--from`/`--to`, or no turn id). */
export async function runGet(
  sessionId: unknown,
  turnUuid: unknown,
  flags: GetFlags,
  cfg: CliConfig,
): Promise<void> {
  // Every argument is checked before a memory is opened (a Hub memory may be fetched).
  const window = flags.window === undefined ? 3 : nonNegativeInt(flags.window, "--window");
  const format = outputFormat(flags.format, cfg.stdinTty && cfg.stdoutTty);
  const from = flags.from === undefined ? undefined : nonNegativeInt(flags.from, "--from");
  const to = flags.to === undefined ? undefined : nonNegativeInt(flags.to, "--to");
  const ranged = from !== undefined || to !== undefined;
  let sid = String(sessionId);
  if (sid.trim() === "" || (turnUuid !== undefined && String(turnUuid).trim() === ""))
    throw new FunesError(
      "bad_input",
      "get needs a session id (and a turn id, or --from/--to), not an empty one — copy them from a recall hit's → get line, or a session's from funes sessions",
    );
  if (turnUuid !== undefined && ranged)
    throw new FunesError(
      "bad_input",
      "get takes a turn id or --from/--to, not both — pass a turn id to read around it (`get <session> <turn>`), or --from/--to for a stretch by position",
    );
  if (turnUuid === undefined && flags.window !== undefined)
    throw new FunesError(
      "bad_input",
      "--window counts turns around a turn id — give the turn id, or read a stretch with --from/--to instead",
    );
  checkBounds({ from, to });
  if (flags.json === true && flags.format !== undefined)
    throw new FunesError("bad_input", "--json and --format both choose the output — give one of them");
  const specs = listValues(flags.memory);
  const ctx = { ...cfg, fallbackLocal: flags.fallbackLocal === true };
  if (turnUuid === undefined) {
    const range = await rangeOfMemories(specs, sid, { from, to }, ctx);
    printRange(range, { format, json: flags.json === true, highlight: flags.highlight, cfg });
    return;
  }
  let tid = String(turnUuid);
  let target: ReadTarget;
  if (specs.length > 1) {
    // Several memories: the first that holds the session answers.
    const holder = await sessionHolder(await settledMemories(specs, ctx), sid);
    target = { memory: holder.memory, notes: holder.notes };
    sid = holder.sessionId;
  } else target = await settledTarget(await openReadTarget(specs[0], ctx));
  const { memory, notes } = target;
  // The short form the people's recall view prints (`funes get 7028acdd 4f1c2e9a`) names the full ids.
  ({ sessionId: sid, turnUuid: tid } = await resolveTurnIds(memory, sid, tid));
  const turns = await getTurn(memory, sid, tid, window);
  // A turn the memory does not hold is a failed run (the MCP tool says so in its text instead).
  if (turns === null)
    throw new FunesError(
      "no_memory",
      (await holdsSession(memory, sid))
        ? `turn "${tid}" is not in session "${sid}" of this memory — copy both ids from a recall hit's → get line (and its --memory)`
        : `no session of this memory is "${sid}" or begins with it — copy the session id from a recall hit's → get line or from funes sessions (and its --memory)`,
    );
  if (flags.json === true) {
    for (const n of notes)
      process.stderr.write(fitText(`${oneLine(n)}\n`, cfg.stderrTty ? layoutWidth(cfg.columns) : null));
    process.stdout.write(`${JSON.stringify({ sessionId: sid, turnUuid: tid, turns }, null, 2)}\n`);
    return;
  }
  if (format === "agent") {
    process.stdout.write(formatGetAgent(turns, sid, tid, notes));
    return;
  }
  const width = layoutWidth(cfg.columns);
  const highlight = flags.highlight === undefined ? {} : { highlight: String(flags.highlight) };
  for (const n of notes)
    process.stderr.write(fitText(`${oneLine(n)}\n`, cfg.stderrTty ? layoutWidth(cfg.columns) : null));
  // A stranger's texts lose their control characters (shown as control pictures, `␛[33m`) before any
  // colour of ours is added.
  process.stdout.write(formatGetHuman(safeTurns(turns), { width, color: cfg.color, ...highlight }));
}

/** Prints a stretch of a session: JSON, the agent format, or the people's view with its trailer. */
function printRange(
  r: RangeResult,
  o: { format: "human" | "agent"; json: boolean; highlight: unknown; cfg: CliConfig },
): void {
  const { cfg } = o;
  const notes = () => {
    for (const n of r.notes)
      process.stderr.write(fitText(`${oneLine(n)}\n`, cfg.stderrTty ? layoutWidth(cfg.columns) : null));
  };
  if (o.json) {
    notes();
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  if (o.format === "agent") {
    process.stdout.write(formatRangeAgent(r));
    return;
  }
  notes();
  const highlight = o.highlight === undefined ? {} : { highlight: String(o.highlight) };
  const view = formatGetHuman(safeTurns(r.turns), {
    width: layoutWidth(cfg.columns),
    color: cfg.color,
    ...highlight,
  });
  const trailer = terminalLine(rangeTrailer(r, (n) => `--${n}`));
  process.stdout.write(`${view}${cfg.color ? `\x1b[2m${trailer}\x1b[22m` : trailer}\n`);
}
