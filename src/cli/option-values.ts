/**
 * Option values as the user typed them, checked once for every command before it runs.
 *
 * cac parses with mri, which turns any value that reads as a number into one: `--match 007` became 7,
 * `--match 1e3` 1000, `--session 0x1f` 31 and `--memory ""` 0 — a forget or a recall of something the
 * user never typed. This restores each value-taking option's raw strings from argv, then applies the rules
 * every command shares: a value is never blank, and an option that is not repeatable is given once.
 * By hand: cac gives mri no string options (`type: [String]` makes "7" of `007`); parseArgs takes `-x` as a value.
 */
import type { CAC } from "cac";
import { flagsIn } from "./help.js";
import { UsageError } from "./usage-error.js";

/** Options a command takes more than once (each value, or a comma-separated list, adds to the others). */
const REPEATABLE: Record<string, readonly string[]> = {
  recall: ["memory"],
  ask: ["memory"],
  sessions: ["memory"],
  get: ["memory"],
  scan: ["memory"],
  push: ["sessions"],
  curate: ["include", "exclude"],
  forget: ["session", "turn", "match"],
};

/** Commands that read one memory: `--memory a,b` names two, which they cannot read together. */
const ONE_MEMORY = new Set(["status", "forget"]);

interface ValueOption {
  /** The option's keys in cac's parsed options (camel-cased names and aliases). */
  keys: string[];
  /** How the user may type it: `--half-life`, `-k`. */
  flags: string[];
}

/** The value-taking options of the matched command (and the global ones). */
function valueOptions(cli: CAC): ValueOption[] {
  const options = [...(cli.matchedCommand?.options ?? []), ...cli.globalCommand.options];
  return options
    .filter((o) => o.isBoolean !== true)
    .map((o) => ({ keys: o.names, flags: flagsIn(o.rawName) }));
}

/**
 * The raw values typed for each value-taking option, read from `args` the way mri reads them (`--flag value`,
 * `--flag=value`; a next word starting with `-` is not a value), up to `--`.
 */
function typedValues(args: string[], options: ValueOption[]): Map<ValueOption, string[]> {
  const found = new Map<ValueOption, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") break;
    if (!arg.startsWith("-")) continue;
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const option = options.find((o) => o.flags.includes(flag));
    if (option === undefined) continue;
    let value: string | undefined = eq === -1 ? "" : arg.slice(eq + 1);
    if (value === "") {
      const next = args[i + 1];
      // mri's rule: an empty `--flag=` or a bare `--flag` takes the next word unless it starts with "-".
      if (next !== undefined && !next.startsWith("-")) {
        value = next;
        i++;
      } else value = undefined;
    }
    if (value === undefined) continue;
    found.set(option, [...(found.get(option) ?? []), value]);
  }
  return found;
}

/**
 * Puts the typed strings back into cac's parsed options of the matched command, and refuses blank values,
 * an option given twice that takes one value, and several memories for a command that reads one. Throws
 * a UsageError naming the flag as typed.
 */
export function settleOptionValues(cli: CAC, args: string[]): void {
  const command = cli.matchedCommand?.name ?? "";
  const options = cli.options as Record<string, unknown>;
  const help = `see funes ${command} --help`;
  for (const [option, values] of typedValues(args, valueOptions(cli))) {
    const flag = args.find((a) => option.flags.includes(a.split("=")[0] ?? a)) ?? option.flags[0] ?? "";
    const key = option.keys.at(-1) ?? "";
    if (values.some((v) => v.trim() === ""))
      throw new UsageError(`${flag} needs a value, not an empty one — ${help}`);
    const repeatable = REPEATABLE[command]?.includes(key) === true;
    if (!repeatable && values.length > 1)
      throw new UsageError(
        `${flag} was given ${values.length} times (${values.map((v) => `"${v}"`).join(", ")}) — give it once`,
      );
    let value: string | string[] = repeatable && values.length > 1 ? values : (values[0] ?? "");
    if (key === "memory" && ONE_MEMORY.has(command) && typeof value === "string") {
      const specs = value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      if (specs.length === 0) throw new UsageError(`${flag} needs a value, not "${value}" — ${help}`);
      if (specs.length > 1)
        throw new UsageError(
          `funes ${command} reads one memory, and --memory "${value}" names ${specs.length} — run it once for each`,
        );
      value = specs[0] as string;
    }
    for (const k of option.keys) options[k] = value;
  }
}
