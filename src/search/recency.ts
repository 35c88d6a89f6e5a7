/**
 * Recency weighting and time filters. Ages are whole seconds between `now` and the turn's timestamp,
 * converted to days; a timestamp that does not parse (or lies in the future) counts as fresh, as in the
 * reference.
 */

const DAY_MS = 86_400_000;

/** 0.5^(age_days / half_life); 1 when half-life ≤ 0 or the timestamp does not parse. */
export function recencyWeight(ts: string, now: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0) return 1;
  const t = parseTimestamp(ts);
  if (t === null) return 1;
  const ageDays = Math.max(0, Math.trunc((now - t) / 1000)) / 86_400;
  return 0.5 ** (ageDays / halfLifeDays);
}

/** Epoch ms of an RFC 3339 / ISO timestamp (any offset), else null. Bare numbers are not timestamps. */
export function parseTimestamp(ts: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}/.test(ts)) return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : t;
}

/**
 * A `--since`/`--until` value: a date (`2026-06-01`, UTC midnight), a timestamp (`2026-06-01T12:00:00Z`),
 * or a span back from now (`90m`, `12h`, `7d`, `2w`). Null when it is none of these.
 */
export function parseTimeBound(value: string, now: number): number | null {
  const v = value.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$/i.exec(v);
  if (rel !== null) {
    const n = Number(rel[1]);
    const unit = (rel[2] as string).toLowerCase();
    const ms = unit === "w" ? 7 * DAY_MS : unit === "d" ? DAY_MS : unit === "h" ? 3_600_000 : 60_000;
    return now - n * ms;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    return Number.isNaN(t) ? null : t;
  }
  return parseTimestamp(v);
}

/** True when `ts` lies within [since, until] (bounds optional); unparseable timestamps fail any bound. */
export function withinTime(ts: string, since: number | null, until: number | null): boolean {
  if (since === null && until === null) return true;
  const t = parseTimestamp(ts);
  if (t === null) return false;
  return (since === null || t >= since) && (until === null || t <= until);
}
