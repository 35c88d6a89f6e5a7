/**
 * How `funes index` talks: progress on stderr, the summary on stdout (text or JSON).
 */
import type { IndexEvent, IndexSummary } from "../commands/index.js";
import { ProgressLine } from "./progress.js";

/** An event sink writing progress to stderr. */
export function indexReporter(
  err: NodeJS.WriteStream,
  tty: boolean,
): { onEvent: (e: IndexEvent) => void; end: () => void } {
  const bar = new ProgressLine(err, tty);
  const line = (s: string) => {
    bar.clear();
    err.write(`${s}\n`);
  };
  return {
    onEvent(e) {
      switch (e.kind) {
        case "source":
          line(`${e.description} — ${e.owed} to index, ${e.units - e.owed} unchanged`);
          break;
        case "source-failed":
          line(`${e.description}: could not be read, skipping — ${e.reason}`);
          break;
        case "unit":
          bar.update(e.done, e.total, `${e.label} — ${e.added} new, ${e.present} present`);
          break;
        case "unit-failed":
          line(`[${e.done}/${e.total}] ${e.key} — read failed, skipping: ${e.reason}`);
          break;
        case "redacted":
          line(`    redacted ${formatCounts(e.counts)} in ${e.sessionId}`);
          break;
        case "state-discarded":
          line(`note: ${e.path} was unreadable; rebuilding it (stored chunks are kept and not duplicated)`);
          break;
        case "text-index":
          line(e.action === "built" ? "built the text search index" : "rebuilt the text search index");
          break;
        case "vector-index":
          line(
            `built the vector index (${e.seconds.toFixed(1)} s, once: later rows join it as the memory is compacted)`,
          );
          break;
        case "keyword-only":
          line(`note: keyword-only for now (no vectors): ${e.reason}`);
          break;
        case "embedding":
          bar.update(e.done, e.total, `embedded ${e.done}/${e.total} (${e.rate.toFixed(1)}/s)`);
          break;
      }
    },
    end: () => bar.clear(),
  };
}

/** `rule: n, rule: n`. */
export function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
}

/** The run's summary for people. */
export function formatIndexSummary(s: IndexSummary): string {
  const skippedLines = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  const lines = [
    `indexed sessions=${s.sessions} skipped=${s.unitsUnchanged} chunks=${s.chunksAdded}`,
    `  memory: ${s.memory}`,
    `  sessions read: ${s.sessions}, turns: ${s.turns}, unchanged (not read): ${s.unitsUnchanged}`,
    `  chunks added: ${s.chunksAdded}, already present: ${s.chunksPresent}`,
  ];
  if (skippedLines > 0) lines.push(`  records skipped: ${skippedLines} (${formatCounts(s.skipped)})`);
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
    for (const f of s.failed.slice(0, 10)) lines.push(`    ${f.key}: ${f.reason}`);
  }
  return `${lines.join("\n")}\n`;
}
