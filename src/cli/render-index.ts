/**
 * How `funes index` talks: progress on stderr, the summary on stdout (text or JSON).
 */
import type { IndexEvent, IndexSummary } from "../commands/index.js";
import { SKIP_MALFORMED, SKIP_NOT_OBJECT, SKIP_SURROGATE } from "../traces/index.js";
import { ProgressLine } from "./progress.js";
import { fitText, layoutWidth } from "./terminal-text.js";

/**
 * An event sink writing progress to stderr; `now` (ms) times the ETA. `quiet` (`--quiet`) keeps only the
 * lines a person must see: notes and what could not be read.
 */
export function indexReporter(
  err: NodeJS.WriteStream,
  tty: boolean,
  now: () => number = () => Date.now(),
  quiet = false,
): { onEvent: (e: IndexEvent) => void; end: () => void } {
  const bar = new ProgressLine(err, tty);
  let started: number | null = null;
  const line = (s: string, warning = false) => {
    if (quiet && !warning) return;
    bar.clear();
    // On a terminal a long line (a note) wraps at spaces, never mid-word.
    err.write(fitText(`${s}\n`, tty ? layoutWidth(err.columns || null) : null));
  };
  return {
    onEvent(e) {
      switch (e.kind) {
        case "source":
          line(`${e.description} — ${e.owed} to index, ${e.units - e.owed} unchanged`);
          break;
        case "source-failed":
          line(`${e.description}: could not be read, skipping — ${e.reason}`, true);
          break;
        case "unit": {
          started ??= now();
          const label = `${e.label} — ${e.added} new, ${e.present} present`;
          // Progress by bytes: a count of files reads 75% after the small ones and then stalls on the big.
          if (e.bytesTotal > 0) {
            const eta = etaText(now() - started, e.bytesDone, e.bytesTotal);
            bar.update(
              e.bytesDone,
              e.bytesTotal,
              `${mib(e.bytesDone)}/${mib(e.bytesTotal)}${eta} ${label}`,
              false,
            );
          } else bar.update(e.done, e.total, label);
          break;
        }
        case "note":
          line(`note: ${e.text}`, true);
          break;
        case "unit-failed":
          line(`[${e.done}/${e.total}] ${e.key} — read failed, skipping: ${e.reason}`, true);
          break;
        case "redacted":
          line(`    redacted ${formatCounts(e.counts)} in ${e.sessionId}`);
          break;
        case "state-discarded":
          line(
            `note: ${e.path} was unreadable; rebuilding it (stored chunks are kept and not duplicated)`,
            true,
          );
          break;
        case "text-index":
          line(e.action === "built" ? "built the text search index" : "rebuilt the text search index");
          break;
        case "vector-index":
          line(
            e.action === "folded"
              ? `added the newest rows to the vector index (${e.seconds.toFixed(1)} s)`
              : `${e.action} the vector index (${e.seconds.toFixed(1)} s; later rows are added to it as they come, and it is retrained only as the memory grows)`,
          );
          break;
        case "keyword-only":
          line(`note: keyword-only for now (no vectors): ${e.reason}`, true);
          break;
        case "embedding":
          bar.update(e.done, e.total, `embedded ${e.done}/${e.total} (${e.rate.toFixed(1)}/s)`);
          break;
      }
    },
    end: () => bar.clear(),
  };
}

/** Mebibytes with one decimal. */
function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/** ` · ~40s left` from the rate so far; empty until there is a rate to go by. */
export function etaText(elapsedMs: number, done: number, total: number): string {
  if (done <= 0 || elapsedMs < 1000 || done >= total) return "";
  const left = ((total - done) * elapsedMs) / done / 1000;
  const t =
    left < 90
      ? `${Math.ceil(left)}s`
      : left < 5400
        ? `${Math.round(left / 60)} min`
        : `${(left / 3600).toFixed(1)} h`;
  return ` · ~${t} left`;
}

/** `rule: n, rule: n`. */
export function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
}

/** Skip reasons shown in the summary before "N more (--verbose)". */
const TOP_REASONS = 3;

/** The run's summary for people; `verbose` lists every skip reason. */
export function formatIndexSummary(s: IndexSummary, verbose = false): string {
  const lines = [
    `indexed sessions=${s.sessions} skipped=${s.unitsUnchanged} chunks=${s.chunksAdded}`,
    `  memory: ${s.memory}`,
  ];
  const agents = Object.entries(s.sessionsByHarness ?? {})
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([h, n]) => `${h} ${n}`)
    .join(", ");
  lines.push(
    `  sessions: ${s.sessions}${agents === "" ? "" : ` (${agents})`}, turns: ${s.turns}, unchanged (not read): ${s.unitsUnchanged}`,
  );
  let chunks = `  chunks added: ${s.chunksAdded}`;
  if (s.chunksPresent > 0) chunks += `, already in the memory: ${s.chunksPresent}`;
  if ((s.chunksRepeated ?? 0) > 0)
    chunks += `, repeated within transcripts (stored once): ${s.chunksRepeated}`;
  lines.push(chunks);
  const injected: Record<string, number> = {};
  const other: Record<string, number> = {};
  for (const [reason, n] of Object.entries(s.skipped)) {
    if (reason.startsWith(INJECTED)) injected[reason.slice(INJECTED.length)] = n;
    else other[reason] = n;
  }
  const injectedTotal = Object.values(injected).reduce((a, b) => a + b, 0);
  if (injectedTotal > 0)
    lines.push(`  agent boilerplate left out: ${injectedTotal} block(s) (${topCounts(injected, verbose)})`);
  if ((s.boilerplateRemoved ?? 0) > 0)
    lines.push(
      `  agent boilerplate removed from the memory (stored by an older run): ${s.boilerplateRemoved} chunk(s)`,
    );
  const otherTotal = Object.values(other).reduce((a, b) => a + b, 0);
  if (otherTotal > 0) lines.push(`  records passed over: ${otherTotal} (${topCounts(other, verbose)})`);
  const redacted = Object.values(s.redacted).reduce((a, b) => a + b, 0);
  if (redacted > 0) lines.push(`  secrets redacted: ${redacted} (${formatCounts(s.redacted)})`);
  const v = s.vectors;
  if (v.model !== null)
    lines.push(
      `  vectors: ${v.embedded} embedded in ${v.seconds.toFixed(1)}s with ${v.model}` +
        (v.remaining > 0
          ? `; ${v.remaining} still waiting — \`funes index --yes\` finishes them, or the next run continues`
          : ""),
    );
  else if (v.remaining > 0)
    lines.push(`  vectors: ${v.remaining} rows waiting (keyword search finds them meanwhile)`);
  if (s.failed.length > 0) {
    lines.push(`  unreadable: ${s.failed.length}`);
    for (const f of s.failed.slice(0, verbose ? s.failed.length : 10))
      lines.push(`    ${f.key}: ${f.reason}`);
  }
  for (const n of s.notes ?? []) lines.push(`  note: ${n}`);
  return `${lines.join("\n")}\n`;
}

const INJECTED = "agent-injected text left out: ";

/** Skip reasons of a record that is not JSON at all (as opposed to a record with nothing to index). */
const UNREADABLE = new Set([SKIP_MALFORMED, SKIP_NOT_OBJECT, SKIP_SURROGATE]);

/**
 * Why a run given a path indexed nothing at all although it read something: every record it passed over
 * was unreadable (not JSON). Null when it indexed a turn, read nothing new (unchanged), or passed over
 * records that were readable but held nothing to index (a transcript of snapshots only).
 */
export function nothingIndexed(s: IndexSummary, path: string): string | null {
  if (s.unitsRead === 0 || s.turns > 0 || s.chunksAdded > 0) return null;
  const other = Object.fromEntries(Object.entries(s.skipped).filter(([r]) => !r.startsWith(INJECTED)));
  const total = Object.values(other).reduce((a, b) => a + b, 0);
  if (total === 0 || Object.keys(other).some((r) => !UNREADABLE.has(r))) return null;
  return `nothing in "${path}" could be indexed: all ${total} record(s) were passed over (${topCounts(other, false)}) — check that it is an agent's transcript, and name its format with --harness`;
}

/** The biggest counts, then "N more (--verbose)" unless `all`. */
function topCounts(counts: Record<string, number>, all: boolean): string {
  const sorted = Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = all ? sorted : sorted.slice(0, TOP_REASONS);
  const text = shown.map(([k, n]) => `${k}: ${n}`).join(", ");
  const more = sorted.length - shown.length;
  return more > 0 ? `${text}; ${more} more (--verbose)` : text;
}
