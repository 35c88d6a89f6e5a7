/**
 * Validation of option values (cac coerces digit strings to numbers and validates nothing).
 */
import { FunesError } from "../commands/index.js";

/** A whole number ≥ 1, or a clear error naming the flag. */
export function positiveInt(v: unknown, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new FunesError("bad_input", `${flag} takes a whole number ≥ 1, not "${String(v)}"`);
  return n;
}

/** A whole number ≥ 0. */
export function nonNegativeInt(v: unknown, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new FunesError("bad_input", `${flag} takes a whole number ≥ 0, not "${String(v)}"`);
  return n;
}

/** A number ≥ 0 (fractions allowed). */
export function nonNegativeNumber(v: unknown, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new FunesError("bad_input", `${flag} takes a number ≥ 0, not "${String(v)}"`);
  return n;
}
