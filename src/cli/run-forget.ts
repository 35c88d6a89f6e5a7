/**
 * `funes forget`: selectors from argv (read raw, so ids and texts keep their exact spelling: cac turns digit
 * strings into numbers), the preview, the question (on a terminal) or `--yes`, and what was done.
 */
import {
  type ForgetProposal,
  type ForgetSummary,
  FunesError,
  forgetRows,
  type PreviewSession,
} from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { askYesNo } from "./prompt.js";
import { clip, fitText, layoutWidth } from "./terminal-text.js";

/** Values of `--flag v` and `--flag=v` in argv, in order. */
export function rawValues(argv: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") break;
    if (a === flag && i + 1 < argv.length) out.push(argv[++i] as string);
    else if (a.startsWith(`${flag}=`)) out.push(a.slice(flag.length + 1));
  }
  return out;
}

/** `--turn <session> <turn>` pairs in argv. */
export function turnPairs(argv: string[]): { session: string; turn: string }[] {
  const out: { session: string; turn: string }[] = [];
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === "--turn") {
      const session = argv[i + 1];
      const turn = argv[i + 2];
      if (session === undefined || turn === undefined || turn.startsWith("--"))
        throw new FunesError("bad_input", "--turn takes two values: --turn <session_id> <turn_uuid>");
      out.push({ session, turn });
      i += 2;
    }
  return out;
}

const kib = (n: number) =>
  n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;

/**
 * The preview as lines; with `width` (a terminal's) each sample is cut to one row and every other line is
 * wrapped at spaces, so the preview takes the rows it has lines, none broken mid-word.
 */
export function previewLines(p: ForgetProposal, width: number | null = null): string[] {
  const sample = (l: string) => (width === null ? `    ${l}` : clip(`    ${l}`, width));
  const where = p.memory === "local" ? "the local memory" : p.memory;
  const s = p.preview;
  const lines = [
    s.chunks > 0
      ? `to forget from ${where}: ${s.chunks} chunk(s) in ${s.sessions.length} session(s)${s.copies > 0 ? `, ${s.copies} of them copies (earlier recalls that quoted the rest, read back)` : ""}${s.mentions.taken ? `, ${s.mentions.chunks} mentions` : ""}`
      : p.hub?.purgeHistory === true
        ? `nothing more in ${where} matches; --purge-history still removes what earlier forgets only hid`
        : `nothing in ${where} matches`,
  ];
  const listSessions = (list: PreviewSession[], indent: string) => {
    for (const x of list.slice(0, 10)) {
      const when = x.first === "" ? "" : `, ${x.first.slice(0, 16)} → ${x.last.slice(0, 16)}`;
      lines.push(`${indent}session ${x.sessionId}: ${x.chunks} chunk(s), ${x.turns} turn(s)${when}`);
      for (const l of x.samples) lines.push(sample(l));
    }
    if (list.length > 10) lines.push(`${indent}… and ${list.length - 10} more session(s)`);
  };
  const m = s.mentions;
  listSessions(s.sessions, "  ");
  if (m.chunks > 0) {
    lines.push(
      m.taken
        ? `  mentions: ${m.chunks} chunk(s) in ${m.sessions.length} session(s) carry what is forgotten (its rare words, numbers and names) with no recall tying them to it; taken too (--with-mentions)`
        : `  mentions: ${m.chunks} chunk(s) in ${m.sessions.length} session(s) carry what is forgotten (its rare words, numbers and names) with no recall tying them to it; they stay — add --with-mentions to take them too`,
    );
    listSessions(m.sessions, "    ");
  }
  if (p.released > 0) lines.push(`  ${p.released} chunk(s) forgotten earlier become indexable again`);
  if (p.hub !== null) {
    const h = p.hub;
    lines.push(
      `  one commit: ${h.adds} file(s) added (${kib(h.bytes)})${h.deletes > 0 ? `, ${h.deletes} deleted` : ""}; every funes push leaves these chunks out from now on`,
    );
    if (h.purgeHistory)
      lines.push(
        `  --purge-history: ${h.rewritten} other chunk(s) are written again, the branch's history is squashed into one commit — old commit ids stop resolving and readers re-download the rewritten files`,
        "  out of reach: forks, PR refs, copies already downloaded, other machines' caches — rotate any leaked credential",
      );
    else
      lines.push(
        "  the rows stay in the repo's history (older commits); add --purge-history to remove them from it too",
      );
  }
  return width === null
    ? lines
    : lines.flatMap((l) => (l.startsWith("    ") ? [l] : fitText(l, width).split("\n")));
}

function doneLines(s: ForgetSummary): string[] {
  const where = s.memory === "local" ? "the local memory" : s.memory;
  if (s.memory === "local" || s.hub === null) {
    const lines = [
      `forgot ${s.forgotten} chunk(s) from ${where}${s.rewritten > 0 ? ` (${s.rewritten} kept chunk(s) rewritten)` : ""}; ${kib(s.bytesRemoved)} of old files removed from disk`,
    ];
    if (s.waitedForPush !== null)
      lines.push(
        `  waited for a push to ${s.waitedForPush} that was committing: it leaves these chunks out, or takes back any it had sent`,
      );
    if (s.remembered) lines.push("  `funes index` will not bring them back (`--allow-reindex` lets it)");
    else if (s.memory === "local")
      lines.push("  the next `funes index` may index them again from the transcripts");
    return lines;
  }
  const lines = [
    `forgot ${s.forgotten} chunk(s) from ${where} (commit ${(s.commit ?? "").slice(0, 8)}${s.attempts > 1 ? `, ${s.attempts} attempts` : ""})`,
  ];
  if (s.squashed !== null)
    lines.push(`  history squashed: the branch is now one commit (${s.squashed.slice(0, 8)})`);
  if (s.card === "refreshed") lines.push("  dataset card refreshed");
  lines.push(
    "  note: this machine's memory is unchanged; run the same forget without --memory to forget locally too",
  );
  return lines;
}

/** Runs a forget and prints what it did. */
export async function runForget(
  rest: unknown,
  flags: {
    memory?: unknown;
    regex?: boolean;
    purgeHistory?: boolean;
    allowReindex?: boolean;
    withMentions?: boolean;
    yes?: boolean;
    json?: boolean;
  },
  argv: string[],
  cfg: CliConfig,
): Promise<void> {
  const turns = turnPairs(argv);
  const extra = (Array.isArray(rest) ? rest : []).length - turns.length;
  if (extra > 0)
    throw new FunesError(
      "bad_input",
      "forget takes no arguments — say what to forget with --session, --turn, --match, --since or --until",
    );
  const memory = rawValues(argv, "--memory");
  const since = rawValues(argv, "--since");
  const until = rawValues(argv, "--until");
  const json = flags.json === true;
  const width = cfg.stdoutTty ? layoutWidth(cfg.columns) : null;
  let shown = false;
  const s = await forgetRows(
    {
      selectors: {
        sessions: rawValues(argv, "--session")
          .flatMap((v) => v.split(","))
          .map((v) => v.trim())
          .filter((v) => v !== ""),
        turns,
        match: rawValues(argv, "--match"),
        regex: flags.regex === true,
        since: since[since.length - 1],
        until: until[until.length - 1],
      },
      memory: memory[memory.length - 1],
      purgeHistory: flags.purgeHistory === true,
      allowReindex: flags.allowReindex === true,
      withMentions: flags.withMentions === true,
      now: cfg.now,
      confirm: async (p) => {
        if (!json) process.stdout.write(`${previewLines(p, width).join("\n")}\n`);
        shown = true;
        if (flags.yes === true) return true;
        if (cfg.stdinTty && cfg.stderrTty) {
          const yes = await askYesNo(
            p.preview.chunks === 0 ? "purge the history?" : `forget these ${p.preview.chunks} chunk(s)?`,
          );
          // Said no: a run that changed nothing because the user said so, the same exit code (2) as
          // off a terminal without --yes.
          if (!yes)
            throw new FunesError(
              "declined",
              "nothing was forgotten: you answered no — run it again and answer y, or pass --yes",
            );
          return true;
        }
        if (json) process.stdout.write(`${JSON.stringify({ ...p, done: false }, null, 2)}\n`);
        throw new FunesError(
          "declined",
          "nothing was forgotten — re-run with --yes to forget what the preview shows",
        );
      },
    },
    cfg,
  );
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  if (!shown) {
    process.stdout.write(`${previewLines(s, width).join("\n")}\n`);
    return;
  }
  if (!s.done) {
    process.stdout.write("nothing was forgotten\n");
    return;
  }
  process.stdout.write(fitText(`${doneLines(s).join("\n")}\n`, width));
}
