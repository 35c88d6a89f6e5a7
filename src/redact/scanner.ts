/**
 * Is this text secret? funes's catalogue (keyword prefilter, then only the rules that could match) plus
 * secretlint's recommended preset. Pure: text in, findings out (the preset's rules are async, hence the
 * promise). Used at index time to redact, by the push gate and by scrub.
 */
import type { lintSource } from "@secretlint/core";
import { atEdge, entropy } from "./catalogue.js";
import { DECORATION_KEYWORDS, displayView } from "./display.js";
import { KeywordIndex } from "./prefilter.js";
import {
  REFLOW_KEYWORDS,
  type ReflowHints,
  reflowSplices,
  type Splice,
  type SplicedView,
  splicedView,
} from "./reflow.js";
import { catalogue } from "./rules.js";
import { commandOutputs } from "./rules-forms.js";
import { JOINS, scanWrapped } from "./unwrap.js";

/** One secret: its rule and its UTF-16 range in the scanned text. */
export interface Finding {
  rule: string;
  start: number;
  end: number;
}

type Lint = typeof lintSource;

/**
 * secretlint, loaded on first scan (its modules cost ~45 ms to import, which the MCP server's start need
 * not pay). It records performance marks for every rule of every call in a process-wide timeline that is
 * never cleared, and measures them by name lookups: thousands of scans (the push gate scans block by block)
 * then stall the process for seconds and leak memory. funes does not use the profile, so marks are not
 * recorded.
 */
let engine: Promise<{ lint: Lint; config: Parameters<Lint>[0]["options"]["config"] }> | null = null;

function secretlint() {
  engine ??= (async () => {
    const [{ lintSource: lint }, { secretLintProfiler }, { creator: recommended }] = await Promise.all([
      import("@secretlint/core"),
      import("@secretlint/profiler"),
      import("@secretlint/secretlint-rule-preset-recommend"),
    ]);
    secretLintProfiler.mark = () => {};
    return {
      lint,
      config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }] },
    };
  })();
  return engine;
}

/** Short rule name: `@secretlint/secretlint-rule-github` → `github`. */
function shortRule(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, "");
}

let keywordIndex: KeywordIndex | null = null;

/** What one pass of the keyword automaton says of a text. */
interface Selection {
  /** Indexes of the rules with a keyword in the text. */
  rules: number[];
  /** It may hold joined string literals (JOINS). */
  joins: boolean;
  /** It may hold display decoration (DECORATION_KEYWORDS). */
  decorated: boolean;
  /** Which reflow searches it may need (REFLOW_KEYWORDS). */
  reflow: ReflowHints;
}

/** Keyword lists the automaton holds after the rules', in this order (none costs a pass of its own). */
const EXTRA_KEYWORDS = [
  JOINS,
  DECORATION_KEYWORDS,
  REFLOW_KEYWORDS.catA,
  REFLOW_KEYWORDS.tables,
  REFLOW_KEYWORDS.block,
] as const;

/**
 * The rules whose keywords occur in `text`, and whether it may hold joined string literals, display
 * decoration or a form to reflow: one pass of the keyword automaton, whose last entries are EXTRA_KEYWORDS.
 */
function selected(text: string): Selection {
  const rules = catalogue();
  keywordIndex ??= new KeywordIndex([...rules.map((r) => r.keywords), ...EXTRA_KEYWORDS]);
  const hits = keywordIndex.rulesOf(text);
  // The extra lists' hits come last (their indexes follow the rules'): one flag a list.
  const extra = [false, false, false, false, false];
  while (hits.length > 0 && (hits[hits.length - 1] as number) >= rules.length)
    extra[(hits.pop() as number) - rules.length] = true;
  return {
    rules: hits,
    joins: extra[0] === true,
    decorated: extra[1] === true,
    // Box-drawing bars are not ASCII, which the automaton reads only.
    reflow: {
      catA: extra[2] === true,
      tables: extra[3] === true || text.charCodeAt(0) === 124 || BOX_BAR.test(text),
      block: extra[4] === true,
    },
  };
}

/** A box-drawing table's bars. */
const BOX_BAR = /[│┃║]/;

/**
 * Findings of funes's catalogue in `text`, also inside base64-wrapped runs and string literals joined in code
 * (see unwrap.ts), and in values cut across lines or behind `cat -A` and table cells (reflow.ts): those
 * cover the whole wrapped, joined or cut span. Agents' display decoration (line-number gutters, quote and
 * diff markers: display.ts) is cut out first, and findings mapped back to `text`.
 */
export function scanPatterns(text: string): Finding[] {
  const selection = selected(text);
  const view = displayView(text, selection.decorated);
  if (view === null) return scanReflowing(text, selection);
  return scanReflowing(view.text, selected(view.text)).map((f) => {
    const [start, end] = view.toSource(f.start, f.end);
    return { rule: f.rule, start, end };
  });
}

/** Findings in `text` as written, and in its reflowed view where a splice makes or completes one. */
function scanReflowing(text: string, selection: Selection): Finding[] {
  const gaps: Splice[] = [];
  const found = scanAsWritten(text, selection, gaps);
  const splices = reflowSplices(text, selection.reflow, gaps);
  if (splices.length === 0) return found;
  return [...found, ...scanSpliced(splicedView(text, splices))];
}

/** Context read on each side of a splice (a name before a cut value, the rest of a wrapped dump). */
const REFLOW_CONTEXT = 250;

/**
 * Findings in a spliced view that touch a splice, in the text's offsets. Only windows around the splices are
 * read (a long text with one wrapped line costs one window), each from a line's start to a line's end.
 */
function scanSpliced(view: SplicedView): Finding[] {
  const out: Finding[] = [];
  const t = view.text;
  let i = 0;
  while (i < view.at.length) {
    const [first] = view.at[i] as [number, number];
    const from = Math.max(0, first - REFLOW_CONTEXT);
    const lineStart = t.lastIndexOf("\n", from) + 1;
    const start = from - lineStart <= 200 ? lineStart : from;
    let end = Math.min(t.length, (view.at[i] as [number, number])[1] + REFLOW_CONTEXT);
    // Splices close together share a window.
    while (i + 1 < view.at.length && (view.at[i + 1] as [number, number])[0] < end) {
      i++;
      end = Math.min(t.length, (view.at[i] as [number, number])[1] + REFLOW_CONTEXT);
    }
    const stop = t.indexOf("\n", end);
    end =
      stop >= 0 && stop - end <= 200
        ? stop
        : Math.min(t.length, stop < 0 && t.length - end <= 200 ? t.length : end);
    i++;
    const w = t.slice(start, end);
    // The window's own keywords: a splice may make one (`webhook.o⏎ffice.com`).
    for (const f of scanAsWritten(w, selected(w))) {
      const s = f.start + start;
      const e = f.end + start;
      if (!touches(view.at, s, e)) continue;
      const [a, b] = view.toSource(s, e);
      out.push({ rule: f.rule, start: a, end: b });
    }
  }
  return out;
}

/** True when the range [s, e) meets a splice of `at` (sorted view ranges), or ends or starts at one. */
function touches(at: readonly [number, number][], s: number, e: number): boolean {
  let lo = 0;
  let hi = at.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = at[mid] as [number, number];
    if (b < s) lo = mid + 1;
    else if (a > e) hi = mid - 1;
    else return true;
  }
  return false;
}

/** Findings of the catalogue in `text`, wrapped and joined forms included, without seeing through display. */
function scanAsWritten(text: string, { rules, joins }: Selection, gaps?: Splice[]): Finding[] {
  const found = runRules(text, rules);
  const wrapped = scanWrapped(text, scanUnwrapped, joins, gaps);
  return wrapped.length === 0 ? found : [...found, ...wrapped];
}

/** Findings of funes's catalogue in `text` as written. */
export function scanCatalogue(text: string): Finding[] {
  return runRules(text, selected(text).rules);
}

/** Findings of funes's catalogue in a text unwrapping rebuilt: the rules for text as written left out. */
function scanUnwrapped(text: string): Finding[] {
  const rules = catalogue();
  return runRules(
    text,
    selected(text).rules.filter((i) => rules[i]?.asWritten !== true),
  );
}

/** Findings of the catalogue rules `selected` (indexes) in `text`. */
function runRules(text: string, selected: number[]): Finding[] {
  const rules = catalogue();
  const out: Finding[] = [];
  const fallbacks: Finding[] = [];
  for (const i of selected) {
    const rule = rules[i];
    if (rule === undefined) continue;
    const re = rule.pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      if (rule.edge === true && !atEdge(text, m.index)) {
        re.lastIndex = m.index + 1;
        continue;
      }
      let secret = m[0];
      let start = m.index;
      if (rule.group !== undefined) {
        // Alternations put the secret in different captures: the first one that took part is it.
        for (let k = rule.group; k < m.length; k++) {
          const at = m.indices?.[k];
          if (at === undefined) continue;
          secret = text.slice(at[0], at[1]);
          start = at[0];
          break;
        }
      }
      // A value already redacted (scrub rescans what it redacted) is not a secret again.
      if (secret.length === 0 || secret.includes("[REDACTED:")) continue;
      if (rule.entropy !== undefined && entropy(secret) < rule.entropy) continue;
      if (rule.check !== undefined && !rule.check(secret, m)) continue;
      if (publicByDesign(text, start, start + secret.length)) continue;
      let end = start + secret.length;
      if (rule.extend !== undefined) {
        rule.extend.lastIndex = end;
        end += rule.extend.exec(text)?.[0].length ?? 0;
      }
      if (rule.fallback === true) fallbacks.push({ rule: rule.id, start, end });
      else out.push({ rule: rule.id, start, end });
    }
  }
  if (fallbacks.length === 0) return out;
  // A fallback shape's finding counts only where no other rule found the secret (the vendor's name wins).
  for (const f of fallbacks) if (!out.some((o) => o.start < f.end && f.start < o.end)) out.push(f);
  return out;
}

/**
 * Keys meant to be public, never a finding whatever rule reads them: Stripe's publishable keys (`pk_live_…`,
 * `pk_test_…`, which ship in web pages). The token is read from its start (a finding may start past its
 * prefix).
 */
function publicByDesign(text: string, start: number, end: number): boolean {
  let s = start;
  while (s > 0 && start - s < 8 && /[A-Za-z0-9_]/.test(text.charAt(s - 1))) s--;
  return /^pk_(?:live|test)_[A-Za-z0-9]{10,}[.,;:]?$/.test(text.slice(s, end));
}

/** Every finding in `text`, from secretlint's recommended preset and our patterns, sorted by start. */
export async function scanSecrets(text: string): Promise<Finding[]> {
  const found = scanPatterns(text);
  return sortFindings([...found, ...(await scanSecretlint(text))]);
}

/** Findings sorted by start, the widest first at one start; ties keep their order (catalogue order). */
function sortFindings(found: Finding[]): Finding[] {
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Findings of secretlint's recommended preset. */
async function scanSecretlint(text: string): Promise<Finding[]> {
  const found: Finding[] = [];
  const { lint, config } = await secretlint();
  const result = await lint({
    source: { content: text, filePath: "transcript.txt", ext: ".txt", contentType: "text" },
    options: { config, maskSecrets: true, noPhysicFilePath: true },
  });
  for (const m of result.messages)
    found.push({ rule: shortRule(m.ruleId), start: m.range[0], end: m.range[1] });
  return found;
}

/** What redaction did to a text. */
export interface Redaction {
  text: string;
  /** Rule → secrets replaced. */
  counts: Record<string, number>;
}

/**
 * Replaces each finding's range with `[REDACTED:<rule>]`. Overlapping findings merge into one
 * replacement named after the first (widest at the same start).
 */
export function applyRedactions(text: string, findings: Finding[]): Redaction {
  const counts: Record<string, number> = {};
  if (findings.length === 0) return { text, counts };
  const merged: Finding[] = [];
  for (const f of [...findings].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = merged[merged.length - 1];
    if (last !== undefined && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  let out = "";
  let at = 0;
  for (const f of merged) {
    out += `${text.slice(at, f.start)}[REDACTED:${f.rule}]`;
    at = f.end;
    counts[f.rule] = (counts[f.rule] ?? 0) + 1;
  }
  return { text: out + text.slice(at), counts };
}

/** Scans and redacts several texts in one pass (one scanner call); texts are joined by newlines. */
export async function redactTexts(
  texts: string[],
): Promise<{ texts: string[]; counts: Record<string, number> }> {
  const perText = await findingsPerText(texts);
  const counts: Record<string, number> = {};
  if (perText.every((f) => f.length === 0)) return { texts, counts };
  const out: string[] = [];
  texts.forEach((t, i) => {
    const r = applyRedactions(t, perText[i] ?? []);
    for (const [k, n] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + n;
    out.push(r.text);
  });
  return { texts: out, counts };
}

/**
 * Scans several texts and returns each text's findings, in its own offsets. The catalogue scans each text on
 * its own; secretlint scans them in one call (texts joined by newlines), and a finding of it that spans a
 * join is given to every text it touches: fail-closed. A text that is one printed value is a secret when a
 * text shortly before it reads a named secret (commandOutputs): the texts are a session's blocks, in order.
 */
export async function findingsPerText(texts: string[]): Promise<Finding[][]> {
  const findings = await scanSecretlint(texts.join("\n"));
  let offset = 0;
  const perText = texts.map((t) => {
    const end = offset + t.length;
    const start = offset;
    offset = end + 1;
    const own = scanPatterns(t);
    for (const f of findings)
      if (f.start < end && f.end > start)
        own.push({
          rule: f.rule,
          start: Math.max(f.start, start) - start,
          end: Math.min(f.end, end) - start,
        });
    return own;
  });
  // A command in one block, what it printed in a later one (a tool call and its result).
  for (const o of commandOutputs(texts))
    perText[o.index]?.push({ rule: "command-output", start: o.start, end: o.end });
  return perText.map(sortFindings);
}
