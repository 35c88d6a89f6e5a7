/**
 * A Hub memory's state for reading, decided once: the head probe, then the cached view of that commit
 * (fetching what is missing). Unreachable Hub: the newest view already cached, if any.
 */
import { join } from "node:path";
import { materializeView, newestView, type SnapshotView } from "../cache/index.js";
import { fetchRepoHead, type HubClient, type HubLocation, isUnreachable } from "../remote/index.js";

/** What reading a Hub memory can find. */
export type RemoteReadState =
  | { kind: "ready"; view: SnapshotView }
  | { kind: "stale"; view: SnapshotView; reason: string }
  | { kind: "empty" }
  | { kind: "missing" }
  | { kind: "unauthorized" }
  | { kind: "offline"; reason: string };

/** Where views of remote memories are kept under a funes home. */
export function viewsRoot(funesHome: string): string {
  return join(funesHome, "views");
}

/** Resolves the head of `main` and presents that commit's memory as a local folder. */
export async function readRemote(
  loc: HubLocation,
  ctx: { funesHome: string; hubCache: string; client: HubClient; maxDownloadBytes?: number | undefined },
): Promise<RemoteReadState> {
  const root = viewsRoot(ctx.funesHome);
  const head = await fetchRepoHead({ client: ctx.client, repo: loc.repo });
  switch (head.kind) {
    case "missing":
    case "unauthorized":
      return head;
    case "offline":
      return offline(root, loc, head.reason);
    case "found": {
      let view: SnapshotView | null;
      try {
        view = await materializeView({
          client: ctx.client,
          hubCache: ctx.hubCache,
          viewsRoot: root,
          loc,
          sha: head.sha,
          maxBytes: ctx.maxDownloadBytes,
        });
      } catch (err) {
        // The connection went away mid-download: the same as finding the Hub unreachable.
        if (!isUnreachable(err)) throw err;
        return offline(root, loc, err instanceof Error ? err.message : String(err));
      }
      return view === null ? { kind: "empty" } : { kind: "ready", view };
    }
  }
}

function offline(root: string, loc: HubLocation, reason: string): RemoteReadState {
  const cached = newestView(root, loc);
  return cached === null ? { kind: "offline", reason } : { kind: "stale", view: cached, reason };
}
