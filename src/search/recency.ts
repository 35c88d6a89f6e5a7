/**
 * Recency among near-equals, and time filters. Ages are days between `now` and the turn's timestamp; a
 * timestamp that does not parse (or lies in the future) counts as fresh, as in the reference.
 */

const DAY_MS = 86_400_000;

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
    const t = now - n * ms;
    // A span past the Date range (`99999999999999999999d`) is no bound at all: say so, never query with it.
    return Number.isNaN(new Date(t).getTime()) ? null : t;
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

/**
 * Most a passage's score can lose to age. Recency works among near-equals only: a passage is marked down
 * when another passage at least (1 − this) as relevant is newer, by up to this share, growing with the age
 * gap on the half-life's scale. So a newer passage of similar relevance (a decision revised later) ranks
 * first, and a passage more than 1 / (1 − this) times as relevant as another is never ranked below it.
 *
 * Near-equal means close by every judge, not only on average: where both passages carry a judge's own
 * score in [0, 1] (the keyword leg's, the vector leg's, the cross-encoder's), the newer may be at most this
 * much below the older on it. Two passages the judges disagree on (the cross-encoder finds one and the
 * keyword leg the other) can blend to the same relevance; that is a disagreement to settle by relevance,
 * not a tie for age to break.
 */
export const RECENCY_SPAN = 0.25;

/** What recency needs of a ranked passage. */
export interface Dated {
  relevance: number;
  ts: string;
  /**
   * Each judge's own score in [0, 1], or null where it did not score this passage; the same judges, in the
   * same order, for every passage ranked together.
   */
  judges?: (number | null)[];
  /**
   * The question's content words the passage holds (query-words.ts `matchedStems`), or undefined when not
   * known. A newer passage is a near-equal only if it holds every one the older holds: a revision speaks
   * of the same things as what it revises; a passage that matches other words of the question equally
   * well is another answer, for relevance to settle, not age.
   */
  words?: ReadonlySet<string>;
}

/** Whether `newer` is a near-equal of `older`: about as relevant, and no judge finds it clearly worse. */
function nearEqual(older: Dated, newer: Dated): boolean {
  if (newer.relevance < (1 - RECENCY_SPAN) * older.relevance) return false;
  if (older.words !== undefined && newer.words !== undefined)
    for (const w of older.words) if (!newer.words.has(w)) return false;
  const a = older.judges ?? [];
  const b = newer.judges ?? [];
  return a.every((x, k) => {
    const y = b[k];
    return x === null || y === null || y === undefined || y >= x - RECENCY_SPAN;
  });
}

/**
 * The factor each passage's relevance is multiplied by, in [1 − RECENCY_SPAN, 1]. A passage with a newer
 * near-equal is moved towards just below it, all the way once the newer one is a half-life or more newer,
 * in proportion below that: factor 1 − (1 − r) × min(1, gap / half-life), r the newer's relevance over its
 * own (at most 1, and at least 1 − RECENCY_SPAN, which near-equal requires), taken at its lowest over its
 * newer near-equals. So a revision made weeks after what it revises comes first, two passages said the same
 * afternoon keep their relevance order nearly unchanged, and no passage loses more than RECENCY_SPAN.
 * All 1 when half-life ≤ 0 (recency off). Undated passages count as fresh, as in the reference.
 */
export function recencyFactors(items: Dated[], now: number, halfLifeDays: number): number[] {
  if (halfLifeDays <= 0) return items.map(() => 1);
  const ages = items.map((it) => {
    const t = parseTimestamp(it.ts);
    return t === null ? 0 : Math.max(0, now - t) / DAY_MS;
  });
  return items.map((it, i) => {
    const age = ages[i] as number;
    let factor = 1;
    items.forEach((other, j) => {
      const gap = age - (ages[j] as number);
      if (gap <= 0 || !nearEqual(it, other)) return;
      // Just below the newer one: the ratio less a hair, so equal relevance orders newest first.
      const r = Math.min(1, it.relevance > 0 ? other.relevance / it.relevance : 1) * (1 - 1e-6);
      factor = Math.min(factor, 1 - (1 - r) * Math.min(1, gap / halfLifeDays));
    });
    return Math.max(1 - RECENCY_SPAN, factor);
  });
}
