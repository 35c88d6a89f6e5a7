/**
 * One Hub commit adding files, guarded by the parent commit it was computed from: if anyone committed
 * since, the Hub answers 412 and nothing is written (HubConflictError; the caller refreshes and retries).
 * Its failures are classified in hub-failure.ts.
 */
import { type HubClient, hubLibrary, hubParams, quietly } from "./access.js";
import { writeFailure } from "./hub-failure.js";

/** A file to add. */
export interface NewFile {
  path: string;
  content: Blob;
}

/** Bytes of a commit's files sent so far, of the total. */
export type UploadProgress = (sent: number, total: number) => void;

/** Commits `files` on `main` with `parentCommit`; returns the new commit's sha. */
export async function commitFiles(o: {
  client: HubClient;
  repo: string;
  parentCommit: string;
  title: string;
  files: NewFile[];
  /** Paths to delete in the same commit (only `funes forget --purge-history` deletes). */
  deletions?: string[] | undefined;
  onProgress?: UploadProgress | undefined;
  /**
   * Run once every file is uploaded, just before the commit request is sent: a throw abandons the commit
   * (nothing is committed; uploaded objects stay unreferenced) and is thrown on.
   */
  beforeCommit?: (() => Promise<void>) | undefined;
}): Promise<string> {
  const sizes = new Map(o.files.map((f) => [f.path, f.content.size]));
  const total = o.files.reduce((a, f) => a + f.content.size, 0);
  const sent = new Map<string, number>();
  try {
    const out = await quietly(async () => {
      const it = (await hubLibrary()).commitIter({
        repo: { type: "dataset", name: o.repo },
        branch: "main",
        parentCommit: o.parentCommit,
        title: o.title,
        operations: [
          ...o.files.map((f) => ({
            operation: "addOrUpdate" as const,
            path: f.path,
            content: f.content,
          })),
          ...(o.deletions ?? []).map((path) => ({ operation: "delete" as const, path })),
        ],
        ...hubParams(o.client),
      });
      for (;;) {
        const step = await it.next();
        if (step.done === true) return step.value;
        const e = step.value;
        if (e.event === "fileProgress" && e.state === "uploading") {
          sent.set(e.path, Math.round(e.progress * (sizes.get(e.path) ?? 0)));
          o.onProgress?.(
            [...sent.values()].reduce((a, b) => a + b, 0),
            total,
          );
        } else if (e.event === "phase" && e.phase === "committing") {
          o.onProgress?.(total, total);
          // The client sends the commit request only when asked for its next step.
          if (o.beforeCommit !== undefined)
            try {
              await o.beforeCommit();
            } catch (err) {
              await it.return?.(undefined as never).catch(() => {});
              throw new CommitAbandoned(err);
            }
        }
      }
    });
    const oid = out?.commit.oid;
    if (typeof oid !== "string") throw new Error("the Hub did not return the new commit");
    return oid;
  } catch (err) {
    if (err instanceof CommitAbandoned) throw err.reason;
    throw writeFailure(err, { hubUrl: o.client.hubUrl, readOnly: "the token cannot write this repo" }) ?? err;
  }
}

/** What `beforeCommit` threw, kept apart from the Hub's own failures. */
class CommitAbandoned {
  constructor(readonly reason: unknown) {}
}
