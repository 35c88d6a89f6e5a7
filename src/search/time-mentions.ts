/**
 * Times a question names ("on 9 November, 2022", "in March 2024", "2024-03-05", "in June", "in 2023"), and
 * how well a passage's own time answers them. A memory knows when every turn was said; a question that
 * names a time is asking about what was said then, so a passage from that time is better evidence than an
 * equal match from another. Only times written out are read: "last week" depends on when the question
 * was meant, which the text does not say (`--since` / `--until` say it exactly).
 */
import { parseTimestamp } from "./recency.js";

const DAY_MS = 86_400_000;

/**
 * How long after a named time a passage still speaks of it, days: people tell of what they did after they
 * did it ("last weekend we…"), so a passage up to this much later still counts, less the later it is.
 */
export const AFTER_DAYS = 14;

/** A named time: a span of UTC epoch ms, or a month of any year (`in June`). */
export type NamedTime = { kind: "span"; from: number; to: number } | { kind: "month"; month: number };

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
/** Month names and their three-letter forms (`sept` too), longest first so `june` wins over `jun`. */
const MONTH = String.raw`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`;
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
const YEAR = String.raw`((?:19|20)\d{2})`;

function monthIndex(name: string): number {
  const n = name.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(n));
}

function daySpan(y: number, m: number, d: number): NamedTime | null {
  const from = Date.UTC(y, m, d);
  const date = new Date(from);
  // 31 February is no date: refused, not rolled into March.
  if (d < 1 || date.getUTCMonth() !== m) return null;
  return { kind: "span", from, to: from + DAY_MS - 1 };
}

/**
 * The times a question names, most precise first: whole dates (`9 November 2022`, `November 9th, 2022`,
 * `2022-11-09`), else months of a year (`November 2022`), else months alone (`in June`; a bare `may` only
 * after `in`) and years alone (`in 2023`). Empty when it names none.
 */
export function timeMentions(query: string): NamedTime[] {
  const q = query.toLowerCase();
  const out: NamedTime[] = [];
  const add = (t: NamedTime | null) => {
    if (t !== null) out.push(t);
  };
  for (const m of q.matchAll(new RegExp(String.raw`\b${YEAR}-(\d{2})-(\d{2})\b`, "g")))
    add(daySpan(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  for (const m of q.matchAll(new RegExp(String.raw`\b${DAY}\s+(?:of\s+)?${MONTH},?\s+${YEAR}\b`, "g")))
    add(daySpan(Number(m[3]), monthIndex(m[2] as string), Number(m[1])));
  for (const m of q.matchAll(new RegExp(String.raw`\b${MONTH}\s+${DAY},?\s+${YEAR}\b`, "g")))
    add(daySpan(Number(m[3]), monthIndex(m[1] as string), Number(m[2])));
  if (out.length > 0) return out;
  for (const m of q.matchAll(new RegExp(String.raw`\b${MONTH},?\s+(?:of\s+)?${YEAR}\b`, "g"))) {
    const y = Number(m[2]);
    const mo = monthIndex(m[1] as string);
    out.push({ kind: "span", from: Date.UTC(y, mo, 1), to: Date.UTC(y, mo + 1, 1) - 1 });
  }
  if (out.length > 0) return out;
  for (const m of q.matchAll(
    /\b(january|february|march|april|may|june|july|august|september|october|november|december)\b/g,
  )) {
    // `may` is a month only where a month is expected ("in May", "since May").
    if (m[1] === "may" && !/\b(?:in|since|during|until|before|after|of)\s+may\b/.test(q)) continue;
    out.push({ kind: "month", month: monthIndex(m[1] as string) });
  }
  for (const m of q.matchAll(new RegExp(String.raw`\b(?:in|during|since|of|for)\s+${YEAR}\b`, "g"))) {
    const y = Number(m[1]);
    out.push({ kind: "span", from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) - 1 });
  }
  return out;
}

/**
 * How well a passage's time answers the named times, in [0, 1]: 1 within one, falling to 0 over
 * AFTER_DAYS after its end, 0 before it or when the passage has no readable time. Best over all of them.
 */
export function timeMatch(ts: string, named: NamedTime[]): number {
  if (named.length === 0) return 0;
  const t = parseTimestamp(ts);
  if (t === null) return 0;
  let best = 0;
  for (const n of named) {
    let from: number;
    let to: number;
    if (n.kind === "span") {
      from = n.from;
      to = n.to;
    } else {
      // The named month of the passage's own year, or of the year before (a January passage about December).
      const y = new Date(t).getUTCFullYear();
      const own = Date.UTC(y, n.month, 1);
      from = own <= t ? own : Date.UTC(y - 1, n.month, 1);
      to = Date.UTC(new Date(from).getUTCFullYear(), n.month + 1, 1) - 1;
    }
    if (t < from) continue;
    const late = (t - to) / DAY_MS;
    best = Math.max(best, late <= 0 ? 1 : Math.max(0, 1 - late / (AFTER_DAYS + 1)));
    if (best === 1) break;
  }
  return best;
}
