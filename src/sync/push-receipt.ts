/**
 * The receipt of the last push from this machine to each Hub memory: what `funes status` says about it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { remoteFileName } from "../memory/index.js";
import { type HubLocation, parseHubUri } from "../remote/index.js";

/** `$FUNES_HOME/pushed/<owner>--<name>[--prefix].json`: the last push of this memory to that remote. */
function receiptPath(funesHome: string, loc: HubLocation): string {
  return join(funesHome, "pushed", `${remoteFileName(loc)}.json`);
}

/** The last push from this machine to a Hub memory (by its URI), or null. */
export function readReceipt(
  funesHome: string,
  uri: string,
): { commit: string | null; published: number; at: string } | null {
  try {
    const r = JSON.parse(readFileSync(receiptPath(funesHome, parseHubUri(uri)), "utf8")) as {
      commit?: unknown;
      published?: unknown;
      at?: unknown;
    };
    if (typeof r.at !== "string") return null;
    return {
      commit: typeof r.commit === "string" ? r.commit : null,
      published: Number(r.published ?? 0),
      at: r.at,
    };
  } catch {
    return null;
  }
}

/** Records a push that committed `s.commit` (null: nothing was new) at `now` (ms since the epoch). */
export function writeReceipt(
  funesHome: string,
  loc: HubLocation,
  s: { commit: string | null; published: number },
  now: number,
): void {
  mkdirSync(join(funesHome, "pushed"), { recursive: true });
  writeFileSync(
    receiptPath(funesHome, loc),
    `${JSON.stringify({ uri: loc.uri, commit: s.commit, published: s.published, at: new Date(now).toISOString() }, null, 2)}\n`,
  );
}
