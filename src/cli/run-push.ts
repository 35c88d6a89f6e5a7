/**
 * `funes push <memory>`, and `--hook`: the push an agent's hook makes at a session boundary.
 */
import {
  FunesError,
  listValues,
  modelsStatus,
  type PushSummary,
  pushAtBoundary,
  pushMemory,
} from "../commands/index.js";
import { parseHarness } from "../traces/index.js";
import type { CliConfig } from "./config.js";
import { indexIsolation } from "./index-worker.js";
import { ProgressLine } from "./progress.js";
import { askYesNo } from "./prompt.js";
import { formatCounts } from "./render-index.js";

/** Exit code of a hook push that left rows waiting for vectors: the hook goes again (as for "busy"). */
const EXIT_AGAIN = 75;

/** Flags of `funes push`. */
export interface PushFlags {
  create?: boolean;
  yes?: boolean;
  json?: boolean;
  sessions?: unknown;
  hook?: boolean;
  harness?: string;
  dryRun?: boolean;
}

const COMPARED: Record<string, string> = {
  head: "compared with its current head, cached here",
  "older-copy":
    "compared with an older copy cached here (it has changed since: a real push may find more there)",
  nothing:
    "no copy of it is cached here, so counted as if it held none of yours (a real push downloads it first)",
  "new-repo": "it doesn't exist yet",
};

/** What a dry run would do, for people. */
function formatDryRun(
  s: Awaited<ReturnType<typeof pushMemory>> & {
    dryRun: NonNullable<Awaited<ReturnType<typeof pushMemory>>["dryRun"]>;
  },
  held: number,
  fill: string,
): string {
  const d = s.dryRun;
  // Unreached, the remote was compared with the copy cached here (if any), whatever its age.
  const compared =
    d.offline === null
      ? (COMPARED[d.comparedWith] ?? d.comparedWith)
      : `${d.offline.offlineMode ? "HF_HUB_OFFLINE is set, so the Hub was not asked" : `the Hub could not be reached: ${d.offline.reason}`}; ${d.comparedWith === "nothing" ? COMPARED.nothing : "compared with the copy cached here (a real push may find more there)"}`;
  const lines = [
    `dry run: nothing was changed on ${s.memory} (${compared})`,
    d.chunks === 0
      ? "  would publish nothing"
      : `  would publish ${d.chunks} chunks from ${d.sessions} session(s), about ${(d.bytes / 1024).toFixed(1)} KiB of rows`,
  ];
  if (s.present > 0) lines.push(`  ${s.present} of your chunks are already there`);
  if (d.wouldCreate) lines.push(`  would create ${s.memory} (private)`);
  if (held > 0)
    lines.push(
      `  would hold back ${held} chunks whose blocks contain secrets (${formatCounts(s.heldBack)}) — \`funes scrub\` redacts them`,
    );
  if (d.wouldAsk)
    lines.push(
      "  it shares no chunk with your memory: a real push asks first (off a terminal, it needs --yes)",
    );
  if (s.pendingReview > 0)
    lines.push(
      `  ${s.pendingReview} session(s) pending review for ${s.project} — \`funes curate ${s.memory}\``,
    );
  if (s.waitingForVectors > 0)
    lines.push(`  ${s.waitingForVectors} chunks wait for vectors and would not go yet (\`${fill}\`)`);
  return `${lines.join("\n")}\n`;
}

/**
 * Publishes and prints what happened; exit 2 when the secret gate held back everything there was to
 * publish. Returns the exit code.
 */
export async function runPush(spec: unknown, flags: PushFlags, cfg: CliConfig): Promise<number> {
  if (flags.hook === true) return runHookPush(String(spec), flags, cfg);
  if (flags.harness !== undefined)
    throw new FunesError(
      "bad_input",
      "--harness names the agent of a --hook push — add --hook (as a hook does), or drop --harness",
    );
  // `--sessions ""`, `--sessions ,` or a bare `--sessions` names no session: never read it as "all of them".
  const sessions = flags.sessions === undefined ? undefined : listValues(flags.sessions);
  if (sessions !== undefined && (sessions.length === 0 || flags.sessions === true))
    throw new FunesError(
      "bad_input",
      "--sessions names no session — give one or more session ids (comma-separated), or drop --sessions to push everything",
    );
  const bar = new ProgressLine(process.stderr, cfg.stderrTty && flags.json !== true);
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  let s: Awaited<ReturnType<typeof pushMemory>>;
  try {
    s = await pushMemory(
      {
        spec: String(spec),
        create: flags.create === true,
        yes: flags.yes === true,
        now: cfg.now,
        confirm: cfg.stdinTty && cfg.stderrTty ? askYesNo : undefined,
        sessions,
        dryRun: flags.dryRun === true,
        compactAtFiles: cfg.compactAtFiles,
        onUpload: (sent, total) => bar.update(sent, total, `uploading ${mib(sent)} / ${mib(total)}`, false),
      },
      cfg,
    );
  } finally {
    bar.clear();
  }
  if (flags.json === true) process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
  else if (s.dryRun !== undefined) {
    process.stdout.write(
      formatDryRun(s as typeof s & { dryRun: NonNullable<typeof s.dryRun> }, heldCount(s), vectorFix(cfg)),
    );
    return 0;
  } else process.stdout.write(summaryText(s, vectorFix(cfg)));
  throwIfAllHeld(s);
  return 0;
}

const heldCount = (s: PushSummary) => Object.values(s.heldBack).reduce((a, b) => a + b, 0);

function throwIfAllHeld(s: PushSummary): void {
  if (heldCount(s) > 0 && s.published === 0 && s.commit === null)
    throw new FunesError(
      "held_back",
      "nothing was published: every new chunk was held back by the secret gate — run `funes scrub` to redact them, then push again",
    );
}

/** What a push did, for people. */
/**
 * What fills in the vectors chunks wait for: an index run, or first the models when the embedder is not
 * here (an index run without it embeds nothing).
 */
function vectorFix(cfg: CliConfig): string {
  return modelsStatus(cfg.models).some((m) => m.role === "embedder" && m.dir === null)
    ? "funes models pull"
    : "funes index --yes";
}

function summaryText(s: PushSummary, fill: string): string {
  const held = heldCount(s);
  const lines = [
    s.commit === null
      ? s.pendingReview > 0
        ? `${s.memory}: nothing published (${s.present} of your chunks already there)`
        : `${s.memory} is up to date (${s.present} chunks already there)`
      : `pushed ${s.published} chunks to ${s.memory} (commit ${s.commit.slice(0, 8)}, ${s.files} files, ${(s.bytes / 1024).toFixed(1)} KiB)`,
  ];
  if (s.tookBack !== undefined)
    lines.push(
      s.tookBack.commit !== null
        ? `  ${s.tookBack.rows} of them were forgotten here while the commit was under way: taken back out of ${s.memory} (commit ${s.tookBack.commit.slice(0, 8)})`
        : `  ${s.tookBack.rows} of them were forgotten here while the commit was under way, and taking them back failed (${s.tookBack.error}) — run \`funes forget --memory ${s.memory}\` with the same selection`,
    );
  if (s.compaction?.kind === "compacted")
    lines.push(
      `  compacted ${s.memory}: ${s.compaction.filesBefore} → ${s.compaction.filesAfter} files (commit ${s.compaction.commit.slice(0, 8)})`,
    );
  if (s.compaction?.kind === "not-compacted")
    lines.push(
      `  note: ${s.memory} was not compacted (${s.compaction.reason}); a later push tries again, or run \`funes compact ${s.memory}\``,
    );
  if (s.created) lines.push(`  created ${s.memory} (private)`);
  if (s.card === "created" || s.card === "refreshed") lines.push(`  dataset card ${s.card}`);
  if (s.card === "unreadable")
    lines.push("  note: dataset card left untouched (couldn't read the current one)");
  if (held > 0)
    lines.push(
      `  held back ${held} chunks whose blocks contain secrets (${formatCounts(s.heldBack)}) — they stay on this machine; \`funes scrub\` redacts them, then push again`,
    );
  if (s.pendingReview > 0)
    lines.push(
      `  ${s.pendingReview} session(s) on this machine pending review for ${s.project} — run \`funes curate ${s.memory}\``,
    );
  if (s.waitingForVectors > 0)
    lines.push(
      `  ${s.waitingForVectors} chunks wait for vectors and are published once embedded (\`${fill}\`)`,
    );
  return `${lines.join("\n")}\n`;
}

/**
 * A boundary push (from a hook): says what it did on stdout, and why it did not publish everything as the
 * last `funes: …` line on stderr, which the hook's log keeps. Exit 0 when there is nothing left to publish
 * (or nothing to publish yet), 75 when another round will publish more, 1 when rows can't be embedded here.
 */
async function runHookPush(spec: string, flags: PushFlags, cfg: CliConfig): Promise<number> {
  const r = await pushAtBoundary(
    {
      spec,
      harness: flags.harness === undefined ? undefined : parseHarness(String(flags.harness)),
      now: cfg.now,
      isolate: indexIsolation(cfg),
      compactAtFiles: cfg.compactAtFiles,
    },
    cfg,
  );
  if (flags.json === true) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  switch (r.kind) {
    // Not errors at a boundary (exit 0), but said on stderr so the hook's log line carries them.
    case "nothing-indexed":
      process.stderr.write(`funes: nothing indexed yet — nothing to publish to ${r.memory} yet\n`);
      return 0;
    case "remote-missing":
      process.stderr.write(`funes: nothing published: ${r.message}\n`);
      return 0;
    case "pushed":
      break;
  }
  if (flags.json !== true) {
    if (r.embedded > 0) process.stdout.write(`embedded ${r.embedded} chunks\n`);
    process.stdout.write(summaryText(r.summary, vectorFix(cfg)));
  }
  throwIfAllHeld(r.summary);
  switch (r.waiting.kind) {
    case "none":
      return 0;
    case "more":
      process.stderr.write(
        `funes: ${r.waiting.chunks} chunks still wait for vectors — embedding more, then publishing again\n`,
      );
      return EXIT_AGAIN;
    case "stalled":
      process.stderr.write(
        `funes: ${r.waiting.chunks} chunks wait for vectors and can't be embedded here (${r.waiting.reason}); they are published once embedded\n`,
      );
      return 1;
  }
}
