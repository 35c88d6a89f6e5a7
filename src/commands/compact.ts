/**
 * `funes compact <memory>`: fold a Hub memory's small fragments into few files, bring its text index up to
 * date, and delete the files its newest version no longer needs, in one compare-and-swap commit
 * (sync/compact.ts). A push does this by itself once the memory lists more than `COMPACT_AT_FILES` files;
 * this runs it now. `--dry-run` folds in a staged copy and says what would change, committing nothing.
 */
import { UnsupportedManifestError } from "../local/index.js";
import { ForgottenFileError, type ReadContext, refusedRemote } from "../memory/index.js";
import { HubReadOnlyError } from "../remote/index.js";
import {
  compactRemote,
  hubLocation,
  openHubForWrite,
  PublishConflictError,
  PublishUnreachableError,
  requireToken,
} from "../sync/index.js";
import { FunesError, readOnlyError } from "./errors.js";

/** Options of `funes compact`. */
export interface CompactCommandOptions {
  spec: string;
  dryRun: boolean;
  now: () => number;
}

/** What `funes compact` did (or, with --dry-run, would do). */
export interface CompactSummary {
  memory: string;
  /** The compaction's commit; null on a dry run, for an empty memory, or when there was nothing to do. */
  commit: string | null;
  dryRun: boolean;
  /** The repo holds no memory yet. */
  empty: boolean;
  /** Files under the memory's folder, before and after. */
  filesBefore: number;
  filesAfter: number;
  fragmentsBefore: number;
  fragmentsAfter: number;
  rows: number;
  /** Fragments folded into one, and the rows they held (written again). */
  folded: number;
  rowsRewritten: number;
  /** Rows still there whose id the memory's forgotten list names, deleted. */
  forgottenRemoved: number;
  textIndex: "built" | "rebuilt" | "current" | "none";
  uploads: number;
  deletions: number;
  bytes: number;
  attempts: number;
}

/** Compacts a Hub memory (see the file header). */
export async function compactMemory(opts: CompactCommandOptions, ctx: ReadContext): Promise<CompactSummary> {
  try {
    return await compactChecked(opts, ctx);
  } catch (err) {
    throw refusedRemote(err, opts.spec) ?? err;
  }
}

async function compactChecked(opts: CompactCommandOptions, ctx: ReadContext): Promise<CompactSummary> {
  const loc = hubLocation(opts.spec, ctx, "compact");
  const { client, head } = await openHubForWrite(loc, "compact", ctx);
  if (head.kind === "missing")
    throw new FunesError(
      "no_memory",
      `${loc.uri} doesn't exist on the Hub, so there is nothing to compact — check the name`,
    );
  if (!opts.dryRun) requireToken(ctx.models.token, loc.uri);
  const summary: CompactSummary = {
    memory: loc.uri,
    commit: null,
    dryRun: opts.dryRun,
    empty: true,
    filesBefore: 0,
    filesAfter: 0,
    fragmentsBefore: 0,
    fragmentsAfter: 0,
    rows: 0,
    folded: 0,
    rowsRewritten: 0,
    forgottenRemoved: 0,
    textIndex: "none",
    uploads: 0,
    deletions: 0,
    bytes: 0,
    attempts: 0,
  };
  try {
    const r = await compactRemote({
      loc,
      client,
      hubCache: ctx.models.hubCache,
      funesHome: ctx.funesHome,
      now: opts.now,
      dryRun: opts.dryRun,
    });
    if (r === null) return summary;
    return Object.assign(summary, {
      commit: r.commit,
      empty: false,
      filesBefore: r.filesBefore,
      filesAfter: r.filesAfter,
      fragmentsBefore: r.fold.fragmentsBefore,
      fragmentsAfter: r.fold.fragmentsAfter,
      rows: r.fold.rows,
      folded: r.fold.folded,
      rowsRewritten: r.fold.rowsRewritten,
      forgottenRemoved: r.fold.forgottenRemoved,
      textIndex: r.fold.textIndex,
      uploads: r.uploads,
      deletions: r.deletions,
      bytes: r.bytes,
      attempts: r.attempts,
    });
  } catch (err) {
    if (err instanceof HubReadOnlyError) throw readOnlyError(loc.uri, "compacting");
    if (err instanceof PublishUnreachableError)
      throw new FunesError(
        "unreachable",
        `${loc.uri} could not be reached (${err.message}) — nothing was changed there; run the compaction again once you're back online`,
      );
    if (err instanceof PublishConflictError)
      throw new FunesError(
        "busy",
        `${loc.uri}: ${err.message} (others are publishing) — nothing was changed; run it again in a moment`,
      );
    if (err instanceof ForgottenFileError) throw new FunesError("bad_input", err.message);
    if (err instanceof UnsupportedManifestError)
      throw new FunesError(
        "incompatible_memory",
        `${loc.uri}: its newest manifest ${err.message}, so funes cannot tell which files it needs and changed nothing — use the tool that wrote it to compact it`,
        err,
      );
    throw err;
  }
}
