/**
 * `funes status` for people (the reference's layout, plus per-agent counts and vector backfill) and as JSON.
 */

import type { StatusReport } from "../commands/index.js";
import { oneLine } from "./safe-text.js";

/** `just now`, `5 minutes ago`, `3 hours ago`, `2 days ago` (singular at 1). */
export function formatAge(ms: number): string {
  const min = Math.floor(ms / 60_000);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (min < 1) return "just now";
  if (min < 60) return plural(min, "minute");
  const hours = Math.floor(min / 60);
  if (hours < 48) return plural(hours, "hour");
  return plural(Math.floor(hours / 24), "day");
}

/** Agents listed by name in the status text; funes knows four, a memory may name more. */
const MAX_HARNESSES = 12;

/** The status text; names a memory's rows or metadata carry are kept on their line (safe-text.ts). */
export function formatStatus(report: StatusReport, now: number): string {
  return `${formatReport(report, now)}${refusalLines(report, now)}`;
}

/**
 * The hook pushes that refused to publish, each with the one command that fixes it (nobody reads the
 * hook's log, so this is where a refusal is seen).
 */
function refusalLines(r: StatusReport, now: number): string {
  let out = "";
  for (const x of r.hookRefusals ?? []) {
    const at = Date.parse(x.at);
    const when = Number.isNaN(at) ? "" : `, ${formatAge(now - at)}`;
    out += `hook push refused (${oneLine(x.memory)}${when}): ${oneLine(x.message)}\n  fix: ${oneLine(x.fix)}\n`;
  }
  return out;
}

function formatReport(report: StatusReport, now: number): string {
  const r = oneLineNames(report);
  if (r.kind === "no-index" && r.empty === true)
    return `memory: ${r.memory}\nchunks: 0 — an index ran but stored nothing (its sessions held no indexable content); \`funes index <path> --verbose\` shows what it passed over\n`;
  if (r.kind === "no-index")
    return r.isDefault
      ? `memory: ${r.memory}\nno index yet — run \`funes index\` to build one, then recall your own history.\n`
      : `memory: ${r.memory}\nno index found at ${r.memory}\n`;
  let out = `memory: ${r.memory}\nchunks: ${r.chunks}\nsessions: ${r.sessions}\n`;
  // A memory names its agents in its rows: a hostile one can name thousands; the most used are shown.
  const shown = [...r.byHarness].sort((a, b) => b.chunks - a.chunks).slice(0, MAX_HARNESSES);
  for (const h of r.byHarness.filter((x) => shown.includes(x)))
    out += `  ${h.harness === "" ? "(no harness)" : h.harness}: ${h.sessions} session${h.sessions === 1 ? "" : "s"}, ${h.chunks} chunks\n`;
  if (r.byHarness.length > shown.length)
    out += `  … and ${r.byHarness.length - shown.length} more agent names (\`funes status --json\` lists them)\n`;
  out += `vectors: ${r.chunks - r.pendingVectors} of ${r.chunks} rows`;
  out += r.pendingVectors > 0 ? ` (${r.pendingVectors} waiting, found by keyword until embedded)\n` : "\n";
  if (r.embedder !== null)
    out += `embedder: ${r.embedder.repo} @ ${r.embedder.revision}${r.embedder.precision === "int8" ? " (int8, FUNES_EMBED_PRECISION)" : ""}${r.embedder.ready ? "" : " — not downloaded; run `funes models pull`"}\n`;
  if (r.pendingSessions !== null && r.pendingSessions > 0)
    out += `pending indexing: ${r.pendingSessions} source session${r.pendingSessions === 1 ? "" : "s"} — run \`funes index\`\n`;
  if (r.lastPush !== null) {
    const d = new Date(r.lastPush.at).toISOString();
    out += `last push from here: ${d.slice(0, 10)} ${d.slice(11, 16)} UTC (${formatAge(now - Date.parse(r.lastPush.at))}), ${r.lastPush.published} chunks${r.lastPush.commit === null ? "" : `, commit ${r.lastPush.commit.slice(0, 8)}`}\n`;
  }
  if (r.project !== null) {
    out += `project memory of ${r.project.name}\n`;
    if (r.project.pendingReview > 0)
      out += `pending review: ${r.project.pendingReview} session(s) — run \`funes curate ${r.memory}\`\n`;
  }
  if (r.forgotten !== null && r.forgotten > 0)
    out += `forgotten: ${r.forgotten} chunks (\`funes forget\`; ${r.memoryKind === "hub" ? "every push leaves them out" : "`funes index` leaves them out"})\n`;
  if ((r.forgetUnfinished ?? 0) > 0)
    out += `forget unfinished: ${r.forgetUnfinished} chunks are still in the memory until the next \`funes index\` (or any write) finishes it\n`;
  if (r.unindexed !== null && r.unindexed > 0)
    out += `unindexed: ${r.unindexed} chunks (found by a scan until a push rebuilds the text index)\n`;
  const lp = r.localPush;
  const s = (n: number) => `${n} session${n === 1 ? "" : "s"}`;
  if (lp !== null) {
    if (lp.pendingChunks === 0 && lp.waitingForVectors === 0)
      out += `local push: up to date (${s(lp.sessions)})\n`;
    else if (lp.pendingChunks === 0)
      out += `local push: every embedded chunk is published (${s(lp.sessions)})\n`;
    else
      out += `local push: ${lp.pendingSessions} of ${s(lp.sessions)} pending (${lp.pendingChunks} chunks) — run \`funes push ${r.memory}\`\n`;
    if (lp.waitingForVectors > 0)
      out += `  ${lp.waitingForVectors} chunk(s) of ${s(lp.waitingSessions)} wait for vectors — not published until embedded (the next hook or \`funes index\` embeds them)\n`;
    const held = Object.entries(lp.held).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const total = held.reduce((a, [, n]) => a + n, 0);
    if (total > 0)
      out += `  ${total} pending chunk(s) hold secrets (${held.map(([k, n]) => `${k}×${n}`).join(", ")}) — the push gate keeps them here; run \`funes scrub\` first\n`;
  }
  out += hookPushLine(r, now);
  if (r.lastIndexed !== null) {
    const d = new Date(r.lastIndexed).toISOString();
    out += `last indexed: ${d.slice(0, 10)} ${d.slice(11, 16)} UTC (${formatAge(now - r.lastIndexed)})\n`;
  }
  return out;
}

/** The report with the names a (possibly hostile) memory supplies made one-line and control-free. */
function oneLineNames(r: StatusReport): StatusReport {
  if (r.kind === "no-index") return { ...r, memory: oneLine(r.memory) };
  return {
    ...r,
    memory: oneLine(r.memory),
    byHarness: r.byHarness.map((h) => ({ ...h, harness: oneLine(h.harness) })),
    project: r.project === null ? null : { ...r.project, name: oneLine(r.project.name) },
  };
}

const HOOK_STATE = {
  ok: "ok",
  again: "publishing in rounds",
  warn: "held back or refused",
  failed: "failed",
} as const;

/** The last push an agent's hook made, and why it did not publish, unless a later push from here did. */
function hookPushLine(r: Extract<StatusReport, { kind: "ready" }>, now: number): string {
  const hp = r.hookPush;
  if (hp === null) return "";
  const stale = hp.state !== "ok" && r.lastPush !== null && Date.parse(r.lastPush.at) > hp.at;
  if (stale) return "";
  const d = new Date(hp.at).toISOString();
  const when = `${d.slice(0, 10)} ${d.slice(11, 16)} UTC (${formatAge(now - hp.at)})`;
  const why = hp.detail === "" ? "" : `: ${oneLine(hp.detail)}`;
  return `last hook push: ${HOOK_STATE[hp.state]}, ${when}${why}${hp.state === "ok" ? "" : ` — log: ${hp.log}`}\n`;
}
