/**
 * Validation of option values. Values arrive as typed (cli/option-values.ts keeps cac from turning them
 * into numbers), and only plain decimal digits count: `1e9`, `0x10` and `1_000` are refused rather than
 * read as something the user did not write.
 */
import { FunesError } from "../commands/index.js";

/** Plain decimal digits (a fraction only where `fraction`), as a number; null otherwise. */
function decimal(v: unknown, fraction: boolean): number | null {
  const s = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "";
  const ok = fraction ? /^\d+(\.\d+)?$|^\.\d+$/.test(s) : /^\d+$/.test(s);
  const n = Number(s);
  return ok && Number.isFinite(n) && (fraction || Number.isSafeInteger(n)) ? n : null;
}

/** A whole number ≥ 1, or a clear error naming the flag. */
export function positiveInt(v: unknown, flag: string): number {
  const n = decimal(v, false);
  if (n === null || n < 1)
    throw new FunesError("bad_input", `${flag} takes a whole number ≥ 1, not "${String(v)}" — try ${flag} 5`);
  return n;
}

/** A whole number ≥ 0. */
export function nonNegativeInt(v: unknown, flag: string): number {
  const n = decimal(v, false);
  if (n === null)
    throw new FunesError("bad_input", `${flag} takes a whole number ≥ 0, not "${String(v)}" — try ${flag} 2`);
  return n;
}

/** A number ≥ 0 (fractions allowed). */
export function nonNegativeNumber(v: unknown, flag: string): number {
  const n = decimal(v, true);
  if (n === null)
    throw new FunesError("bad_input", `${flag} takes a number ≥ 0, not "${String(v)}" — try ${flag} 7.5`);
  return n;
}

/**
 * `--format` of recall and get: as given (any case), else `human` on a terminal (stdin and stdout) and
 * `agent` when read by a program.
 */
export function outputFormat(v: unknown, terminal: boolean): "human" | "agent" {
  const format = v === undefined ? (terminal ? "human" : "agent") : String(v).trim().toLowerCase();
  if (format !== "human" && format !== "agent")
    throw new FunesError(
      "bad_input",
      `--format takes human or agent, not "${format}" — use --format agent or --format human`,
    );
  return format;
}
