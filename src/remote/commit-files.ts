/**
 * One Hub commit adding files, guarded by the parent commit it was computed from: if anyone committed
 * since, the Hub answers 412 and nothing is written (HubConflictError; the caller refreshes and retries).
 */
import { commit } from "@huggingface/hub";
import { type HubClient, httpStatus, hubParams, quietly } from "./access.js";

/** The head moved between reading it and committing. */
export class HubConflictError extends Error {}

/** The token may read but not write this repo. */
export class HubReadOnlyError extends Error {}

/** A file to add. */
export interface NewFile {
  path: string;
  content: Blob;
}

/** Commits `files` on `main` with `parentCommit`; returns the new commit's sha. */
export async function commitFiles(o: {
  client: HubClient;
  repo: string;
  parentCommit: string;
  title: string;
  files: NewFile[];
}): Promise<string> {
  try {
    const out = await quietly(() =>
      commit({
        repo: { type: "dataset", name: o.repo },
        branch: "main",
        parentCommit: o.parentCommit,
        title: o.title,
        operations: o.files.map((f) => ({
          operation: "addOrUpdate" as const,
          path: f.path,
          content: f.content,
        })),
        ...hubParams(o.client),
      }),
    );
    const oid = out?.commit.oid;
    if (typeof oid !== "string") throw new Error("the Hub did not return the new commit");
    return oid;
  } catch (err) {
    const status = httpStatus(err);
    if (status === 412 || status === 409) throw new HubConflictError("the remote moved while publishing");
    if (status === 401 || status === 403) throw new HubReadOnlyError("the token cannot write this repo");
    throw err;
  }
}
