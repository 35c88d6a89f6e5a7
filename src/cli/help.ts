/**
 * Help that reads well at 80 columns and errors that name what the user typed. cac builds the help
 * sections; this reshapes them: a command's own `--help` opens with what it does and lists its actions,
 * descriptions wrap at word boundaries under their column, defaults are shown only where they are true, and
 * examples read as commands. Unknown commands and flags get the closest known one as a suggestion.
 * By hand because cac, whose help callback this is, neither wraps, nor suggests, nor words errors so.
 */
import type { CAC, Command } from "cac";
import { wrapText } from "./terminal-text.js";

/** A section of cac's help. */
export interface HelpSection {
  title?: string;
  body: string;
}

/** What `funes <command> --help` adds beyond cac's own help. */
export interface HelpExtras {
  /** The actions of a command that takes one (`models status|pull`), with what each does. */
  actions: Record<string, [string, string][]>;
  /** Columns to fit. */
  width: number;
}

/** Lays out `  term  description` lines: descriptions wrapped at spaces, continuation lines under them. */
export function twoColumns(rows: [string, string][], width: number, indent = 2): string {
  const termWidth = Math.max(0, ...rows.map(([t]) => t.length));
  // A term column wider than ~40% of the line leaves too little room: put descriptions on their own lines.
  const stacked = indent + termWidth + 2 > width * 0.4;
  const col = stacked ? indent + 4 : indent + termWidth + 2;
  const lines: string[] = [];
  for (const [term, desc] of rows) {
    const wrapped = desc.trim() === "" ? [] : wrapText(desc.trim(), Math.max(20, width - col));
    if (stacked) {
      lines.push(`${" ".repeat(indent)}${term}`);
      for (const w of wrapped) lines.push(`${" ".repeat(col)}${w}`);
    } else {
      const [first = "", ...rest] = wrapped;
      lines.push(`${" ".repeat(indent)}${term.padEnd(termWidth)}  ${first}`.trimEnd());
      for (const w of rest) lines.push(`${" ".repeat(col)}${w}`);
    }
  }
  return lines.join("\n");
}

/** cac's `  name  description (default: x)` lines back into rows; `--no-…` flags lose their "(default: true)". */
function rowsOf(body: string): [string, string][] {
  return body.split("\n").map((line) => {
    const m = /^\s+(\S(?:.*?\S)?)\s{2,}(.*)$/.exec(line);
    if (m === null) return [line.trim(), ""];
    const term = m[1] ?? "";
    let desc = (m[2] ?? "").trim();
    // cac shows a negated flag's implicit default, which reads as if the flag were on by default.
    if (term.startsWith("--no-")) desc = desc.replace(/\s*\(default: true\)$/, "");
    return [term, desc];
  });
}

/** The help callback: reshapes cac's sections for the matched command (or the command list). */
export function reshapeHelp(cli: CAC, extras: HelpExtras) {
  return (sections: HelpSection[]): HelpSection[] => {
    const command: Command | undefined = cli.matchedCommand;
    const out: HelpSection[] = [];
    for (const s of sections) {
      if (s.title === undefined) {
        // The first line: what the command does (its own --help), or what funes is.
        const what =
          command === undefined
            ? `funes ${cli.globalCommand.versionNumber ?? ""} — a memory of your coding-agent sessions: index, recall, publish`
            : command.description;
        out.push({ body: wrapText(what, extras.width).join("\n") });
      } else if (s.title === "Usage") {
        out.push(s);
        const actions = command === undefined ? undefined : extras.actions[command.name];
        if (actions !== undefined) out.push({ title: "Actions", body: twoColumns(actions, extras.width) });
      } else if (s.title === "Commands" || s.title === "Options") {
        out.push({ title: s.title, body: twoColumns(rowsOf(s.body), extras.width) });
      } else if (s.title === "Examples") {
        out.push({
          title: s.title,
          body: s.body
            .split("\n")
            .map((l) => `  $ ${l}`)
            .join("\n"),
        });
      } else if (s.title.startsWith("For more info")) {
        out.push({ body: "Run `funes <command> --help` for what a command does, its options and examples." });
      } else out.push(s);
    }
    return out;
  };
}

/**
 * Edit distance (insertions, deletions, substitutions, and two swapped neighbours as one edit: `serach`),
 * for suggestions.
 */
function distance(a: string, b: string): number {
  const rows = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const prev = rows[i - 1] ?? [];
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        cur[j] = Math.min(cur[j] ?? 0, (rows[i - 2]?.[j - 2] ?? 0) + 1);
    }
    rows.push(cur);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/**
 * The known word closest to `typed`, when it is close enough to be a likely typo (or a prefix of one).
 * Case is ignored (`RECALL`).
 */
export function closest(typed: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  const t = typed.toLowerCase();
  for (const k of known) {
    const d = k.startsWith(t) && t.length >= 2 ? 0.5 : distance(t, k);
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  // A short word two edits away is another word, not a typo of it (`vim` is not `pi`, `tcsh` not `bash`).
  const allowed = t.length <= 4 ? 1 : Math.max(2, Math.floor(t.length / 3));
  return best !== null && bestD <= allowed ? best : null;
}

/** Words people type for a funes command they mean (suggestions only; never run). */
const SYNONYMS: Record<string, string> = {
  search: "recall",
  find: "recall",
  query: "recall",
  show: "get",
  read: "get",
  grep: "scan",
  list: "status",
  ls: "status",
  info: "status",
  stats: "status",
  publish: "push",
  upload: "push",
  sync: "push",
  gc: "compact",
  optimize: "compact",
  vacuum: "compact",
  squash: "compact",
  install: "add",
  setup: "add",
  uninstall: "remove",
  delete: "forget",
  rm: "forget",
  serve: "mcp",
  version: "--version",
};

const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The flags an option's usage names, as typed: `-k, --k <n>` → `-k`, `--k`. */
export const flagsIn = (usage: string): string[] => usage.match(/--?[A-Za-z][\w-]*/g) ?? [];

/** The long and short flags a command takes (as typed: `--dry-run`, `-k`), global ones included. */
export function flagsOf(cli: CAC, command: Command | undefined): string[] {
  const options = [...(command?.options ?? []), ...cli.globalCommand.options];
  return [...new Set(options.flatMap((o) => flagsIn(o.rawName)))];
}

/**
 * cac's "Unknown option `--dryRun`" rewritten: the flag as the user typed it (cac camel-cases names), and
 * the closest flag the command takes.
 */
export function unknownOptionMessage(message: string, argv: string[], cli: CAC): string | null {
  const m = /^Unknown option `(-{1,2})([^`]+)`$/.exec(message);
  if (m === null) return null;
  const name = m[2] ?? "";
  const typed =
    argv
      .filter((a) => a.startsWith("-"))
      .map((a) => a.split("=")[0] ?? a)
      // mri reads `--no-x` as x negated, so the name may have lost a `no-`.
      .find((a) =>
        [a.replace(/^-+/, ""), a.replace(/^-+(no-)?/, "")].some((n) => n === name || camel(n) === name),
      ) ?? `${m[1]}${name}`;
  const known = flagsOf(cli, cli.matchedCommand);
  const near = closest(typed, known);
  const where = cli.matchedCommand?.name ? `funes ${cli.matchedCommand.name} --help` : "funes --help";
  return `unknown option ${typed}${near === null ? "" : ` — did you mean ${near}?`} (see ${where})`;
}

/** The error for an unknown command, with the closest one (or the one a common synonym means). */
export function unknownCommandMessage(typed: string, cli: CAC): string {
  if (typed.trim() === "") return `"${typed}" is not a command — run funes --help for the list`;
  const names = cli.commands.map((c) => c.name).filter((n) => n !== "");
  const synonym = closest(typed, Object.keys(SYNONYMS));
  const near = closest(typed, names) ?? (synonym === null ? null : (SYNONYMS[synonym] ?? null));
  return `unknown command "${typed}"${near === null ? "" : ` — did you mean \`funes ${near}\`?`} (see funes --help)`;
}

/**
 * Any of cac's usage errors in funes's words: the flag or argument as typed, what it takes, and where to
 * read more (cac says "Unused args: `c`" and "option `-k, --k <n>` value is missing"). Null for an
 * error it does not know.
 */
export function cacErrorMessage(message: string, argv: string[], cli: CAC): string | null {
  const command = cli.matchedCommand;
  const where = command?.name ? `funes ${command.name} --help` : "funes --help";
  const unknown = /^Unknown option `(-{1,2})([^`]+)`$/.exec(message);
  if (unknown !== null) {
    // `-k -1`, `--since -7d`: mri reads a negative value as an option of its own.
    const i = argv.findIndex((a) => /^-\d/.test(a) && a.startsWith(`${unknown[1]}${unknown[2]}`));
    const before = i > 0 ? argv[i - 1] : undefined;
    if (i >= 0 && before !== undefined && flagsOf(cli, command).includes(before))
      return `${before} takes no negative value, not "${argv[i]}"${["--since", "--until"].includes(before) ? " (spans like 7d already count back from now)" : ""} — see ${where}`;
    return unknownOptionMessage(message, argv, cli);
  }
  const missingValue = /^option `(.+?)` value is missing$/.exec(message);
  if (missingValue !== null) {
    const raw = missingValue[1] ?? "";
    const flags = flagsIn(raw);
    const typed = argv.find((a) => flags.includes(a.split("=")[0] ?? a)) ?? flags.at(-1) ?? raw;
    const value = /<([^>]+)>/.exec(raw)?.[1] ?? "value";
    return `${typed} needs a value: ${typed} <${value}> — see ${where}`;
  }
  if (message.startsWith("missing required args")) {
    const usage = command?.rawName ?? "";
    const example: unknown = command?.examples[0];
    return `funes ${command?.name ?? ""} needs ${usage.replace(/^\S+\s*/, "").replace(/\s*\[.*$/, "")}: funes ${usage}${typeof example === "string" ? `, e.g. ${example}` : ""} — see ${where}`;
  }
  const unused = /^Unused args: (.*)$/.exec(message);
  if (unused !== null) {
    const extra = (unused[1] ?? "").replace(/`/g, '"');
    return `funes ${command?.rawName ?? ""} takes no more words, got ${extra} too — quote a value with spaces, or see ${where}`;
  }
  return null;
}

/**
 * The error for a word a command does not take in its first place (`funes models pul`, `funes add claud`),
 * with the closest one it does; null when `typed` is one of `known` (in any case).
 */
export function unknownWordMessage(o: {
  command: string;
  what: string;
  typed: string;
  known: readonly string[];
}): string | null {
  if (o.known.includes(o.typed.toLowerCase())) return null;
  const near = closest(o.typed, o.known);
  const hint =
    near === null ? `see funes ${o.command} --help` : `did you mean \`funes ${o.command} ${near}\`?`;
  return `funes ${o.command} takes ${o.what} ${o.known.join(", ")}, not "${o.typed}" — ${hint}`;
}
